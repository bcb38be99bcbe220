"""The adapters of one store, as every projection operation sees them. Names no agent.

:class:`AgentSet` loads the adapters and settings, calls an adapter so that its bug is
reported against it, and collects and groups the targets of the enabled adapters once for
`coffer project`, the watcher's refresh and `coffer adapter list`. The engine
(coffer/projection/engine.py) builds on it; the audit (status) and the undo without a
journal (orphans) need only this, so neither imports the engine.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Context, Mode, Target, registry
from coffer.base.errors import JournalError, LockTimeoutError
from coffer.base.report import Problem, Report
from coffer.projection.blocks import content
from coffer.projection.hook import Deadline
from coffer.projection.journal import Journal
from coffer.store import Entry, Store, Tier, settings
from coffer.store.paths import home_dir, ledger_dir

if TYPE_CHECKING:
    from typing import TypeVar

    from coffer.adapter import Adapter
    from coffer.store.search_cache import TierScan

    T = TypeVar("T")

NO_TARGETS: Sequence[Target] = ()
HandoffSource = Callable[[Context, Sequence[str]], Sequence[content.Handoff]]
Reader = tuple[str, Target]  # an adapter's name and one of its targets


class BlockPlan(NamedTuple):
    tier_name: str
    tier: Tier | None
    title: str
    budget: int | None
    handoffs: Sequence[content.Handoff]
    agents: list[str]


def block_title(tier: Tier) -> str:
    if tier.scope == "global":
        return "Coffer memory: global (all projects)"
    return f"Coffer memory: project {tier.info.name}"


class Targets:
    """The targets of the enabled adapters: links in adapter order, blocks by file (one
    block per file, however many adapters read it)."""

    links: list[Reader]
    blocks: dict[Path, list[Reader]]

    def __init__(self) -> None:
        self.links = []
        self.blocks = defaultdict(list)


def call_adapter(name: str, report: Report, fn: Callable[[], T], default: T) -> T:
    """``fn()``; a third-party adapter's bug is reported against that adapter and skipped
    (``default`` is returned)."""
    try:
        return fn()
    except LockTimeoutError:
        raise  # another coffer process, not the adapter: the whole run waits or gives up
    except JournalError as exc:
        report.problems.append(Problem(Path(name), "damaged", str(exc)))
        return default
    except Exception as exc:
        report.problems.append(
            Problem(Path(name), "error", f"adapter {name} failed: {type(exc).__name__}: {exc}")
        )
        return default


class AgentSet:
    """The adapters, settings and journal of one store."""

    call_adapter = staticmethod(call_adapter)

    def __init__(
        self,
        store: Store,
        environ: Mapping[str, str],
        loaded: registry.Loaded | None = None,
        handoffs: HandoffSource | None = None,
    ) -> None:
        self.store = store
        self.environ = environ
        self.loaded = loaded if loaded is not None else registry.load_adapters()
        self.settings = settings.load(store.root)
        self.journal = Journal(store.root, ledger_dir(environ, store.root))
        self.handoffs = handoffs
        self.deadline: Deadline | None = None
        # The adapters each `project` run of this engine projected for, with the targets
        # they planned, by project root: the no-op stamp written after the run signs their
        # inputs without detecting or asking for targets again.
        self.projected: dict[Path | None, dict[str, Sequence[Target]]] = {}
        # The tiers the last `project` run read for its blocks, with their entries as read,
        # by its project root: the no-op stamp signs the files they are anchored to without
        # scanning the tiers again.
        self.scanned: dict[Path | None, list[tuple[Tier, Sequence[Entry]]]] = {}

    def context(self, project: Path | None) -> Context:
        return Context(home_dir(self.environ), self.environ, self.store.root, project)

    def detected(self, ctx: Context, report: Report | Mapping[str, Report]) -> dict[str, bool]:
        """Whether each adapter's agent is installed (a failing ``detect`` says no, and is
        reported in ``report``, or in that adapter's own report of a mapping)."""
        return {
            name: self.call_adapter(
                name,
                report if isinstance(report, Report) else report[name],
                partial(adapter.detect, ctx),
                False,
            )
            for name, adapter in self.loaded.adapters.items()
        }

    def enabled(
        self, ctx: Context, report: Report, detected: Mapping[str, bool] | None = None
    ) -> dict[str, Adapter]:
        """The adapters to project for: installed ones the settings do not switch off, and
        any the settings switch on."""
        found = self.detected(ctx, report) if detected is None else detected
        adapters = self.loaded.adapters
        return {n: adapters[n] for n, present in found.items() if self.settings.enabled(n, present)}

    def targets(
        self,
        ctx: Context,
        report: Report,
        adapters: Mapping[str, Adapter],
        planned: Mapping[str, Sequence[Target]] | None = None,
    ) -> Targets:
        """Collect the targets of ``adapters`` and group them: the one place that does.
        ``planned``: targets already asked of them (`adapter list` asks each once)."""
        out = Targets()
        for name, adapter in adapters.items():
            found = planned.get(name) if planned is not None else None
            if found is None:
                found = self.call_adapter(name, report, partial(adapter.targets, ctx), NO_TARGETS)
            for target in found:
                if target.mode is Mode.SYMLINK:
                    out.links.append((name, target))
                elif target.mode is Mode.RENDER:
                    out.blocks[target.path].append((name, target))
        return out

    def step(self) -> contextlib.AbstractContextManager[None]:
        """One change outside the store; a hook run past its deadline stops before it."""
        return self.deadline.step() if self.deadline is not None else contextlib.nullcontext()

    def entries(self, tier: Tier | None, found: TierScan | None = None) -> list[Entry]:
        """What agents load of ``tier`` (``found``: its scan, already read)."""
        return list(self.store.shown(tier, found=found).entries) if tier is not None else []

    def block_entries(self, tier: Tier | None, found: TierScan | None = None) -> list[Entry]:
        """What a tier's personal block shows: its entries, less those the project's team
        tier holds word for word. The team block, in the same files, shows those already: an
        entry promoted with `coffer team add` is not paid for twice in the agents' context."""
        entries = self.entries(tier, found)
        if tier is None or not tier.info.root or not entries:
            return entries
        from coffer.store import team  # a stat when the project has no team tier

        shared = team.scan(Path(tier.info.root))
        if shared is None or not shared.entries:
            return entries
        same = {(e.name, e.description, e.body) for e in shared.entries}
        return [e for e in entries if (e.name, e.description, e.body) not in same]

    def harnesses(self, agents: Sequence[str]) -> list[str]:
        """The vault harness slugs that address ``agents``: an adapter's optional
        ``HARNESSES`` (e.g. ``claude`` and ``claude-code``), else its own name."""
        out: list[str] = []
        for agent in agents:
            out += self.loaded.features(agent).harnesses or [agent]
        return out

    def handoffs_for(self, ctx: Context, agents: Sequence[str]) -> Sequence[content.Handoff]:
        """Active vault handoffs addressed to any of ``agents`` in ``ctx.project``."""
        if self.handoffs is None or ctx.project is None:
            return ()
        try:
            return self.handoffs(ctx, self.harnesses(agents))
        except Exception:
            return ()  # handoffs are a courtesy; never block the projection on them

    def block_plan(
        self, ctx: Context, items: Sequence[Reader], tiers: Mapping[str, Tier | None]
    ) -> BlockPlan | str:
        """How the one block of a file read by ``items`` is rendered, or why it cannot be.

        Shared by ``project`` and ``status`` so an audit judges a block exactly as it is
        written: every reader's handoffs, the smallest budget among them.
        """
        tier_names = {t.tier for _, t in items}
        if len(tier_names) > 1:
            return (
                f"adapters disagree on which tier this file shows ({', '.join(sorted(tier_names))})"
            )
        tier_name = items[0][1].tier
        tier = tiers[tier_name]
        budgets = [t.max_bytes for _, t in items if t.max_bytes is not None]
        agents = [n for n, _ in items]
        name = tier.info.name if tier else (ctx.project.name if ctx.project else "")
        title = block_title(tier) if tier else f"Coffer memory: project {name}"
        handoffs = self.handoffs_for(ctx, agents) if tier_name == "project" else ()
        return BlockPlan(
            tier_name, tier, title, min(budgets) if budgets else None, handoffs, agents
        )
