"""The conformance suite every adapter must pass, shipped for third-party adapter authors.

Subclass :class:`AdapterContract`, set ``adapter`` to your module and, if the agent needs
files to be detected, override :meth:`prepare`::

    from coffer.testing import AdapterContract
    import my_adapter

    class TestMyAdapter(AdapterContract):
        adapter = my_adapter

It checks the contract (protocol, optional members, at most one block and one NONE per tier,
each linked directory once), that detection and planning are read-only, that
``coffer project`` is idempotent (same bytes, same mtimes, no write on a re-run), that only
the adapter's own targets (plus its native-memory config) are written, that undo restores
the previous state exactly, and that a ``NONE`` adapter writes nothing.
Requires pytest (a test dependency, not a runtime one).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from coffer.adapter import TIERS, Adapter, Context, Mode, modes, registry
from coffer.projection.engine import Engine
from coffer.store import Store, settings

if TYPE_CHECKING:
    from typing import Any, ClassVar

Snapshot = dict[str, tuple[str, bytes, int]]


def snapshot(root: Path, skip: Path) -> Snapshot:
    """Every path under ``root`` (except ``skip``): kind, content or link target, mtime."""
    out: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == skip or skip in here.parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = here / name
            st = os.lstat(p)
            rel = str(p.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p).encode(), 0)
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", b"", 0)
            else:
                out[rel] = ("file", p.read_bytes(), st.st_mtime_ns)
    return out


class AdapterContract:
    """Base class of an adapter's test class; see the module docstring."""

    adapter: ClassVar[Any]

    def prepare(self, ctx: Context) -> None:
        """Make the agent look installed in the fake home (override as needed)."""

    @pytest.fixture
    def ctx(self, tmp_path: Path) -> Context:
        home = tmp_path / "home"
        project = tmp_path / "work" / "project"
        (project / ".git").mkdir(parents=True)
        home.mkdir(exist_ok=True)
        environ = {
            "HOME": str(home),
            "PATH": "",
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            # coffer's undo ledger (docs/adr/0021) is coffer's own, not the adapter's: keep
            # it inside the store, which the snapshots leave out.
            "XDG_STATE_HOME": str(tmp_path / "store" / ".state"),
        }
        context = Context(home=home, environ=environ, store=tmp_path / "store", project=project)
        self.prepare(context)
        return context

    def engine(self, ctx: Context) -> Engine:
        name = self.adapter.NAME
        store = Store(ctx.store, ctx.home)
        s = settings.Settings(adapters={name: True})
        settings.save(ctx.store, s)
        loaded = registry.Loaded({name: self.adapter}, (), {name: "test"})
        return Engine(store, ctx.environ, loaded)

    def _seed(self, engine: Engine, ctx: Context) -> None:
        assert ctx.project is not None
        tier = engine.store.project_tier(engine.store.here(ctx.project), create=True)
        assert tier is not None
        engine.store.remember(tier, "We deploy with make release.", name="deploy")
        engine.store.remember(
            engine.store.global_tier(create=True), "Prefer tabs.", name="tabs", type="feedback"
        )

    def _outside(self, ctx: Context) -> Snapshot:
        return snapshot(ctx.store.parent, ctx.store)

    def test_satisfies_protocol(self) -> None:
        assert isinstance(self.adapter, Adapter)
        registry.features(self.adapter)  # raises registry.ContractError saying what is wrong

    def test_one_target_per_tier(self, ctx: Context) -> None:
        # A tier has at most one block and at most one NONE; beside them, the agent's memory
        # directories linked to the tier (SYMLINK), each path once.
        targets = list(self.adapter.targets(ctx))
        assert {t.tier for t in targets} <= set(TIERS), targets
        single = [(t.tier, t.mode) for t in targets if t.mode is not Mode.SYMLINK]
        assert len(single) == len(set(single)), targets
        links = [t.path for t in targets if t.mode is Mode.SYMLINK]
        assert len(links) == len(set(links)), targets
        assert modes(self.adapter, ctx.store)  # the modes `coffer adapter list` shows

    def test_no_project_means_no_project_target(self, ctx: Context) -> None:
        bare = Context(ctx.home, ctx.environ, ctx.store, None)
        assert all(t.tier == "global" for t in self.adapter.targets(bare))

    def test_planning_is_read_only(self, ctx: Context) -> None:
        before = self._outside(ctx)
        self.adapter.detect(ctx)
        self.adapter.targets(ctx)
        self.adapter.inputs(ctx)
        native = self.adapter.native_memory(ctx)
        if native is not None:
            data = native.config.read_bytes() if native.config.exists() else None
            native.enabled(data)
        assert self._outside(ctx) == before

    def test_targets_stay_in_the_agent_and_project_area(self, ctx: Context) -> None:
        assert ctx.project is not None
        for target in self.adapter.targets(ctx):
            path = target.path
            # Targets come from the context (home, agent env vars, project), never elsewhere.
            assert ctx.home in path.parents or ctx.project in path.parents, path

    def test_project_is_idempotent(self, ctx: Context) -> None:
        engine = self.engine(ctx)
        self._seed(engine, ctx)
        assert ctx.project is not None
        first = engine.project(ctx.project)
        assert first.ok, first.problems
        after_first = self._outside(ctx)
        second = self.engine(ctx).project(ctx.project)
        assert second.ok, second.problems
        assert second.changes == []
        assert self._outside(ctx) == after_first  # same bytes, same mtimes

    def test_writes_only_its_own_paths(self, ctx: Context) -> None:
        engine = self.engine(ctx)
        self._seed(engine, ctx)
        before = self._outside(ctx)
        assert ctx.project is not None
        engine.project(ctx.project)
        after = self._outside(ctx)
        allowed = [t.path for t in self.adapter.targets(ctx) if t.mode is not Mode.NONE]
        native = self.adapter.native_memory(ctx)
        if native is not None:
            allowed.append(native.config)
        root = ctx.store.parent
        for rel in set(before) ^ set(after) | {k for k in before if before.get(k) != after.get(k)}:
            path = root / rel
            ok = any(path == a or a in path.parents or path in a.parents for a in allowed)
            assert ok, f"{self.adapter.NAME} wrote {path}, which is not one of its targets"

    def test_undo_restores_the_previous_state(self, ctx: Context) -> None:
        engine = self.engine(ctx)
        self._seed(engine, ctx)
        before = self._outside(ctx)
        assert ctx.project is not None
        engine.project(ctx.project)
        report = self.engine(ctx).unproject(None, all_=True)
        assert report.ok, report.problems
        after = self._outside(ctx)
        links = {
            str(t.path.relative_to(ctx.store.parent))
            for t in self.adapter.targets(ctx)
            if t.mode is Mode.SYMLINK
        }
        # A linked memory directory comes back as a real directory holding the memories
        # (the agent keeps what it knows); everything else is exactly as before.
        for rel in links:
            assert after.get(rel, ("dir",))[0] == "dir"
        strip = {k for k in after if any(k == x or k.startswith(x + "/") for x in links)}
        parents = {k for k in after if after[k][0] == "dir" and k not in before}
        assert {k: v for k, v in after.items() if k not in strip | parents} == before

    def test_none_mode_writes_nothing(self, ctx: Context) -> None:
        if any(m is not Mode.NONE for m in modes(self.adapter, ctx.store).values()):
            pytest.skip("adapter has a non-NONE mode")
        engine = self.engine(ctx)
        self._seed(engine, ctx)
        before = self._outside(ctx)
        assert ctx.project is not None
        engine.project(ctx.project)
        assert self._outside(ctx) == before
