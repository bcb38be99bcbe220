"""The store's side of a round: which entry files this machine offers, and writing what
the merge decided back into the tiers (docs/adr/0034)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

from coffer.base import fsutil, identity, platform
from coffer.base.tmpfiles import fsync_dir, write_tmp
from coffer.secrets import find_secrets, redact
from coffer.store import Store, Tier, projects, trash
from coffer.store.incoming import entry_problem, too_large
from coffer.sync import tree
from coffer.sync.keys import GLOBAL_KEY, project_key, valid_key


class Keyed(NamedTuple):
    """This machine's tiers by sync key, and the projects that have none."""

    tiers: dict[str, Tier]
    unkeyed: tuple[str, ...]  # labels of projects that stay local
    doubles: tuple[str, ...]  # labels of second projects claiming one key


def keyed_tiers(store: Store, links: Mapping[str, str]) -> Keyed:
    """Every tier with the key it syncs under: the global tier, then each project by its
    link, remote or root commit (the oldest project wins a key two clones share)."""
    tiers: dict[str, Tier] = {GLOBAL_KEY: store.global_tier()}
    unkeyed: list[str] = []
    doubles: list[str] = []
    for info in sorted(projects.all_projects(store.root), key=lambda p: p.id):
        key = links.get(info.id) or _key_of(info)
        tier = Tier("project", info, store.root / "projects" / info.id)
        if key is None or not valid_key(key):
            unkeyed.append(info.label)
        elif key in tiers:
            doubles.append(info.label)
        else:
            tiers[key] = tier
    return Keyed(tiers, tuple(unkeyed), tuple(doubles))


def _key_of(info: projects.ProjectInfo) -> str | None:
    # The origin as the clone's config says now (it may have changed since registration),
    # else as recorded; the root commit as recorded, else asked of git (a project registered
    # before its first commit).
    root = Path(info.root)
    remote = identity.git_remote(root) if root.is_dir() else None
    key = project_key(remote or info.remote, info.root_commit)
    if key is None and root.is_dir():
        key = project_key(None, projects.root_commit(root))
    return key


class Offer(NamedTuple):
    """What the store offers the repository this round."""

    files: dict[str, bytes]  # repository path -> file content
    held: frozenset[str]  # paths kept out of the repository (refused or unreadable)
    blocked: tuple[str, ...]  # entries the secret gate refused, by redacted name
    absent: frozenset[str] = frozenset()  # keys whose tier directory is missing altogether


def offer(store: Store, keyed: Keyed, shared: Mapping[str, str] | None = None) -> Offer:
    """Every entry file of every keyed tier, through the secret gate. A file the store
    cannot parse is held back (`coffer doctor` reports it); one holding a secret is held
    back and named, and blocks the push. A file still as ``shared`` (path -> blob id: what
    the store and the repository agreed on last round) passed the gate then and is in the
    remote already: it is not scanned again, so a round costs what changed."""
    shared = shared or {}
    files: dict[str, bytes] = {}
    held: set[str] = set()
    blocked: list[str] = []
    absent: set[str] = set()
    for key, tier in keyed.tiers.items():
        if not tier.dir.is_dir():
            # A missing directory is no decision to delete every entry it held everywhere:
            # its files are not offered, so the pull puts them back.
            absent.add(key)
            continue
        good = {e.filename for e in store.scan(tier).entries}
        for name in sorted(os.listdir(tier.dir)):
            if not tree.entry_file_ok(name):
                continue
            path = tree.prefix(key) + name
            data = _regular_file(tier, name) if name in good else None
            if data is None:
                held.add(path)
                continue
            if shared.get(path) == tree.blob_id(data):
                files[path] = data
                continue
            text = data.decode("utf-8", "surrogateescape")
            if find_secrets(text) or find_secrets(name):
                held.add(path)
                blocked.append(f"{tier.label}: {redact(name.removesuffix('.md'))}")
                continue
            files[path] = data
    return Offer(files, frozenset(held), tuple(blocked), frozenset(absent))


def _regular_file(tier: Tier, name: str) -> bytes | None:
    path = tier.dir / name
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > tree.MAX_FILE:
            return None
        return fsutil.read_bytes_or_none(path)
    except OSError:
        return None


def check_incoming(path: str, item: tree.Item, data: bytes | None) -> str | None:
    """Why a pulled file may not enter the store, or None. Pulled files are untrusted input
    (docs/adr/0018): a plain file, a safe name, within the size cap, a parseable entry,
    no secret (the content checks: :func:`coffer.store.incoming.entry_problem`)."""
    if tree.split(path) is None:
        return "not a path an entry may have"
    if item.mode != tree.BLOB_MODE:
        return "not a plain file (a link or an executable)"
    if item.size > tree.MAX_FILE:
        return f"{too_large(item.size)}; skipped here, kept in the remote"
    return entry_problem(path.rpartition("/")[2], data, where=path)


class Write(NamedTuple):
    name: str
    data: bytes | None  # None: remove the file (into the tier's trash)
    expect: bytes | None  # what the round read there; a file that changed since is skipped


def write_entries(store: Store, tier: Tier, writes: Sequence[Write]) -> int:
    """Put the merged versions into ``tier`` under its lock; how many were written. A file
    that changed since the round read it is left for the next round. Each new file is
    written in full and flushed to disk before it replaces the old one (several at once:
    a pull of a thousand entries is a thousand flushes), the directory flushed once."""
    fsutil.ensure_dir(tier.dir)
    done = 0
    with store.lock(tier):
        kept = store.kept(tier)  # what changed here first, then what the pull changes
        ready: list[tuple[Write, Path]] = []
        for w in writes:
            target = fsutil.safe_child(tier.dir, w.name)
            if target.is_symlink() or _current(target) != w.expect:
                continue
            if w.data is None:
                if w.expect is not None:
                    trash.move(tier, w.name, source="sync")
                    done += 1
            else:
                ready.append((w, target))
        with ThreadPoolExecutor(max_workers=8) as pool:
            tmps = list(pool.map(lambda wt: _flushed_tmp(tier.dir, wt[0].data or b""), ready))
        for (_w, target), tmp in zip(ready, tmps, strict=True):
            platform.replace(tmp, target)
            done += 1
        if ready:
            fsync_dir(tier.dir)
            _known(tier, [(w.name, w.data or b"") for w, _ in ready])
        if done:
            kept.check()  # a pulled rewrite or deletion keeps the version it replaced
    return done


def _known(tier: Tier, written: Sequence[tuple[str, bytes]]) -> None:
    """Pulled entries without provenance (from a machine that predates it) are coffer's
    writes, not a linked agent's: they stay ``unknown`` (docs/adr/0051)."""
    from coffer.store import agent_writes
    from coffer.store.entry import EntryParseError, parse

    bare = []
    for name, data in written:
        if b"origin:" in data:
            continue
        try:
            bare.append(parse(data.decode("utf-8"), name))
        except (UnicodeDecodeError, EntryParseError):
            continue
    if bare:
        agent_writes.known(tier.base, bare)


def _current(path: Path) -> bytes | None:
    return fsutil.read_bytes_or_none(path) if path.is_file() else None


def _flushed_tmp(directory: Path, data: bytes) -> Path:
    # coffer's own temp-file name: fsutil's sweeps clear what a killed round left behind,
    # and the scan and the offer skip such files
    return Path(write_tmp(directory, data))
