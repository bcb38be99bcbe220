"""Which directories ``coffer watch`` observes: the store root (settings, project list), the
journal (a project projected after the start), every projected tier, and the vault handoff
directories of those projects. ``rescan`` brings the set up to date after any of the first
two changed; a signature of them skips the work when nothing did."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil
from coffer.base.errors import CofferError
from coffer.base.report import Problem
from coffer.projection.blocks import waiting
from coffer.store import Store, Tier
from coffer.store.paths import home_dir
from coffer.store.settings import CONFIG
from coffer.store.ulid import GLOBAL_ID
from coffer.watch.daemon import Coalescer
from coffer.watch.events import HANDOFFS, TIER
from coffer.watch.observers import Observers
from coffer.watch.reporting import Reporter

if TYPE_CHECKING:
    from coffer.projection.engine import Engine


class WatchSet:
    def __init__(
        self,
        store: Store,
        environ: Mapping[str, str],
        observers: Observers,
        reporter: Reporter,
        coalescer: Coalescer,
    ) -> None:
        self.store = store
        self.environ = environ
        self.observers = observers
        self.watches = observers.watches
        self.reporter = reporter
        self.log = reporter.log
        self.coalescer = coalescer
        self._scan_sig: object = None

    def rescan(self, engine: Engine, *, force: bool) -> None:
        """Watch the global tier and every projected project; drop the rest."""
        sig = self._signature(engine)
        for w in self.watches.values():
            # watchdog reports no event when a watched directory itself is moved away.
            w.dead = w.dead or not w.path.is_dir()
        dead = any(w.dead for w in self.watches.values())
        if sig == self._scan_sig and not force and not dead:
            return
        self._scan_sig = sig
        wanted = self._wanted(engine)
        self._watch_store_dirs(engine)
        self._drop_unwanted(wanted)
        self._add_wanted(wanted)
        self._rescan_handoffs(wanted)
        self._check_privacy(wanted)
        self.observers.status.projects = sum(
            1 for w in self.watches.values() if w.tier is not None and w.tier.scope == "project"
        )

    def _wanted(self, engine: Engine) -> dict[str, Tier]:
        """The tiers to watch, by role: the global one and every projected project's."""
        try:
            ids = {p.id for p in engine.projected_projects()} | {GLOBAL_ID}
            return {TIER + t.info.id: t for t in self.store.all_tiers() if t.info.id in ids}
        except Exception as exc:  # a corrupt journal record or registry: keep what we watch
            why = f"cannot list projected projects: {exc}"
            self.reporter.error(Problem(self.store.root, "error", why))
            self._scan_sig = None  # retry on the next change
            wanted = {r: w.tier for r, w in self.watches.items() if w.tier is not None}
            wanted.setdefault(TIER + GLOBAL_ID, self.store.global_tier())
            return wanted

    def _watch_store_dirs(self, engine: Engine) -> None:
        """The store root (settings, project list) and the journal, recreated if deleted."""
        for role, path in (("root", self.store.root), ("journal", engine.journal.dir)):
            if role not in self.watches or self.watches[role].dead:
                self.observers.remove(role)
                try:
                    fsutil.ensure_dir(path)  # deleted under us: recreated, as at the start
                except CofferError as exc:
                    self.reporter.error(Problem(path, "error", str(exc)))
                    continue
                self.observers.add(role, path)

    def _drop_unwanted(self, wanted: Mapping[str, Tier]) -> None:
        for role, w in list(self.watches.items()):
            if w.tier is not None and (role not in wanted or w.dead):
                self.observers.remove(role)
                if role not in wanted:
                    self.log.info("stopped watching %s (no longer projected)", w.tier.label)
                    self.reporter.report(role, [])

    def _add_wanted(self, wanted: Mapping[str, Tier]) -> None:
        for role, tier in wanted.items():
            if role in self.watches:
                continue
            try:
                fsutil.ensure_dir(tier.dir)  # a tier never written to still needs watching
            except CofferError as exc:
                self.reporter.error(Problem(tier.dir, "error", f"cannot watch {tier.label}: {exc}"))
                continue
            if self.observers.add(role, tier.dir, tier):
                self.log.info("watching %s: %s", tier.label, tier.dir)
                # Catch up on anything that changed while nobody was watching.
                self.coalescer.add(role, immediate=True)

    def _rescan_handoffs(self, wanted: Mapping[str, Tier]) -> None:
        """Watch the vault handoff directories of every projected project, so a handoff
        reaches the blocks that list it without waiting for the next `coffer project`.
        Only directories that exist are watched; a vault created later is picked up at the
        next rescan (journal or registry change)."""
        from coffer.vault.handoffs import project_vault

        want: dict[str, tuple[Path, Tier]] = {}
        for tier in wanted.values():
            if tier.scope != "project" or not tier.info.root:
                continue
            try:
                vault = Path(project_vault(tier.info.root, self.environ))
            except Exception as exc:  # an invalid ECC_MEMORY_PROJECT_ROOT: nothing to watch
                self.log.debug("no vault to watch for %s: %s", tier.label, exc)
                continue
            for scope in ("project", "team"):
                directory = vault / scope / "handoffs"
                if directory.is_dir() and not directory.is_symlink():
                    want[f"{HANDOFFS}{tier.info.id}:{scope}"] = (directory, tier)
        for role, w in list(self.watches.items()):
            if role.startswith(HANDOFFS) and (role not in want or w.dead):
                self.observers.remove(role)
        for role, (directory, tier) in want.items():
            if role not in self.watches and self.observers.add(role, directory, recursive=True):
                self.log.info("watching handoffs for %s: %s", tier.label, directory)

    def _check_privacy(self, wanted: Mapping[str, Tier]) -> None:
        """Record the projects macOS privacy controls keep from this process, once each."""
        from coffer.setup import service_privacy as privacy

        if not privacy.applies():
            return
        roots = [t.info.root for t in wanted.values() if t.scope == "project" and t.info.root]
        denied = privacy.denied_roots(roots, home_dir(self.environ))
        status = self.observers.status
        exe = privacy.executable()
        for root in sorted(set(denied) - set(status.denied)):
            why = privacy.grant(exe)
            self.log.warning("macOS privacy controls deny access to %s: %s", root, why)
        status.denied, status.denied_exe = denied, (exe if denied else None)

    def _signature(self, engine: Engine) -> object:
        # Cheap: a listing and two stats, so coffer's own journal updates cost no parsing.
        names: tuple[str, ...] = ()
        with contextlib.suppress(OSError):
            names = tuple(sorted(os.listdir(engine.journal.dir)))
        stats = []
        for name in ("projects.json", CONFIG, waiting.NAME):
            try:
                st = os.stat(self.store.root / name)
                stats.append((st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                stats.append((0, 0, 0))
        return names, tuple(stats)
