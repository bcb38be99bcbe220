"""Codex's memories, read for import into coffer's global tier before the switch goes off:
``memory_summary.md``, ``MEMORY.md`` and the ad-hoc notes under ``$CODEX_HOME/memories/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Imported
from coffer.adapter.native import import_file, link_in


def imports(home: Path) -> Sequence[Imported]:
    # Like the store, never follow a symlink out of Codex's memory folder: a link there could
    # copy any file the user can read into both global blocks (docs/adr/0018).
    mem = home / "memories"
    sources = [
        (mem / "memory_summary.md", "codex-memory-summary", "Codex memory summary"),
        (mem / "MEMORY.md", "codex-memory", "Codex memory index"),
    ]
    notes = mem / "extensions" / "ad_hoc" / "notes"
    if notes.is_dir() and link_in(mem, notes) is None:
        for p in sorted(notes.iterdir()):
            if p.name.endswith(".md"):
                sources.append((p, f"codex-note-{p.stem}", f"Codex note {p.stem}"))
    elif notes.is_dir():
        sources.append((notes, "codex-notes", "Codex notes"))
    out = []
    for path, name, desc in sources:
        item = import_file(mem, path, name, desc, "Codex")
        if item is not None:
            out.append(item)
    return out
