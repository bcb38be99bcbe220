"""The directory/link swap of a SYMLINK target, and its recovery after a killed run.

The agent's directory and coffer's link trade places with no moment where neither is at
``link``: the link is made under a sibling name and the two are exchanged atomically
(swaps.exchange), then the directory, now at the sibling name, moves to the backups.
Where the system cannot exchange, the directory is renamed aside and the link renamed in
(rename(2) cannot put a link over a directory); a run cut between those two renames
leaves both siblings, and the next run (``recover``) finishes the swap.
"""

from __future__ import annotations

import stat
from pathlib import Path

from coffer.base import fsutil, platform, swaps
from coffer.projection.common import lstat_or_none
from coffer.projection.journal import Journal
from coffer.projection.symlink.merge import backup_dir
from coffer.projection.symlink.state import points_to


def is_dir(path: Path) -> bool:
    st = lstat_or_none(path)
    # On Windows a junction is a directory too (its lstat says so): not one here.
    return st is not None and stat.S_ISDIR(st.st_mode) and not platform.is_link(st)


def is_link(path: Path) -> bool:
    st = lstat_or_none(path)
    return st is not None and platform.is_link(st)


def new_link(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-new")


def old_dir(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-old")


def staging(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-restore")


def parked(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-link")


def swap_in(link: Path, backup: str | None) -> None:
    """Put the link made at ``new_link(link)`` in place of ``link``."""
    new = new_link(link)
    if backup is None:
        fsutil.rename(new, link)  # nothing there yet: a plain rename is atomic
        return
    if swaps.exchange(new, link):
        fsutil.move_dir(new, Path(backup))  # ``new`` now holds the original directory
        return
    old = old_dir(link)
    fsutil.rename(link, old)
    fsutil.rename(new, link)
    fsutil.move_dir(old, Path(backup))


def recover(journal: Journal, link: Path, tier_dir: Path) -> list[str]:
    """Finish or clean up a directory/link swap a killed run left half done (by
    ``establish`` or ``undo``); returns notices. Never deletes anything that is not a
    copy: an original directory left aside goes to the backups the journal names."""
    notices: list[str] = []
    if not link.parent.is_dir():
        return notices
    for sibling in (new_link(link), parked(link), staging(link), old_dir(link)):
        st = lstat_or_none(sibling)
        if st is None:
            continue
        if platform.is_link(st):  # tested first: a junction is also a directory
            notices += _recover_link(link, sibling, tier_dir)
        elif stat.S_ISDIR(st.st_mode):
            notices += _recover_dir(journal, link, sibling, tier_dir)
    return notices


def _recover_link(link: Path, sibling: Path, tier_dir: Path) -> list[str]:
    if not points_to(sibling, tier_dir):
        return []  # not coffer's: left alone
    if lstat_or_none(link) is None:
        fsutil.rename(sibling, link)
        return [f"{link}: finished a link swap an interrupted run left half done"]
    fsutil.remove_link(sibling)  # a spare link to the store: nothing of the user's
    return []


def _recover_dir(journal: Journal, link: Path, sibling: Path, tier_dir: Path) -> list[str]:
    here = lstat_or_none(link)
    if here is None:
        fsutil.rename(sibling, link)
        return [f"{link}: put back the directory an interrupted run left aside"]
    if sibling == staging(link):
        fsutil.rmtree(sibling)  # undo's copy of the store, made again by the next undo
        return []
    if not (platform.is_link(here) and points_to(link, tier_dir)):
        return []
    record = journal.load(link)
    dest = record.backup if record else None
    if not dest or lstat_or_none(Path(dest)) is not None:
        dest = str(backup_dir(journal, link))
        fsutil.ensure_dir(Path(dest).parent)
        if record is not None:
            journal.save(record.but(backup=dest, before="dir"))
    fsutil.move_dir(sibling, Path(dest))
    return [f"{link}: the original directory is kept at {dest}"]
