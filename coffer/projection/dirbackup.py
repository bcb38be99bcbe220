"""What coffer keeps of an agent's memory directory it replaces with a link, and the modes it
puts back when it turns the link into a directory again (docs/adr/0016).

Policy: a directory being linked is moved whole into ``backups/dirs/``; once the link is in
place, a file is dropped from that backup when the same bytes under the same name were
already held, *before* the merge, by the store or by an earlier backup of the same
directory, and an emptied backup is removed. Everything else stays: files the merge copied
in, renamed collisions, a ``MEMORY.md`` not seen before, subdirectories and links.
So the directory a user had before coffer is kept whole, and an ``unproject`` /
``project --resume`` cycle, whose directory is coffer's own copy of the store, adds nothing
unless an agent wrote something new meanwhile. Nothing is ever deleted from a kept backup.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from coffer import fsutil


def already_held(native: Path, holders: Iterable[Path]) -> set[str]:
    """Names of ``native``'s regular files whose exact bytes one of ``holders`` (the tier,
    earlier backups of the same directory) already holds under that name."""
    held = set()
    places = list(holders)
    for name in os.listdir(native):
        src = native / name
        if not stat.S_ISREG(os.lstat(src).st_mode):
            continue
        data = src.read_bytes()
        for place in places:
            other = place / name
            if not other.is_symlink() and fsutil.read_bytes_or_none(other) == data:
                held.add(name)
                break
    return held


def earlier_backups(backup_dir: Path) -> list[Path]:
    """The backups already kept for the directory ``backup_dir`` is named after
    (``<stamp>-<hash of the link path>[-n]``)."""
    key = backup_dir.name.split("-")[1:2]
    if not backup_dir.parent.is_dir():
        return []
    return [
        d
        for d in sorted(backup_dir.parent.iterdir())
        if d != backup_dir and d.is_dir() and not d.is_symlink() and d.name.split("-")[1:2] == key
    ]


def prune(backup: Path, held: set[str]) -> int:
    """Drop ``held`` files from ``backup``; remove it if nothing is left. Returns what is left."""
    for name in held:
        path = backup / name
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    left = len(os.listdir(backup))
    if not left:
        os.rmdir(backup)
    return left


def modes(directory: Path) -> dict[str, Any]:
    """The permission bits of ``directory`` and of each regular file in it."""
    files = {}
    for name in os.listdir(directory):
        st = os.lstat(directory / name)
        if stat.S_ISREG(st.st_mode):
            files[name] = stat.S_IMODE(st.st_mode)
    return {"dir": stat.S_IMODE(os.stat(directory).st_mode), "files": files}


def _umask() -> int:
    # The only portable way to read the umask is to set it; undo runs in a CLI command,
    # with no other thread creating files meanwhile.
    current = os.umask(0o077)
    os.umask(current)
    return current


def restore_modes(directory: Path, recorded: Mapping[str, Any] | None) -> None:
    """Give ``directory`` and its files the modes recorded when coffer linked it.

    A file that was not there then gets the mode most of the original files had; with no
    record (the directory did not exist, or an older journal), what the agent itself would
    have created under the current umask.
    """
    umask = _umask()
    recorded = recorded or {}
    files: dict[str, int] = {str(k): int(v) for k, v in dict(recorded.get("files") or {}).items()}
    counts = Counter(files.values())
    # The most common mode; a tie goes to the higher (more open) one, so the pick is stable.
    default_file = max(counts, key=lambda m: (counts[m], m)) if counts else 0o666 & ~umask
    for name in os.listdir(directory):
        path = directory / name
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.chmod(path, files.get(name, default_file))
    os.chmod(directory, int(recorded.get("dir", 0o777 & ~umask)))  # last: it may drop our w


def free_path(path: Path) -> Path:
    """``path``, or ``path-2``, ``path-3``… whichever does not exist yet (two links made in
    the same second must not land in one backup directory)."""
    candidate, n = path, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate
