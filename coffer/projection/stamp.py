"""The no-op's stamp, written after a clean ``coffer project``: what could change the
projection, signed so the next session start can tell that nothing did.

The stamp holds the values of the environment variables the adapters read and an ``lstat``
signature of every path whose change could change the projection (targets, adapter inputs,
the tiers and their entries, coffer's settings and journal, the import path where plugins
get installed). coffer.projection.fastpath reads it back with nothing but ``os`` at every
session start; this side runs after the full path, so it takes the values the run read
rather than reading them again (docs/adr/0004).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from coffer import __version__
from coffer.adapter.deferred import presence
from coffer.base import fsutil
from coffer.base.report import Report
from coffer.projection.fastpath import (
    ABSENT,
    AGENT_RE,
    MAGIC,
    MAX_SIGNED_ENTRIES,
    clean,
    digest,
    signature,
    stamp_path,
)
from coffer.store.freshness import anchored_paths, next_review

if TYPE_CHECKING:
    from coffer.adapter import Adapter, Context
    from coffer.projection.engine import Engine
    from coffer.store import Here, Tier


def _team(root: Path | None) -> set[str]:
    """The team tier (docs/adr/0036): one stat. A file added, removed or replaced (as `git
    pull` and `coffer team` do) changes the directory; an in-place hand edit is picked up
    by the next full run."""
    return set() if root is None else {os.path.join(root, ".coffer", "memory")}


def _tiers(engine: Engine, root: Path | None) -> list[Tier]:
    """The global tier and the project's, if it has one: as the run read them, else now."""
    read = engine.scanned.get(root)
    if read is not None:
        return [tier for tier, _ in read]
    tiers = [engine.store.global_tier(), engine.store.tier_at(root) if root is not None else None]
    return [tier for tier in tiers if tier is not None]


def _paths(engine: Engine, root: Path | None) -> tuple[set[str], set[str]]:
    """The environment variables and paths whose change could change the projection."""
    store = engine.store
    env = {"COFFER_HOME", "HOME", "XDG_DATA_HOME", "PATH"}
    paths: set[str] = {str(store.root / n) for n in ("projects.json", "config.json", "journal")}
    paths |= {p for p in sys.path if p and os.path.isdir(p)}
    paths |= _team(root)
    for tier in _tiers(engine, root):
        paths |= {str(tier.dir), str(tier.dir / "MEMORY.md")}
        # How often each entry was recalled orders what agents load (docs/adr/0055).
        paths.add(str(tier.base / "recalls.json"))
        names = os.listdir(tier.dir) if tier.dir.is_dir() else []
        if len(names) <= MAX_SIGNED_ENTRIES:
            paths |= {str(tier.dir / n) for n in names}
    more_env, more_paths = _adapter_paths(engine, root)
    env |= more_env
    paths |= more_paths
    if engine.handoffs is not None and root is not None:
        # Vault handoffs shown in blocks: a new handoff file changes only its kind
        # directory, and one retired by hand (status edited, docs/vault-format.md §1.1) only its own
        # file, so both are signed, for the project and team scopes (docs/adr/0011).
        env.add("ECC_MEMORY_PROJECT_ROOT")
        vault = root / ".ecc" / "memory"
        paths |= {str(root / ".ecc"), str(vault)}
        if not engine.environ.get("ECC_MEMORY_PROJECT_ROOT") and not vault.is_dir():
            # No vault (the handoff source's own test): the two signatures above change
            # when one is made, and the vault package (~30 ms of imports) is not loaded.
            return env, paths
        try:
            from coffer.vault.handoffs import watched_paths

            paths |= watched_paths(str(root), engine.environ, MAX_SIGNED_ENTRIES)
        except Exception:
            # What would change the list cannot be named (e.g. an invalid override): no
            # stamp, so every run takes the full path and renders the block afresh.
            raise _Unsignable from None
    return env, paths


