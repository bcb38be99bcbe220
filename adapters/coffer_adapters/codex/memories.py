"""Codex's memories, read for import into coffer's global tier before the switch goes off:
``memory_summary.md``, ``MEMORY.md`` and the ad-hoc notes under ``$CODEX_HOME/memories/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer import fsutil
from coffer.adapter import Imported
from coffer.errors import CofferError

_MAX_IMPORT = 30_000


def _link_in(mem: Path, path: Path) -> Path | None:
    """The first symlink on the way from ``mem`` (included) down to ``path``, if any."""
    probe = mem
    if probe.is_symlink():
        return probe
    for part in path.relative_to(mem).parts:
        probe = probe / part
        if probe.is_symlink():
            return probe
    return None


def imports(home: Path) -> Sequence[Imported]:
    # Like the store, never follow a symlink out of Codex's memory folder: a link there could
    # copy any file the user can read into both global blocks (docs/adr/0018).
    mem = home / "memories"
    sources = [
        (mem / "memory_summary.md", "codex-memory-summary", "Codex memory summary"),
        (mem / "MEMORY.md", "codex-memory", "Codex memory index"),
    ]
    notes = mem / "extensions" / "ad_hoc" / "notes"
    if notes.is_dir() and _link_in(mem, notes) is None:
        for p in sorted(notes.iterdir()):
            if p.name.endswith(".md"):
                sources.append((p, f"codex-note-{p.stem}", f"Codex note {p.stem}"))
    elif notes.is_dir():
        sources.append((notes, "codex-notes", "Codex notes"))
    out = []
    for path, name, desc in sources:
        link = _link_in(mem, path)
        if link is not None:
            out.append(
                Imported(
                    name,
                    desc,
                    "",
                    str(path),
                    refused=f"not imported: {link} is a symlink; coffer does not follow links "
                    "out of Codex's memory folder (replace it with the file itself)",
                )
            )
            continue
        if not path.is_file():  # never open a FIFO or a device: it could block
            continue
        try:
            data = fsutil.read_bytes_or_none(path)
        except (OSError, CofferError):
            continue
        if data is None:
            continue
        text = data.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        if len(text.encode()) > _MAX_IMPORT:
            text = text.encode()[:_MAX_IMPORT].decode("utf-8", "ignore") + (
                f"\n\n(truncated by coffer; the full text is in {path})"
            )
        out.append(Imported(name, desc, text, str(path)))
    return out
