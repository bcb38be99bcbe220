"""Entries synced for a project this machine has not registered yet (docs/adr/0034, amended).

`coffer sync` keeps a plain copy of each such entry, once checked like any pulled file, in
``$COFFER_HOME/sync/waiting/<key>/`` (the key's ``/`` written ``+``: no key holds a ``+``).
When a project is first registered, :func:`adopt` moves its key's entries into the new tier
before anything renders it, so the first agent session there has them. Computing the key
reads what registration already read (the ``origin`` URL, the root commit); when nothing
waits it costs one ``lstat``: no git, no network, no sync lock on the way to a session start.
Each entry is checked again here (the waiting area is a copy, and copies can be tampered
with) and written atomically; the sync repository keeps every file, so the next round finds
them already imported and the ones refused here named again.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil, platform
from coffer.store.incoming import MAX_FILE, entry_name_ok, entry_problem, too_large
from coffer.store.sync_keys import project_key

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from coffer.base.report import Report
    from coffer.store.tier import Tier

_LONGEST_DIR = 120  # a key may have 8 segments of 100 characters; a name at most 255 bytes


def area(store_root: Path) -> Path:
    """The waiting area: one directory per key."""
    return store_root / "sync" / "waiting"


def dirname(key: str) -> str:
    """The directory a valid key's entries wait in: one component, never hidden (a key's
    first character is a letter, a digit or ``_``), one per key."""
    flat = key.replace("/", "+")
    if len(flat) <= _LONGEST_DIR:
        return flat
    import hashlib

    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"{flat[: _LONGEST_DIR - 17]}-{digest}"


def read_plain(path: Path) -> bytes | str:
    """The bytes of the regular file ``path`` within the size cap, else why not."""
    try:
        fd = platform.open_nofollow(path, os.O_RDONLY | platform.NONBLOCK)
    except platform.NotRegularFile:
        return "not a plain file"  # a FIFO, refused unopened without O_NONBLOCK
    except OSError as exc:
        return "a link" if os.path.islink(path) else f"unreadable ({exc.strerror or exc})"
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return "not a plain file"
        if st.st_size > MAX_FILE:
            return too_large(st.st_size)
        return fh.read(MAX_FILE + 1)


def adopt(
    store_root: Path,
    tier: Tier,
    lock: Callable[[Tier], AbstractContextManager[None]],
) -> Report | None:
    """Move the entries waiting for ``tier``'s key into ``tier`` (just registered), under
    its lock; what arrived (a notice) and what was refused (alerts), or None when nothing
    waits. An entry the tier already holds is left to the next sync round to merge."""
    key = project_key(tier.info.remote, tier.info.root_commit)
    if key is None:
        return None
    source = area(store_root) / dirname(key)
    try:
        if not stat.S_ISDIR(os.lstat(source).st_mode):
            return None
    except OSError:
        return None  # nothing waits: the one stat a registration pays
    # Imported once something waits: a registration with nothing waiting pays the stat only.
    from coffer.base.report import Report, plural

    report = Report()
    written = 0
    with lock(tier):
        fsutil.ensure_dir(tier.dir)
        for name in sorted(os.listdir(source)):
            why = _move(source, name, tier)
            if why is None:
                written += 1
            elif why:
                report.alerts.append(
                    f"refused an entry synced from another machine for {key}: "
                    f"{_shown(name)}: {why} (it stays in the sync repository)"
                )
    with contextlib.suppress(OSError):
        fsutil.rmtree(source)  # a copy: the sync repository holds every file of it
    if written:
        report.notices.append(
            f"{plural(written, 'entry', 'entries')} synced from other machines for {key} "
            "added to this project"
        )
    return report


def _move(source: Path, name: str, tier: Tier) -> str | None:
    """Write the waiting file ``name`` into ``tier``: None once written, else why not
    ("" for a file no entry is made of, quietly: coffer's own temporary files)."""
    if fsutil.is_tmp_name(name):
        return ""
    if not entry_name_ok(name):
        return "not a name an entry file may have"
    data = read_plain(source / name)
    if isinstance(data, str):
        return data
    why = entry_problem(name, data)
    if why is not None:
        return why
    target = fsutil.safe_child(tier.dir, name)
    if os.path.lexists(target):
        # Written here meanwhile (a `remember` racing this one): the next round merges them.
        same = read_plain(target) == data
        return "" if same else "this project already has another entry in that file"
    fsutil.atomic_write_bytes(target, data)
    return None


def _shown(name: str) -> str:
    """A name as a message may show it: no token, no control character."""
    from coffer.secrets import redact

    text = redact(name)
    return text if text.isprintable() else ascii(text)[1:-1]
