"""The store's side of a round: which entry files this machine offers, and writing what
the merge decided back into the tiers (docs/adr/0034)."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import NamedTuple

from coffer.base import fsutil
from coffer.secrets import find_secrets, redact
from coffer.store import projects
from coffer.store.entry import EntryParseError, parse
from coffer.store.store import Store, Tier
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
        key = links.get(info.id) or project_key(info.remote, info.root_commit)
        tier = Tier("project", info, store.root / "projects" / info.id)
        if key is None or not valid_key(key):
            unkeyed.append(info.label)
        elif key in tiers:
            doubles.append(info.label)
        else:
            tiers[key] = tier
    return Keyed(tiers, tuple(unkeyed), tuple(doubles))


class Offer(NamedTuple):
    """What the store offers the repository this round."""

    files: dict[str, bytes]  # repository path -> file content
    held: frozenset[str]  # paths kept out of the repository (refused or unreadable)
    blocked: tuple[str, ...]  # entries the secret gate refused, by redacted name


def offer(store: Store, keyed: Keyed) -> Offer:
    """Every entry file of every keyed tier, through the secret gate. A file the store
    cannot parse is held back (`coffer doctor` reports it); one holding a secret is held
    back and named, and blocks the push."""
    files: dict[str, bytes] = {}
    held: set[str] = set()
    blocked: list[str] = []
    for key, tier in keyed.tiers.items():
        if not tier.dir.is_dir():
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
            text = data.decode("utf-8", "surrogateescape")
            if find_secrets(text) or find_secrets(name):
                held.add(path)
                blocked.append(f"{tier.label}: {redact(name.removesuffix('.md'))}")
                continue
            files[path] = data
    return Offer(files, frozenset(held), tuple(blocked))


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
    no secret."""
    if tree.split(path) is None:
        return "not a path an entry may have"
    if item.mode != tree.BLOB_MODE:
        return "not a plain file (a link or an executable)"
    if item.size > tree.MAX_FILE or data is None or len(data) > tree.MAX_FILE:
        return f"larger than {tree.MAX_FILE} bytes"
    try:
        text = data.decode("utf-8")
        parse(text, path.rpartition("/")[2])
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except EntryParseError as exc:
        return f"not an entry: {exc}"
    if find_secrets(text) or find_secrets(path):
        return "looks like it holds a secret"
    return None


def write_entry(
    store: Store, tier: Tier, name: str, data: bytes | None, expect: bytes | None
) -> bool:
    """Put the merged version of ``name`` into ``tier`` (None: remove it, into the trash).
    Skipped, False, when the file changed since the round read it: the next round sees it."""
    fsutil.ensure_dir(tier.dir)
    with store.lock(tier):
        target = fsutil.safe_child(tier.dir, name)
        current = fsutil.read_bytes_or_none(target) if target.is_file() else None
        if current != expect or target.is_symlink():
            return False
        if data is None:
            if current is not None:
                _to_trash(tier, name)
            return True
        fsutil.atomic_write_bytes(target, data)
    return True


def _to_trash(tier: Tier, name: str) -> None:
    trash = tier.base / "trash"
    fsutil.ensure_dir(trash)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = trash / f"{stamp}-sync-{name}"
    n = 1
    while target.exists():
        target = trash / f"{stamp}-sync-{n}-{name}"
        n += 1
    fsutil.rename(tier.dir / name, target)
