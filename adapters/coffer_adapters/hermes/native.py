"""Hermes Agent's own memories, ``~/.hermes/memories/MEMORY.md`` (its notes) and ``USER.md``
(its user profile): imported into coffer's global tier at every ``coffer project``, and left
on (docs/adr/0032).

Hermes 0.19.0 (agent/agent_init.py, tools/memory_tool.py) loads both files into the system
prompt while ``memory.memory_enabled`` / ``memory.user_profile_enabled`` are true (the
default in hermes_cli/config.py), as entries separated by a ``§`` line, capped at 2,200 and
1,375 characters. Those two keys would switch them off, but Hermes reads no file coffer's
global tier could go in (its only global file is ``SOUL.md``, its identity), so switching its
memory off would leave Hermes with no global facts at all. So coffer only copies them: each
file is one entry (``hermes-memory``, ``hermes-user-profile``), replaced when the file
changes, so every other agent sees what Hermes remembers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Imported, NativeMemory
from coffer.adapter.native import import_file, import_only

_DELIMITER = "\n§\n"  # tools/memory_tool.py ENTRY_DELIMITER
_FILES = (
    ("MEMORY.md", "hermes-memory", "Hermes Agent's notes (its memory tool)"),
    ("USER.md", "hermes-user-profile", "What Hermes Agent knows about the user"),
)
WHY = (
    "Hermes reads no file coffer's global tier could go in, so switching it off would leave "
    "Hermes no global memory"
)


def files(config: Path) -> list[Path]:
    return [config / "memories" / name for name, _, _ in _FILES]


def imports(memories: Path) -> Sequence[Imported]:
    out: list[Imported] = []
    for filename, name, description in _FILES:
        item = import_file(memories, memories / filename, name, description, "Hermes Agent")
        if item is None or item.refused:
            out += [item] if item is not None else []
            continue
        text = item.body.replace("\r\n", "\n")
        entries = [e.strip() for e in text.split(_DELIMITER) if e.strip()]
        if entries:
            out.append(Imported(name, description, "\n\n".join(entries), item.source))
    return out


def native_memory(config: Path) -> NativeMemory:
    memories = config / "memories"
    return import_only(
        memories / "MEMORY.md",
        lambda: imports(memories),
        "memories/MEMORY.md and USER.md",
        WHY,
    )
