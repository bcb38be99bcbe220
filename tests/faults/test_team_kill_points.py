"""Crash safety of the team tier (docs/adr/0036): `coffer project` in a repository whose
team tier has an entry, killed before each change to ``AGENTS.md`` (the team block's write
and the personal block's after it); with ``COFFER_FAULTS=full``, before every change.

After every kill each file outside the store holds its old or its new bytes — a file with
both blocks also the one between, with the team block and not yet the personal one (two
atomic writes: the team pass runs first) — no temp file
is left once the next run has run, the next run converges on what an uncut run makes, and
`coffer unproject --all` gives back every byte outside ``.coffer/memory/``, which stays as
the team wrote it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from coffer.base import faults
from coffer.projection import managed_block
from tests.faults.kill import Files, Sandbox, build, temp_files

# Each kill point ends coffer with SIGKILL (coffer/base/faults.py): a POSIX signal.
pytestmark = pytest.mark.posix_only("SIGKILL fault injection")

TEAM_ENTRY = b"---\nname: review\ndescription: two approvals\n---\n\nTwo approvals to merge.\n"


def _team(sb: Sandbox) -> None:
    directory = sb.repo / ".coffer" / "memory"
    directory.mkdir(parents=True)
    (directory / "MEMORY.md").write_bytes(b"# Team memory\n")
    (directory / "review.md").write_bytes(TEAM_ENTRY)


def _outside_team(files: Files) -> Files:
    return {k: v for k, v in files.items() if "/.coffer/memory/" not in k}


@pytest.mark.timeout(1800)
def test_a_kill_before_any_team_change_loses_nothing(tmp_path: Path) -> None:
    ref = build(tmp_path / "ref")
    original = ref.tracked()
    _team(ref)
    team_files = {k: v for k, v in ref.tracked().items() if "/.coffer/memory/" in k}
    before = ref.tracked()
    log_file = ref.root / "faults.log"
    r = ref.run("project", log=log_file)
    assert r.returncode == 0, (r.stdout, r.stderr)
    after = ref.tracked()
    assert b"coffer:team:start" in (after["repo/AGENTS.md"] or b"")
    log = log_file.read_text().splitlines()
    team_points = [i + 1 for i, line in enumerate(log) if "AGENTS.md" in line]
    assert team_points, log
    agents_md = after["repo/AGENTS.md"]
    assert agents_md is not None
    between = {"repo/AGENTS.md": managed_block.remove(agents_md)}  # the team block alone
    full = os.environ.get("COFFER_FAULTS") == "full"
    for n in range(1, len(log) + 1) if full else team_points:
        sb = build(tmp_path / f"k{n}")
        _team(sb)
        cut = sb.run("project", kill_at=n)
        where = f"killed before change {log[n - 1]!r}"
        assert cut.returncode == faults.KILLED, (where, cut.stdout, cut.stderr)
        now = sb.tracked()
        for f in set(now) | set(before) | set(after):
            states = (before.get(f), after.get(f), between.get(f, before.get(f)))
            assert now.get(f) in states, (where, f)
        sb.ok("project")
        assert sb.tracked() == after, where
        assert temp_files(sb) == [], (where, temp_files(sb))
        sb.ok("unproject", "--all")
        final = sb.tracked()
        assert _outside_team(final) == original, where
        assert {k: v for k, v in final.items() if "/.coffer/memory/" in k} == team_files
        shutil.rmtree(sb.root)
    covered = len(log) if full else len(team_points)
    print(f"\n[faults] coffer project (team tier): {covered} of {len(log)} kill points covered")
