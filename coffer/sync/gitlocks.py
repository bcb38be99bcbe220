"""git's ``*.lock`` files left in sync's repository by a killed round (docs/adr/0043).

git creates ``<file>.lock`` beside each file it rewrites (a ref, ``packed-refs``, the scratch
index, ``config``) and renames it into place; a git killed in between leaves the lock, and
every later git that needs the file refuses. Only coffer runs git in this repository, always
under sync's own lock and always with the repository as its working directory, so a lock is
stale when coffer holds that lock, no process has the repository as its working directory
(where ``/proc`` tells), and the lock is older than :data:`STALE_AFTER` seconds (where it
does not: :data:`STALE_UNKNOWN`, longer than any round's budget).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from coffer.base import fsutil

STALE_AFTER = 10.0
STALE_UNKNOWN = 3600.0
_PROC = Path("/proc")


def find(repo: Path) -> list[Path]:
    """Every ``*.lock`` file in ``repo``, skipping the loose objects' fan-out directories."""
    found: list[Path] = []
    if not repo.is_dir():
        return found
    for top, dirs, files in os.walk(repo):
        if Path(top) == repo / "objects":
            dirs[:] = [d for d in dirs if len(d) != 2]  # 00..ff hold objects, never locks
        found += [Path(top) / f for f in files if f.endswith(".lock")]
    return sorted(found)


def git_running_in(repo: Path) -> bool | None:
    """Whether a process works in ``repo`` (every git coffer starts does); None when this
    system has no ``/proc`` to ask."""
    if not (_PROC / "self" / "cwd").exists():
        return None
    target = os.path.realpath(repo)
    me = str(os.getpid())
    with contextlib.suppress(OSError):
        for pid in os.listdir(_PROC):
            if not pid.isdigit() or pid == me:
                continue
            try:
                cwd = os.readlink(_PROC / pid / "cwd")
            except OSError:
                continue  # gone, or another user's: not a git of ours
            if cwd == target or cwd.startswith(target + os.sep):
                return True
    return False


def stale(repo: Path, now: float | None = None) -> list[Path]:
    """The locks in ``repo`` whose owner is gone (call with sync's lock held)."""
    locks = find(repo)
    if not locks:
        return []
    running = git_running_in(repo)
    if running:
        return []
    age = STALE_UNKNOWN if running is None else STALE_AFTER
    when = time.time() if now is None else now
    out = []
    for lock in locks:
        with contextlib.suppress(OSError):
            if when - lock.lstat().st_mtime >= age:
                out.append(lock)
    return out


def recover(repo: Path) -> list[str]:
    """Remove the stale locks (what git's own message tells a user to do by hand); their
    paths in the repository, for the round's report."""
    removed = []
    for lock in stale(repo):
        with contextlib.suppress(FileNotFoundError):
            fsutil.unlink(lock)
            removed.append(lock.relative_to(repo).as_posix())
    return removed


def findings(repo: Path) -> list[tuple[Path, bool, str]]:
    """What `coffer doctor` says of the locks in ``repo``: each, whether it is stale, why
    it matters."""
    old = set(stale(repo))
    out = []
    for lock in find(repo):
        if lock in old:
            why = (
                "git's lock left by a killed sync round (no git runs here); "
                "`coffer sync` removes it and syncs"
            )
        else:
            why = "git's lock of a sync round running now (or just killed); look again later"
        out.append((lock, lock in old, why))
    return out
