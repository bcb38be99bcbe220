"""Blocks `coffer project` left unwritten because their tier had nothing to show.

An empty block ("no memories yet") would be read at every session start for nothing, so
`coffer project` writes none (docs/adr/0045). It notes each such file here instead, in the
store: the write that gives the tier its first entry (`remember`, the
watcher) writes the block then, exactly where `coffer project` would have, and nowhere
else: a write never starts projecting a file nobody projected. `coffer project` keeps the
list current; `coffer unproject` forgets what it covers. It lives in the store's root, beside
``projects.json``; `coffer watch` watches it as it watches the journal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil

if TYPE_CHECKING:
    from typing import Any

# Beside projects.json, which it extends: `coffer watch` rescans what it watches when either
# changes, so a project whose only block waits is watched for its first entry.
NAME = "empty-blocks.json"


def _file(store_root: Path) -> Path:
    return store_root / NAME


def load(store_root: Path) -> dict[str, dict[str, Any]]:
    """{path: {"tier": ..., "project_id": ...}}; a damaged file reads as empty (the next
    `coffer project` writes it again)."""
    data = fsutil.read_bytes_or_none(_file(store_root))
    try:
        parsed = json.loads(data) if data else {}
    except ValueError:
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {str(k): v for k, v in parsed.items() if isinstance(v, dict)}


def waits(store_root: Path, path: Path, tier: str, project_id: str | None) -> bool:
    """Whether ``path``'s block for ``tier`` (of ``project_id``) was left unwritten empty."""
    found = load(store_root).get(str(path))
    return found is not None and found.get("tier") == tier and found.get("project_id") == project_id


def note(store_root: Path, path: Path, tier: str | None, project_id: str | None) -> None:
    """Remember ``path`` as waiting for ``tier``'s first entry (``tier`` None: forget it)."""
    known = load(store_root)
    want = None if tier is None else {"tier": tier, "project_id": project_id}
    if known.get(str(path)) == want:
        return
    if want is None:
        known.pop(str(path), None)
    else:
        known[str(path)] = want
    _save(store_root, known)


def forget(store_root: Path, *, every: bool, global_: bool, project_id: str | None) -> None:
    """Drop what an unproject covered: everything, the global tier's, or one project's."""
    known = load(store_root)
    kept = {
        path: w
        for path, w in known.items()
        if not every
        and not (global_ and w.get("tier") == "global")
        and not (project_id is not None and w.get("project_id") == project_id)
    }
    if kept != known:
        _save(store_root, kept)


def _save(store_root: Path, known: dict[str, dict[str, Any]]) -> None:
    path = _file(store_root)
    if not known:
        if path.exists():
            os.unlink(path)
        return
    fsutil.ensure_dir(path.parent)
    fsutil.atomic_write_bytes(path, (json.dumps(known, indent=2, sort_keys=True) + "\n").encode())
