"""One sync round: offer the store's entries, commit, fetch, merge file by file, import,
push (docs/adr/0034). :func:`coffer.sync.api.sync_once` runs it under the sync lock."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from coffer.store import Store, Tier
from coffer.sync import local, merge, tree
from coffer.sync.errors import SyncError
from coffer.sync.gitcmd import Git, lost_race, refusal, shown
from coffer.sync.state import REF, REMOTE_REF, SyncConfig, SyncState
from coffer.sync.tree import Obj


class Pulled(NamedTuple):
    written: int  # store files written or removed
    tiers: tuple[Tier, ...]  # tiers whose files changed
    refused: tuple[str, ...]  # "path: why" for pulled files kept out of the store
    synced: dict[str, str]  # the new shared state (path -> blob id)
    merged: dict[str, tree.Item]  # every file of the merge (what waits is copied from it)


def local_space(keyed: local.Keyed, path: str) -> tuple[Tier, str] | None:
    """The tier and file name ``path`` maps to on this machine, or None."""
    split = tree.split(path)
    if split is None or split[0] not in keyed.tiers:
        return None
    return keyed.tiers[split[0]], split[1]


def commit_offer(
    git: Git, keyed: local.Keyed, offer: local.Offer, state: SyncState, host: str
) -> str | None:
    """Commit what the store offers on top of the last round's commit; the commit (the
    same one when nothing changed, None when there never was any)."""
    head = git.rev(REF)
    before = tree.objs(tree.ls_tree(git, head))
    ours = dict(before)
    for path in before:
        gone = path not in offer.files and path not in offer.held
        # Only a file the store and the repository agreed on last round was deleted here;
        # one the store never had (a key first seen, a refused file) is still to import.
        split = tree.split(path) if gone and path in state.synced else None
        if split is not None and split[0] in keyed.tiers and split[0] not in offer.absent:
            del ours[path]
    new = {}
    for path, data in offer.files.items():
        sha = tree.blob_id(data)
        if before.get(path) != (tree.BLOB_MODE, sha):
            new[sha] = data
        ours[path] = (tree.BLOB_MODE, sha)
    if ours == before and head is not None:
        return head
    if not ours and head is None:
        return None
    tree.write_blobs(git, new.values())
    changed = len(set(ours.items()) ^ set(before.items()))
    sha = tree.commit(
        git, tree.write_tree(git, ours), [head] if head else [], f"{host}: {changed} entries"
    )
    git.run("update-ref", REF, sha)
    return sha


def advance(git: Git, ours: str | None, merged: str | None) -> None:
    if merged is not None and merged != ours:
        git.run("update-ref", REF, merged)


def is_ancestor(git: Git, a: str, b: str) -> bool:
    return git.run("merge-base", "--is-ancestor", a, b, check=False).returncode == 0


def merged_commit(
    git: Git, ours: str | None, theirs: str | None, host: str
) -> tuple[str | None, tuple[str, ...]]:
    """The round's result and the conflict copies it made. A fast-forward when one side
    has all of the other; else a commit with both parents whose tree :func:`merge.decide`
    chose file by file. The branch is not moved: :func:`advance` does that once the store
    has the result, so a round killed while importing leaves the branch at our commit, and
    the next round sees the files it did import as changes that agree with theirs."""
    if theirs is None or ours == theirs or (ours and is_ancestor(git, theirs, ours)):
        return ours, ()
    if ours is None or is_ancestor(git, ours, theirs):
        return theirs, ()
    found = git.run("merge-base", ours, theirs, check=False).stdout.decode().strip()
    base = tree.objs(tree.ls_tree(git, found or None))
    their_items = tree.ls_tree(git, theirs)
    decision = merge.decide(base, tree.objs(tree.ls_tree(git, ours)), tree.objs(their_items))
    merged = dict(decision.merged)
    copies = _conflict_copies(git, theirs, decision.conflicts, merged, their_items)
    sha = tree.commit(
        git,
        tree.write_tree(git, merged),
        [ours, theirs],
        f"{host}: merge, {len(copies)} conflict copies",
    )
    return sha, tuple(copies)


def _conflict_copies(
    git: Git,
    theirs: str,
    conflicts: tuple[tuple[str, Obj], ...],
    merged: dict[str, Obj],
    their_items: dict[str, tree.Item],
) -> list[str]:
    def readable(path: str) -> bool:  # what may be read at all: a plain file within the cap
        item = their_items[path]
        return item.mode == tree.BLOB_MODE and 0 <= item.size <= tree.MAX_FILE

    blobs = tree.cat_blobs(git, [obj[1] for path, obj in conflicts if readable(path)])
    now = dt.datetime.now(dt.UTC)
    made: list[str] = []
    new: dict[str, bytes] = {}
    for path, obj in conflicts:
        host = _author_host(git, theirs, path)
        name = merge.copy_name(path, host, now.strftime("%Y%m%d"), set(merged))
        made.append(name)
        if not readable(path):
            merged[name] = obj  # kept as it came; the import refuses it, by name
            continue
        data = blobs.get(obj[1], b"")
        copy = merge.conflict_copy(
            data, path.rpartition("/")[2], host, now.isoformat(timespec="seconds")
        )
        # Their version is kept even when it is no entry: the import then refuses it, by name.
        content = copy if copy is not None else data
        sha = tree.blob_id(content)
        new[sha] = content
        merged[name] = (tree.BLOB_MODE, sha)
    tree.write_blobs(git, new.values())
    return made


def _author_host(git: Git, theirs: str, path: str) -> str:
    """The machine that last changed ``path`` on their side, for the conflict copy's name
    (every sync commit's author name carries its machine's name in parentheses)."""
    done = git.run("log", "-1", "--format=%an", theirs, "--", path, check=False)
    name = done.stdout.decode("utf-8", "replace").strip()
    host = name.removeprefix("coffer (").removesuffix(")") if name.startswith("coffer (") else ""
    from coffer.store.entry import slugify

    return slugify(host, limit=32) or "other"


def import_merged(
    git: Git, store: Store, keyed: local.Keyed, offer: local.Offer, merged: str | None
) -> Pulled:
    """Write into the store every file the merge gave a version other than the store's,
    after the untrusted-input checks; remove the ones it deleted."""
    items = tree.ls_tree(git, merged)
    offered = {p: tree.blob_id(d) for p, d in offer.files.items()}
    changes = []
    refused: list[str] = []
    refused_paths: set[str] = set()
    for path in sorted(set(items) | set(offered)):
        place = local_space(keyed, path)
        if place is None and _in_a_local_tier(keyed, path):
            refused.append(f"{shown_path(path)}: not a name an entry file may have")
            refused_paths.add(path)
        if place is None or path in offer.held:
            continue
        item = items.get(path)
        if (item.sha if item else None) != offered.get(path):
            changes.append((path, place, item))
    blobs = tree.cat_blobs(
        git,
        [
            i.sha
            for _, _, i in changes
            if i is not None and i.mode == tree.BLOB_MODE and 0 <= i.size <= tree.MAX_FILE
        ],
    )
    writes: dict[str, tuple[Tier, list[local.Write]]] = {}
    for path, (tier, name), item in changes:
        data = blobs.get(item.sha) if item is not None else None
        if item is not None:
            why = local.check_incoming(path, item, data)
            if why is not None:
                refused.append(f"{shown_path(path)}: {why}")
                refused_paths.add(path)
                continue
        batch = writes.setdefault(str(tier.base), (tier, []))[1]
        batch.append(local.Write(name, data, offer.files.get(path)))
    written = 0
    touched = []
    for tier, batch in writes.values():
        n = local.write_entries(store, tier, batch)
        written += n
        if n:
            touched.append(tier)
    synced = {
        p: i.sha for p, i in items.items() if p not in refused_paths and local_space(keyed, p)
    }
    return Pulled(written, tuple(touched), tuple(refused), synced, items)


def _in_a_local_tier(keyed: local.Keyed, path: str) -> bool:
    head = path.rpartition("/")[0]
    return any(head == tree.prefix(key).rstrip("/") for key in keyed.tiers)


def shown_path(path: str) -> str:
    """A pulled path as a message may show it: no token, no control character."""
    from coffer.secrets import redact

    text = redact(path)
    return text if text.isprintable() else ascii(text)[1:-1]


def changed_between(git: Git, a: str | None, b: str | None) -> int:
    """How many files differ between two commits (what a push gives the remote)."""
    if a == b:
        return 0
    before, after = tree.objs(tree.ls_tree(git, a)), tree.objs(tree.ls_tree(git, b))
    return len({p for p in set(before) | set(after) if before.get(p) != after.get(p)})


def fetch(git: Git, config: SyncConfig) -> str | None:
    git.remote_call(
        "fetch",
        "--quiet",
        "--no-tags",
        "--prune",
        "--",
        config.remote,
        f"+refs/heads/*:{REMOTE_REF.rpartition('/')[0]}/*",
        remote=config.remote,
    )
    return git.rev(REMOTE_REF)


def push(git: Git, config: SyncConfig, sha: str) -> bool:
    """Push ``sha`` as the remote's branch; False when the remote moved meanwhile."""
    done = git.remote_call(
        "push", "--quiet", "--", config.remote, f"{sha}:{REF}", remote=config.remote
    )
    if done.returncode != 0:
        if lost_race(done.stderr.decode("utf-8", "replace")):
            return False  # another machine pushed first: the caller fetches and merges again
        raise SyncError(
            f"{shown(config.remote)} refused the push: {refusal(done.stderr)}; nothing is "
            "lost (the merge is committed here), fix the remote and run `coffer sync` again"
        )
    git.run("update-ref", REMOTE_REF, sha)
    return True
