"""How agents start coffer: the absolute command `coffer setup` writes into their configs."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coffer.adapter import Launch


def resolve_launch(
    environ: Mapping[str, str],
    store_root: Path,
    *,
    argv0: str | None = None,
    executable: str | None = None,
) -> Launch:
    """The absolute command agents should run, most specific first: the ``coffer`` script
    being run now, the one beside this interpreter, the one on PATH, else ``python -m
    coffer`` with this interpreter. Paths are made absolute but not resolved, so a stable
    link (pipx, Homebrew) stays the link rather than a versioned directory behind it.
    """
    # The adapter contract (and the agent facts it carries) is imported here, not at the
    # top: `coffer watch --status` needs only launch_command, and pays for nothing else.
    from coffer.adapter import Launch

    return Launch(*launch_command(environ, store_root, argv0=argv0, executable=executable))


def launch_command(
    environ: Mapping[str, str],
    store_root: Path,
    *,
    argv0: str | None = None,
    executable: str | None = None,
) -> tuple[tuple[str, ...], dict[str, str]]:
    """The argv prefix and environment of :func:`resolve_launch`."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    candidates = []
    if os.path.basename(argv0) in ("coffer", "coffer.exe"):
        candidates.append(os.path.abspath(argv0))
    if executable:
        candidates.append(os.path.join(os.path.dirname(os.path.abspath(executable)), "coffer"))
    found = shutil.which("coffer", path=environ.get("PATH"))
    if found:
        candidates.append(os.path.abspath(found))
    argv: tuple[str, ...] = (os.path.abspath(executable), "-m", "coffer")
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            argv = (candidate,)
            break
    # The store is always spelled out. Agents may start coffer with a trimmed environment
    # (Codex passes a short allow-list to MCP servers), so one chosen through the
    # environment would be lost; and the session-start no-op finds the store only through
    # COFFER_HOME, since the platform's default is platformdirs' to compute and importing
    # it costs as much as the rest of the no-op (coffer.base.locations, docs/adr/0048).
    return argv, {"COFFER_HOME": str(store_root)}
