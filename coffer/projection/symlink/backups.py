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

import json
import os
import stat
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil

if TYPE_CHECKING:
    from typing import Any


def same_tree(a: Path, b: Path) -> bool:
    """True if ``a`` and ``b`` are the same: a regular file's bytes, a link's target, a
    directory's names, kinds, modes and contents, all the way down (links not followed)."""
    try:
        sa, sb = os.lstat(a), os.lstat(b)
    except OSError:
        return False
    if stat.S_IFMT(sa.st_mode) != stat.S_IFMT(sb.st_mode):
        return False
    if stat.S_ISLNK(sa.st_mode):
        return os.readlink(a) == os.readlink(b)
    if stat.S_IMODE(sa.st_mode) != stat.S_IMODE(sb.st_mode):
        return False
    if stat.S_ISREG(sa.st_mode):
        return fsutil.read_bytes_or_none(a) == fsutil.read_bytes_or_none(b)
    if stat.S_ISDIR(sa.st_mode):
        names = sorted(os.listdir(a))
        if names != sorted(os.listdir(b)):
            return False
        return all(same_tree(a / n, b / n) for n in names)
    return False  # a fifo, a socket, a device: never assumed held


def already_held(native: Path, tier: Path, backups: Iterable[Path]) -> dict[str, Path]:
    """Names of ``native``'s regular files whose exact bytes one of ``holders`` (the tier,
    earlier backups of the same directory) already holds under that name, and of its
    subdirectories and links an earlier backup holds identically (undo restores those into
    the directory, so without this every unproject / project cycle would copy them again).
    Each name maps to the place holding it."""
    held: dict[str, Path] = {}
    earlier = list(backups)
    places = [tier, *earlier]
    for name in os.listdir(native):
        src = native / name
        mode = os.lstat(src).st_mode
        if stat.S_ISREG(mode):
            data = src.read_bytes()
            for place in places:
                other = place / name
                if not other.is_symlink() and fsutil.read_bytes_or_none(other) == data:
                    held[name] = place
                    break
        elif stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
            # Only a backup: the tier holds entries, not the user's other things.
            holder = next((p for p in earlier if same_tree(src, p / name)), None)
            if holder is not None:
                held[name] = holder
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


def prune(backup: Path, held: Iterable[str]) -> int:
    """Drop ``held`` files from ``backup``; remove it if nothing is left. Returns what is left."""
    for name in held:
        path = backup / name
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode):
            import shutil  # its compression modules cost more than most runs (ADR 0023)

            shutil.rmtree(path)
        elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
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


def rest(backup: Path) -> dict[str, str]:
    """Where each subdirectory and link of a directory just moved to ``backup`` is kept
    (for an old journal record that did not say)."""
    return {
        name: str(backup)
        for name in sorted(os.listdir(backup))
        if not stat.S_ISREG(os.lstat(backup / name).st_mode)
    }


def restore_rest(kept: Mapping[str, str], directory: Path) -> tuple[list[str], list[str]]:
    """Copy into ``directory`` what the merge left in the backups: each subdirectory (whole,
    with its modes and links) and symlink (same target) named in ``kept``, from the backup
    holding it. A name ``directory`` already uses (a file created in the store since) is
    never overwritten: the original comes back beside it as ``<name>.coffer-original[-n]``.
    Returns lines saying what went where, and lines for what could not be restored (a
    fifo, a socket, a backup deleted by hand)."""
    told: list[str] = []
    failed: list[str] = []
    for name, where in sorted(kept.items()):
        src = Path(where) / name
        try:
            mode = os.lstat(src).st_mode
        except OSError:
            failed.append(f"{name} (its backup {src} is gone)")
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            failed.append(f"{name} (not a file, directory or link; it is at {src})")
            continue
        dest = directory / name
        if os.path.lexists(dest):
            dest = free_path(directory / f"{name}.coffer-original")
            told.append(f"{name} (a {name} is in the store now): restored as {dest.name}")
        if stat.S_ISLNK(mode):
            os.symlink(os.readlink(src), dest)
        else:
            import shutil

            shutil.copytree(src, dest, symlinks=True)
        if not same_tree(src, dest):
            raise OSError(f"the copy of {src} into {dest} did not verify")
    return told, failed


RESTORED = "restored-dirs.json"


def note_restored(backups: Path, directory: Path) -> None:
    """Remember, beside the backups, a directory undo gave back its original contents:
    before deleting the store, `coffer uninstall` checks that every backed-up file is there."""
    path = backups / RESTORED
    known = restored(backups)
    if str(directory) not in known:
        fsutil.ensure_dir(backups)
        data = json.dumps(sorted([*known, str(directory)]), indent=2) + "\n"
        fsutil.atomic_write_bytes(path, data.encode("utf-8"))


def restored(backups: Path) -> list[str]:
    """The directories :func:`note_restored` remembered."""
    data = fsutil.read_bytes_or_none(backups / RESTORED)
    try:
        parsed = json.loads(data) if data else []
    except ValueError:
        return []
    return [str(x) for x in parsed] if isinstance(parsed, list) else []


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
