"""OpenClaw's own memory, the workspace's ``MEMORY.md`` (written by the agent; a background
sweep distils the daily notes into it): imported into coffer's global tier at every ``coffer
project``, and left on (docs/adr/0032).

OpenClaw 2026.9.6 injects it into every session as a bootstrap file. It has no switch for it
alone: ``agents.defaults.skipBootstrap`` drops every bootstrap file, ``AGENTS.md`` with
coffer's block included, and ``plugins.slots.memory`` only chooses the plugin behind
``memory_search``. So coffer copies it, as one entry replaced when the file changes, for
every other agent. Not imported: the daily notes (``memory/YYYY-MM-DD.md``, not loaded at
session start; their gist reaches ``MEMORY.md``) and ``USER.md``, a profile OpenClaw seeds
from a template (docs/reference/templates/USER.md), which would import boilerplate.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Imported, NativeMemory
from coffer.adapter.native import import_file, import_only

_FILES = (("MEMORY.md", "openclaw-memory", "OpenClaw's memory (workspace MEMORY.md)"),)
WHY = "its only off switch, agents.defaults.skipBootstrap, would hide coffer's AGENTS.md block too"


def files(workspace: Path) -> list[Path]:
    return [workspace / name for name, _, _ in _FILES]


def imports(workspace: Path) -> Sequence[Imported]:
    out: list[Imported] = []
    for filename, name, description in _FILES:
        item = import_file(workspace, workspace / filename, name, description, "OpenClaw")
        if item is not None:
            out.append(item)
    return out


def native_memory(workspace: Path) -> NativeMemory:
    return import_only(
        workspace / "MEMORY.md", lambda: imports(workspace), "workspace MEMORY.md", WHY
    )
