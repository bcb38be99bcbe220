"""Crash safety: coffer's writing commands killed before each of their file-system changes.

After every kill: each file outside the store holds its old or its new bytes (and, for
`remember`, each entry file in the store), Claude's memory directory (or coffer's link to
the store) is in place with every file readable, the next run converges on what an uncut
run makes (no entry lost or saved twice, each MEMORY.md as an uncut run leaves it), no
coffer temp file is left anywhere, and undo gives back every byte.

The default suite runs a sample (one kill point per command; for `project` the one inside
the directory/link swap, with and without an atomic exchange). The full sweep, every kill
point of every command:

    COFFER_FAULTS=full .venv/bin/python -m pytest tests/faults -s -p no:randomly

prints how many kill points it covered.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.faults.kill import SCENARIOS, sweep

# Each kill point ends coffer with SIGKILL (coffer/base/faults.py): a POSIX signal.
pytestmark = pytest.mark.posix_only("SIGKILL fault injection")

FULL = os.environ.get("COFFER_FAULTS") == "full"
CASES = [(name, False) for name in SCENARIOS] + [("project", True), ("unproject", True)]


@pytest.mark.timeout(3600 if FULL else 120)
@pytest.mark.parametrize(
    ("name", "no_exchange"),
    CASES,
    ids=[name + (" (two renames)" if ne else "") for name, ne in CASES],
)
def test_a_kill_before_any_change_loses_nothing(
    tmp_path: Path, name: str, no_exchange: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    covered, total = sweep(tmp_path, name, full=FULL, no_exchange=no_exchange)
    with capsys.disabled():
        how = " (two-rename swap)" if no_exchange else ""
        print(f"\n[faults] coffer {name}{how}: {covered} of {total} kill points covered")
    assert covered >= 1
