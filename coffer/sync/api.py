"""What the CLI and the watcher call: one sync round, and whether sync is set up
(docs/adr/0034; the interface the watcher's background sync was built against)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from coffer.base.report import plural
from coffer.sync import gitlocks, local, rounds, state, waiting
from coffer.sync.errors import PushRefused, RemoteUnreachable, SyncError
from coffer.sync.gitcmd import Git
from coffer.sync.report import SyncReport

if TYPE_CHECKING:
    from coffer.app import App

__all__ = ["PushRefused", "RemoteUnreachable", "SyncReport", "configured", "sync_once"]

LOCK_WAIT = 60.0
MAX_ATTEMPTS = 3  # a push that lost a race fetches, merges and tries again


def configured(app: App) -> bool:
    """True once `coffer sync init` ran for this store: one file-existence check."""
    return state.configured(app.store_root)


@contextlib.contextmanager
def sync_lock(paths: state.SyncPaths) -> Iterator[None]:
    from coffer.base import fsutil
    from coffer.store import locking

    fsutil.ensure_dir(paths.root)
    try:
        with locking.exclusive(paths.lock, LOCK_WAIT):
            yield
    except locking.Busy:
        raise SyncError("another coffer sync has run for a minute; try again") from None


def open_repo(app: App, paths: state.SyncPaths, config: state.SyncConfig) -> Git:
    git = Git(paths.repo, app.environ, config.host)
    if not (paths.repo / "HEAD").is_file():
        from coffer.base import fsutil

        fsutil.ensure_dir(paths.repo)
        git.run("init", "--quiet", "--bare", "--template=")  # no hooks or templates copied
    return git


def sync_once(app: App, *, push: bool = True, allow_deletions: bool = False) -> SyncReport:
    """One full round (see the module docstring of coffer.sync.rounds). Raises
    RemoteUnreachable when the remote cannot be reached (the local commit is kept) and
    PushRefused when the secret gate held entries back (nothing is pushed)."""
    paths = state.SyncPaths.of(app.store_root)
    config = state.load_config(paths)
    with sync_lock(paths):
        # A round killed mid-way may have left git's locks: with sync's lock held, one whose
        # git is gone is stale, and would stop every later round (docs/adr/0043).
        unlocked = gitlocks.recover(paths.repo)
        git = open_repo(app, paths, config)
        git.start_round()  # fetches and pushes of every attempt share one budget
        for _attempt in range(MAX_ATTEMPTS):
            report, done = _attempt_round(app, git, paths, config, (push, allow_deletions))
            if done:
                break
        else:
            # Another machine pushed before each of our pushes: all is merged and committed
            # here, and the next round pushes it.
            summary = f"{report.summary}; the remote kept moving, run `coffer sync` again"
            report = report._replace(summary=summary)
    if unlocked:
        names = ", ".join(unlocked)
        report = report._replace(
            summary=f"{report.summary}; removed git's stale {names} (left by a killed round)"
        )
    if report.blocked:
        raise PushRefused(
            f"push refused: {plural(len(report.blocked), 'entry', 'entries')} "
            f"{'hold' if len(report.blocked) > 1 else 'holds'} what looks like a secret "
            f"({'; '.join(report.blocked)}); remove it and run `coffer sync` again — "
            "nothing left this machine",
            report,
        )
    return report


def _attempt_round(
    app: App, git: Git, paths: state.SyncPaths, config: state.SyncConfig, how: tuple[bool, bool]
) -> tuple[SyncReport, bool]:
    from coffer.sync import deletions

    (push, allow_deletions), store = how, app.store
    keyed = local.keyed_tiers(store, config.links)
    before = state.load_state(paths)
    offer = plain = local.offer(store, keyed, before.synced)
    held: tuple[str, ...] = ()
    if not allow_deletions:  # a burst of deletions waits for the user (docs/adr/0052)
        offer, held = deletions.hold_bursts(offer, keyed, before.synced)
    ours = rounds.commit_offer(git, keyed, offer, before, config.host)
    # The offer is committed: from here on an unreachable remote loses nothing.
    state.save_state(paths, before._replace(synced=_shared(offer)))
    theirs = rounds.fetch(git, config)
    merged, copies = rounds.merged_commit(git, ours, theirs, config.host)
    pulled = rounds.import_merged(git, store, keyed, offer, merged)
    rounds.advance(git, ours, merged)
    # Keys no project here has: copied where a first registration takes them, no git needed.
    kept = waiting.keep(git, app.store_root, keyed, pulled.merged)
    pulled = pulled._replace(refused=(*pulled.refused, *kept))
    _refresh(app, pulled)
    pushed, done = 0, True
    if push and not offer.blocked and merged is not None and merged != theirs:
        pushed = rounds.changed_between(git, theirs, merged)
        done = rounds.push(git, config, merged)
    report = _report(pulled, pushed if done else 0, copies, plain, keyed, push)
    if held:
        summary = "; ".join((report.summary, *held))
        report = report._replace(summary=summary, held_deletions=held)
    stamp = _now()
    state.save_state(paths, state.SyncState(pulled.synced, stamp, report.summary))
    return report, done


def _shared(offer: local.Offer) -> dict[str, str]:
    """What the store and the repository share once the offer is committed: every file
    offered (the commit holds exactly those bytes), nothing held back or never imported."""
    from coffer.sync import tree

    return {path: tree.blob_id(data) for path, data in offer.files.items()}


def _refresh(app: App, pulled: rounds.Pulled) -> None:
    """Indexes and blocks after a pull: every tier whose files changed."""
    if not pulled.tiers:
        return
    writer = app.writer()
    for tier in pulled.tiers:
        app.store.regenerate_index(tier)
        writer.refresh(tier)


def _report(
    pulled: rounds.Pulled,
    pushed: int,
    copies: tuple[str, ...],
    offer: local.Offer,
    keyed: local.Keyed,
    push: bool,
) -> SyncReport:
    parts = [f"pulled {plural(pulled.written, 'file')}"]
    parts.append(f"pushed {plural(pushed, 'file')}" if push else "not pushed (--no-push)")
    if copies:
        parts.append(
            f"{plural(len(copies), 'conflict copy', 'conflict copies')} kept (see `coffer doctor`)"
        )
    if pulled.refused:
        parts.append(f"{plural(len(pulled.refused), 'pulled file')} refused")
    if offer.blocked:
        parts.append(f"{plural(len(offer.blocked), 'entry', 'entries')} blocked by the secret gate")
    unusable = len(offer.held) - len(offer.blocked)  # too large or unparsable: not entries
    if unusable > 0:
        parts.append(f"{plural(unusable, 'file')} kept here, not entries (see `coffer doctor`)")
    if keyed.unkeyed:
        parts.append(f"{plural(len(keyed.unkeyed), 'project')} kept local (no remote)")
    return SyncReport(
        pulled.written,
        pushed,
        copies,
        offer.blocked,
        "synced: " + ", ".join(parts),
        pulled.refused,
        keyed.unkeyed,
    )


def _now() -> str:
    from coffer.store.projects import now_iso

    return now_iso()
