"""Helpers shared by the projection operations."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from coffer.base import fsutil, platform
from coffer.base.errors import CofferError
from coffer.base.report import Diff
from coffer.store.projects import now_iso


def lstat_or_none(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def is_regular(st: os.stat_result | None) -> bool:
    return st is not None and stat.S_ISREG(st.st_mode)


def text_diff(path: Path, before: bytes | None, after: bytes | None) -> Diff:
    """The diff --dry-run shows for this change (worked out only if it is shown)."""
    return Diff(path, before, after)


def ensure_parent(path: Path) -> list[str]:
    """Create missing parents of ``path``; return those created (for undo to remove)."""
    missing: list[Path] = []
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for d in reversed(missing):
        fsutil.ensure_dir(d)
    return [str(d) for d in missing]


def mtime_ns(path: Path) -> int | None:
    st = lstat_or_none(path)
    return st.st_mtime_ns if st is not None else None


def restore_mtime(path: Path, data: bytes, before_sha256: str | None, mtime: int | None) -> None:
    """When undo gave back the exact original bytes, give back the original mtime too."""
    import hashlib

    if mtime is not None and before_sha256 == hashlib.sha256(data).hexdigest():
        platform.set_mtime_ns(path, mtime)


def recorded_target(recorded: str, link: Mapping[str, str] | None) -> Path:
    """The file undo restores for a config recorded at ``recorded``: the one coffer edited
    (through a dotfile manager's ``link``, the file it pointed to), checked to be still
    that file; a link that now points elsewhere, or a file that became a link, is refused."""
    path = Path(recorded)
    target = fsutil.edit_target(path)
    was = Path(link["target"]) if isinstance(link, Mapping) and "target" in link else path
    if target != was:
        raise CofferError(
            f"{path} now leads to {target}, not to {was} as when coffer changed it; left alone"
        )
    return target


def remove_created_dirs(dirs: list[str]) -> None:
    """Remove directories coffer created, deepest first, only while they are empty."""
    for d in sorted(dirs, key=len, reverse=True):
        try:
            fsutil.rmdir(Path(d))
        except OSError:
            break


__all__ = [
    "ensure_parent",
    "is_regular",
    "lstat_or_none",
    "now_iso",
    "remove_created_dirs",
    "text_diff",
]
