"""A read-only command reads each tier once (issue 24, docs/adr/0049).

`coffer status`, `coffer adapter list` and `coffer doctor` write nothing, so each reads a
tier once and passes that read down: every other scan of the same tier would sync the
search cache again (a listing and a stat of every file) and mark every entry again, a few
milliseconds of a budget they were over. Counted in-process, at ``Store.scan``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from coffer.store.search_cache import TierScan
from coffer.store.store import Store
from coffer.store.tier import Tier
from tests.helpers import coffer, make_repo


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    # Both agents, so `status` judges a link (whose MEMORY.md it renders) and a block.
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    for scope in ("project", "global"):
        said = coffer(
            "remember", f"We deploy with make release ({scope}).", "--scope", scope, cwd=r
        )
        assert said.returncode == 0, said.stderr
    assert coffer("project", cwd=r).returncode == 0
    return r


def counted_scans(monkeypatch: pytest.MonkeyPatch) -> Counter[Path]:
    """How often each tier directory is scanned from now on (counted at ``Store.scan``)."""
    scanned: Counter[Path] = Counter()
    real = Store.scan

    def counted(self: Store, tier: Tier) -> TierScan:
        scanned[tier.dir] += 1
        return real(self, tier)

    monkeypatch.setattr(Store, "scan", counted)
    return scanned


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["status", "--json"],
        ["adapter", "list"],
        ["adapter", "list", "--json"],
        ["doctor"],
        ["doctor", "--json"],
    ],
)
def test_a_read_only_command_scans_each_tier_once(
    repo: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from coffer.main import main

    scanned = counted_scans(monkeypatch)
    monkeypatch.chdir(repo)
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code in (0, 1, None), capsys.readouterr()
    # The project tier and the global one, each once (it was 5 scans for `status`, 3 for
    # `adapter list` and 8 for `doctor`).
    assert len(scanned) == 2
    assert set(scanned.values()) == {1}, scanned


def test_remember_reads_its_tier_once_per_step(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before the write (what the entry joins), after it (MEMORY.md) and in the refresh,
    # where the agents' stamp reads it under the tier's lock and the blocks take that read
    # when it stamped nothing (it was 4 scans: the blocks read the tier again).
    from coffer.main import main

    scanned = counted_scans(monkeypatch)
    monkeypatch.chdir(repo)
    with pytest.raises(SystemExit) as done:
        main(["remember", "Releases are tagged from main."])
    out = capsys.readouterr().out
    assert done.value.code in (0, None) and "updated" in out, out
    assert list(scanned.values()) == [3], scanned
