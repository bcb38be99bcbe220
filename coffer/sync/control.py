"""Setting sync up and looking at it: `coffer sync init`, `link` and `status`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base import platform
from coffer.base.errors import InvalidInputError
from coffer.store.entry import slugify
from coffer.sync import keys, local, merge, state, tree
from coffer.sync.api import open_repo, sync_lock
from coffer.sync.gitcmd import shown

if TYPE_CHECKING:
    from coffer.app import App


def _remote_of(remote: str) -> str:
    text = remote.strip()
    if not text or text.startswith("-") or any(c in text for c in "\0\n\r"):
        raise InvalidInputError(f"{remote!r} is not a git remote URL or path")
    if "://" in text or keys.normalise_remote(text) is not None:
        return text
    return str(Path(text).expanduser().absolute())  # a path: the same on every later run


NOT_NOW = (
    "sync is set up all the same: `coffer sync` tries it again once it answers "
    "(if the address is wrong, run `coffer sync init REMOTE` again with the right one)"
)


def init(app: App, remote: str, host: str | None = None) -> state.SyncConfig:
    """Name the remote (checked reachable) and this machine; keeps earlier links."""
    url = _remote_of(remote)
    paths = state.SyncPaths.of(app.store_root)
    earlier = state.load_config(paths) if state.configured(app.store_root) else None
    # A name given once stays (conflict copies and commits carry it) until another is given.
    chosen = host or (earlier.host if earlier else platform.host_name())
    name = slugify(chosen, limit=32) or "machine"
    config = state.SyncConfig(url, name, earlier.links if earlier else {})
    with sync_lock(paths):
        git = open_repo(app, paths, config)
        # Kept before the remote is asked: one that does not answer today (offline, a host
        # not up yet) is still the one `coffer sync` is to use once it does.
        state.save_config(paths, config)
        git.remote_call("ls-remote", "--heads", "--", url, remote=url, later=NOT_NOW)
    return config


def link(app: App, root: Path, key: str) -> str:
    """Sync the project at ``root`` under ``key`` (a project with no remote and no commit,
    or one whose remote differs between machines)."""
    wanted = key.strip().lower()
    if not keys.valid_key(wanted):
        raise InvalidInputError(
            f"invalid sync key {key!r}: lowercase letters, digits, '.', '_', '-' in "
            "'/'-separated parts, e.g. 'github.com/me/notes' or 'notes'"
        )
    paths = state.SyncPaths.of(app.store_root)
    config = state.load_config(paths)
    tier = app.store.tier_at(root, create=True)
    assert tier is not None  # created
    state.save_config(paths, config._replace(links={**config.links, tier.info.id: wanted}))
    return wanted


class Status(NamedTuple):
    remote: str
    host: str
    last_round: str
    last_summary: str
    synced: tuple[tuple[str, str], ...]  # (key, tier label)
    unkeyed: tuple[str, ...]
    doubles: tuple[str, ...]
    waiting: tuple[str, ...]  # keys in the repository no project here has
    unpushed: int  # commits made here the remote does not have
    conflict_copies: tuple[str, ...]


def status(app: App) -> Status:
    paths = state.SyncPaths.of(app.store_root)
    config = state.load_config(paths)
    last = state.load_state(paths)
    keyed = local.keyed_tiers(app.store, config.links)
    git = open_repo(app, paths, config)
    head = git.rev(state.REF)
    in_repo = {s[0] for p in tree.ls_tree(git, head) if (s := tree.split(p)) is not None}
    unpushed = 0
    if head is not None:
        spec = head if git.rev(state.REMOTE_REF) is None else f"{state.REMOTE_REF}..{head}"
        unpushed = int(git.text("rev-list", "--count", spec) or 0)
    copies = tuple(
        f"{tier.label}: {name}"
        for tier in keyed.tiers.values()
        if tier.dir.is_dir()
        for name in sorted(os.listdir(tier.dir))
        if merge.CONFLICT_TAG in name and name.endswith(".md")
    )
    return Status(
        shown(config.remote),
        config.host,
        last.last_round,
        last.last_summary,
        tuple((k, t.label) for k, t in keyed.tiers.items()),
        keyed.unkeyed,
        keyed.doubles,
        tuple(sorted(in_repo - set(keyed.tiers))),
        unpushed,
        copies,
    )
