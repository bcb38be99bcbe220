"""The round's copy of what waits: the entries of every key in the merge that no project
here has, kept as plain files in the store's waiting area (:mod:`coffer.store.waiting`,
docs/adr/0034, amended), so the project's first registration takes them without git.

Each file is checked as any pulled file before it is copied; the area is made to match the
merge exactly (changed files rewritten, files and keys gone removed). A file whose copy is
already right is not read from the repository again.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from coffer.base import fsutil, platform
from coffer.base.errors import CofferError
from coffer.store import waiting
from coffer.sync import local, rounds, tree
from coffer.sync.gitcmd import Git

_Wanted = dict[str, dict[str, tuple[str, tree.Item]]]  # dir -> file name -> (path, item)


def keep(
    git: Git, store_root: Path, keyed: local.Keyed, merged: Mapping[str, tree.Item]
) -> list[str]:
    """Copy into the waiting area the entries of ``merged`` (the merge's files) no local
    tier takes; those refused, as ``path: why`` lines for the report (they stay in the
    repository, named each round)."""
    area = waiting.area(store_root)
    wanted: _Wanted = {}
    for path, item in merged.items():
        split = tree.split(path)
        if split is not None and split[0] not in keyed.tiers:
            wanted.setdefault(waiting.dirname(split[0]), {})[split[1]] = (path, item)
    if not wanted and not area.is_dir():
        return []
    _drop_gone(area, wanted)
    stale = [
        (area / d / name, path, item)
        for d, files in wanted.items()
        for name, (path, item) in files.items()
        if _blob_id(area / d / name) != item.sha
    ]
    readable = [
        i.sha for _, _, i in stale if i.mode == tree.BLOB_MODE and 0 <= i.size <= tree.MAX_FILE
    ]
    blobs = tree.cat_blobs(git, readable)
    refused = []
    for target, path, item in stale:
        data = blobs.get(item.sha)
        why = local.check_incoming(path, item, data)
        if why is not None or data is None:
            refused.append(f"{rounds.shown_path(path)}: {why}")
            _remove(target)
            continue
        # A registration may take the directory away meanwhile: the next round copies again.
        with contextlib.suppress(OSError, CofferError):
            fsutil.ensure_dir(target.parent)
            fsutil.atomic_write_bytes(target, data)
    return refused


def _drop_gone(area: Path, wanted: _Wanted) -> None:
    """Remove what no longer waits: a key a project here now has, a file the merge deleted."""
    for d in _names(area):
        # a junction is no real directory either: what it points to is never cleaned
        real_dir = (area / d).is_dir() and not platform.link_at(area / d)
        if d not in wanted or not real_dir:
            _remove(area / d)
            continue
        for name in _names(area / d):
            if name not in wanted[d]:
                _remove(area / d / name)


def _names(directory: Path) -> list[str]:
    try:
        return sorted(os.listdir(directory)) if not platform.link_at(directory) else []
    except OSError:
        return []


def _blob_id(path: Path) -> str | None:
    data = waiting.read_plain(path)
    return tree.blob_id(data) if isinstance(data, bytes) else None


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):  # the next round tries again
        if os.path.isdir(path) and not platform.link_at(path):
            fsutil.rmtree(path)
        else:
            fsutil.unlink(path)
