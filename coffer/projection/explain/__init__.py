"""`coffer explain`: for one directory, what each agent loads at session start, in order —
files, sizes, what caps cut, what hides what — whether coffer's memory is in it, and what
to change when it is not (issue 12 §5, docs/adr/0029).

Everything agent-specific comes from the adapters: their ``FACTS`` (coffer.adapter.facts) say
what the agent reads, their targets where coffer put the memory, their ``config_dir`` (or
spec's ``Place``) what ``{config}`` is. Read-only; names no agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import Context, Target
from coffer.adapter.facts import AgentFacts
from coffer.adapter.spec import AgentSpec
from coffer.base.report import Report
from coffer.projection.agents import NO_TARGETS, AgentSet
from coffer.projection.explain.caps import Cost, Measured, cost, measure
from coffer.projection.explain.entries import InView, in_view
from coffer.projection.explain.files import Found, Session, found
from coffer.projection.explain.verdict import Agent, TierView, shadow_hints, tier_view, unknown

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from coffer.adapter import Adapter
    from coffer.store import Tier

__all__ = ["AgentView", "Explained", "explain", "git_root"]


@dataclass
class AgentView:
    """What one agent loads here, and where coffer's memory stands in it."""

    name: str
    title: str
    present: bool
    enabled: bool
    facts: AgentFacts | None
    files: list[Measured] = field(default_factory=list)
    tiers: list[TierView] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    targets: dict[str, list[Target]] = field(default_factory=dict)
    error: str = ""
    cost: Cost = field(default_factory=lambda: Cost(0, {}))  # coffer's memory in its context
    in_view: dict[str, InView] = field(default_factory=dict)  # per tier: entries it sees


@dataclass
class Explained:
    cwd: Path
    root: Path | None  # the repository root the agents walk to
    project: Path | None  # coffer's project (None: global tier only)
    agents: list[AgentView]
    hidden: list[str]  # neither installed nor enabled, not shown

    def json(self) -> dict[str, Any]:
        from coffer.projection.explain.shape import explained_json

        return explained_json(self)


def git_root(cwd: Path) -> Path | None:
    """The nearest directory from ``cwd`` up holding ``.git`` (a directory, or a worktree's
    file): where the agents stop walking by default."""
    return next((d for d in (cwd, *cwd.parents) if (d / ".git").exists()), None)


def explain(agents: AgentSet, at: Path, only: str | None = None) -> Explained:
    """Every enabled or installed agent (or only ``only``) for a session started in ``at``."""
    cwd = at.resolve()
    project = agents.store.here(cwd).project
    root = git_root(cwd) or project
    ctx = agents.context(project)
    views, hidden = [], []
    tiers_here = {"global": agents.store.global_tier()}
    if project is not None and (tier := agents.store.tier_at(project)) is not None:
        tiers_here["project"] = tier
    shown = {name: agents.block_entries(tier) for name, tier in tiers_here.items()}
    for name, adapter in agents.loaded.adapters.items():
        if only is not None and name != only:
            continue
        report = Report()
        present = agents.call_adapter(name, report, partial(adapter.detect, ctx), False)
        enabled = agents.settings.enabled(name, present)
        if only is None and not (present or enabled):
            hidden.append(name)
            continue
        view = _agent(agents, name, adapter, Session(cwd, root, ctx, None, {}), report)
        view.present, view.enabled = present, enabled
        view.in_view = in_view(view.files, shown)
        # An enabled agent's empty tier is not a fault (_empty): settled before the hints
        # are drawn from the tiers, so an empty global tier says no "run `coffer project`".
        settle = partial(_empty, agents, project=project) if enabled else None
        view.tiers = _tiers(view, cwd, project, settle)
        views.append(view)
    return Explained(cwd, root, project, views, hidden)


def _empty(agents: AgentSet, view: TierView, project: Path | None) -> TierView:
    """A tier with no entries has no block to load (docs/adr/0045): not a fault to fix."""
    if view.state != "missing":
        return view
    tier: Tier | None = agents.store.global_tier()
    if view.tier != "global":
        tier = agents.store.tier_at(project) if project is not None else None
    if agents.block_entries(tier):
        return view
    return TierView(
        view.tier, "empty", view.path, f"no {view.tier} entries yet: nothing to load", ""
    )


def _config_dir(agents: AgentSet, name: str, adapter: Adapter, ctx: Context) -> Path | None:
    hand_written = agents.loaded.features(name).config_dir
    if hand_written is not None:
        return hand_written(ctx)
    spec = getattr(adapter, "SPEC", None)  # a spec adapter's Place (coffer.adapter.spec)
    return spec.config_dir(ctx) if isinstance(spec, AgentSpec) else None


def _agent(
    agents: AgentSet, name: str, adapter: Adapter, base: Session, report: Report
) -> AgentView:
    facts = agents.loaded.features(name).facts
    view = AgentView(name, facts.title if facts else name, False, False, facts)
    ctx = base.ctx
    config = agents.call_adapter(
        name, report, partial(_config_dir, agents, name, adapter, ctx), None
    )
    targets = agents.call_adapter(name, report, partial(adapter.targets, ctx), NO_TARGETS)
    for t in targets:
        view.targets.setdefault(t.tier, []).append(t)
    session = Session(base.cwd, base.root, ctx, config, view.targets)
    if facts is not None:
        none: list[Found] = []
        listed = agents.call_adapter(name, report, partial(found, facts, session), none)
        view.files = measure(listed, agents.store.root, strips_comments=facts.strips_comments)
        view.cost = cost(view.files)
    view.error = "; ".join(p.message for p in report.problems)
    return view


def _tiers(
    view: AgentView,
    cwd: Path,
    project: Path | None,
    settle: Callable[[TierView], TierView] | None = None,
) -> list[TierView]:
    agent = Agent(view.name, view.title, view.enabled, cwd)
    if view.facts is None:
        view.hints = [f"the {view.name} adapter declares no FACTS: coffer cannot say what it loads"]
        return [unknown(t) for ts in view.targets.values() for t in ts]
    tiers = [
        tier_view(agent, tier, view.targets.get(tier, []), view.files, project is not None)
        for tier in ("project", "global")
    ]
    if settle is not None:
        tiers = [settle(t) for t in tiers]
    view.hints = [t.hint for t in tiers if t.hint] + shadow_hints(agent, view.files)
    return tiers