def _adapter_paths(engine: Engine, root: Path | None) -> tuple[set[str], set[str]]:
    """What the adapters read: the targets and inputs of those projected for, and the
    directory each other agent's global file would appear in (it being installed later)."""
    ctx = engine.context(root)
    env: set[str] = set()
    paths: set[str] = set()
    # What the run just projected for, and the targets it planned (detecting all the
    # agents again costs as much again).
    planned = engine.projected.get(root)
    if planned is None:
        planned = {n: a.targets(ctx) for n, a in engine.enabled(ctx, Report()).items()}
    for name, adapter in engine.loaded.adapters.items():
        if name not in planned:
            paths |= _installed_later(adapter, ctx)
            continue
        paths |= {str(t.path) for t in planned[name]}
        env_names, files = adapter.inputs(ctx)
        env |= set(env_names)
        paths |= {str(f) for f in files}
    return env, paths


def _installed_later(adapter: Adapter, ctx: Context) -> set[str]:
    """What changes when an agent not projected for is installed: for a spec's ``detect``
    the paths it looks at (without importing a deferred adapter's module), otherwise the
    directory its global file would appear in."""
    found = presence(adapter)
    if found is not None:
        return {str(p) for p in found.watched(ctx)}
    return {str(t.path.parent) for t in adapter.targets(ctx) if t.tier == "global"}


def _freshness(engine: Engine, root: Path | None) -> tuple[set[str], str | None]:
    """The files the project's entries are anchored to (an edit to one can make an entry
    stale, which the blocks show), and the first review date still to come: of the entries
    the run read (what its blocks show), scanned again only when it read none."""
    scans = engine.scanned.get(root)
    if scans is None:
        scans = [(t, engine.store.scan(t).entries) for t in _tiers(engine, root)]
    paths = {p for t, entries in scans for p in anchored_paths(entries, t.root)}
    return paths, next_review(e for _, entries in scans for e in entries)


class _Unsignable(Exception):
    """The projection's inputs cannot all be signed; record no stamp."""


def record(engine: Engine, here: Here) -> None:
    """Write the stamp for the project at ``here`` (after a clean run)."""
    # Keyed by where `unchanged` will look: the git-or-directory root of the path, which
    # for the home directory (global tier only) is not a project root.
    key_root = here.key
    root = here.project
    try:
        env, paths = _paths(engine, root)
    except _Unsignable:
        with contextlib.suppress(OSError):
            os.unlink(stamp_path(str(engine.store.root), key_root))
        return
    lines = [MAGIC, f"version\t{__version__}", f"root\t{key_root}"]
    if not clean(key_root):
        return
    for name in sorted(env):
        value = engine.environ.get(name, ABSENT)
        if not clean(value):
            return
        lines.append(f"env\t{name}\t{value}")
    anchored, until = _freshness(engine, root)
    lines += [f"file\t{signature(p)}\t{p}" for p in _sorted_clean(paths | anchored)]
    if until is not None:
        lines.append(f"until\t{until}\t")
    stamp = stamp_path(str(engine.store.root), key_root)
    fsutil.ensure_dir(engine.store.root / "state")
    fsutil.write_if_changed(
        Path(stamp), ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    )


def record_output(engine: Engine, here: Here, agent: str, output: str, template: str) -> None:
    """Keep what `coffer project --for AGENT` prints again on a no-op, for the current stamp:
    ``output`` when no session id is given, else ``template`` with the id put in."""
    if not AGENT_RE.fullmatch(agent):
        return
    stamp = stamp_path(str(engine.store.root), here.key)
    try:
        with open(stamp, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        return
    data = f"{digest(text)}\n{len(output)}\n{output}{template}".encode("utf-8", "surrogateescape")
    fsutil.write_if_changed(Path(f"{stamp}.for-{agent}"), data)


def _sorted_clean(paths: Iterable[str]) -> list[str]:
    return sorted(p for p in paths if clean(p))
