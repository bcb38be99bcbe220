"""What the everyday commands leave unimported (issue 24, docs/adr/0049).

Each check runs the real command in a fresh interpreter and looks at ``sys.modules`` after
it (tests.helpers.imported_after), in a projected project, so the journal holds records:
- no everyday command imports ``dataclasses`` (with ``inspect`` and the modules it pulls
  in): the journal's records are one ``NamedTuple`` shape (docs/adr/0024), also when setup's
  records are in the journal and the command runs outside the project the blocks serve, and
  `explain`'s views are NamedTuples too;
- ``coffer.store.drafts`` (writers) and ``coffer.store.health`` (`doctor`) load only with
  what uses them, though every command imports the ``coffer.store`` package;
- `status` shows a sync remote only when one is configured, so it skips git's module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import coffer, imported_after, make_repo

HEALTH = "coffer.store.health"
DRAFTS = "coffer.store.drafts"


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".codex").mkdir()
    (fake_home / ".claude").mkdir()
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "Deploys use make release.", "--name", "d", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    store = Path(json.loads(coffer("where", "--json", cwd=repo).stdout)["store"])
    assert list((store / "journal").glob("*.json"))  # records the commands below could read
    return repo


@pytest.mark.parametrize(
    "argv",
    [
        ["doctor"],
        ["remember", "Releases are tagged from main.", "--name", "tags"],
        ["forget", "d"],
    ],
)
def test_the_journal_costs_no_dataclasses(repo: Path, argv: list[str]) -> None:
    # Each reads the journal's records; a write also re-renders the block and saves its
    # record, and a forget re-renders it without the entry.
    code, found = imported_after(argv, repo, ("dataclasses",))
    assert code in (0, 1) and found == [], argv
    assert ("tags" in coffer("list", cwd=repo).stdout) == (argv[0] == "remember")


def test_the_audit_costs_no_dataclasses(repo: Path) -> None:
    # What setup wired and the blocks no target holds any more, read from the records,
    # with setup's records in the journal, in and outside the project the blocks serve.
    wired = coffer("setup", "--yes", "--agent", "claude", "--no-service", cwd=repo)
    assert wired.returncode == 0, wired.stderr
    for where in (repo, repo.parent):
        for argv in (["status"], ["adapter", "list"]):
            code, found = imported_after(argv, where, ("dataclasses",))
            assert code in (0, 1) and found == [], (argv, where)
    assert "setup: hook wired, mcp wired, skill wired" in coffer("adapter", "list", cwd=repo).stdout


def test_explain_costs_no_dataclasses(repo: Path) -> None:
    # Its views are NamedTuples like every record on a command's path: dataclasses would
    # add inspect, ast and tokenize, a tenth of the command (docs/adr/0049).
    code, found = imported_after(["explain"], repo, ("dataclasses",))
    assert (code, found) == (0, [])
    assert "AGENTS.md" in coffer("explain", cwd=repo).stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["adapter", "list"],
        ["explain"],
        ["list"],
        ["show", "d"],
        ["recall", "deploy"],
        ["where"],
    ],
)
def test_reads_import_neither_drafts_nor_health(repo: Path, argv: list[str]) -> None:
    code, found = imported_after(argv, repo, (DRAFTS, HEALTH))
    assert code in (0, 1) and found == [], argv


def test_doctor_imports_health_and_no_drafts(repo: Path) -> None:
    code, found = imported_after(["doctor"], repo, (DRAFTS, HEALTH))
    assert code in (0, 1) and found == [HEALTH]


def test_status_without_sync_skips_git(repo: Path) -> None:
    code, found = imported_after(["status"], repo, ("coffer.sync.gitcmd",))
    assert code in (0, 1) and found == []


def test_the_lazy_names_are_the_modules_own() -> None:
    # The store's face loads these names on first use (PEP 562): the same objects.
    import coffer.store as store
    from coffer.store import drafts, health

    assert store.Finding is health.Finding
    assert (store.RememberOptions, store.Revision) == (drafts.RememberOptions, drafts.Revision)
    with pytest.raises(AttributeError):
        store.Nothing  # noqa: B018
