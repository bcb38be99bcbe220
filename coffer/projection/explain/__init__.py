"""`coffer explain`: for one directory, what each agent loads at session start, in order —
files, sizes, what caps cut, what hides what — whether coffer's memory is in it, and what
to change when it is not (issue 12 §5, docs/adr/0029).

Everything agent-specific comes from the adapters: their ``FACTS`` (coffer.adapter.facts) say
what the agent reads, their targets where coffer put the memory, their ``config_dir`` (or
spec's ``Place``) what ``{config}`` is. Read-only; names no agent.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

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


class AgentView(NamedTuple):
    """What one agent loads here, and where coffer's memory stands in it."""

    name: str
    title: str
    present: bool
    enabled: bool
    facts: AgentFacts | None
    files: list[Measured]
    tiers: list[TierView]
    hints: list[str]
    targets: dict[str, list[Target]]
    error: str
    cost: Cost  # coffer's memory in its context
    in_view: dict[str, InView]  # per tier: entries it sees


class Explained(NamedTuple):
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
        loads = _loads(agents, name, adapter, Session(cwd, root, ctx, None, {}), report)
        # An enabled agent's empty tier is not a fault (_empty): settled before the hints
        # are drawn from the tiers, so an empty global tier says no "run `coffer project`".
        settle = partial(_empty, agents, project=project) if enabled else None
        agent = Agent(name, loads.title, enabled, cwd)
        tiers, hints = _tiers(agent, loads, project, settle)
        views.append(
            AgentView(
                name=name,
                title=loads.title,
                present=present,
                enabled=enabled,
                facts=loads.facts,
                files=loads.files,
                tiers=tiers,
                hints=hints,
                targets=loads.targets,
                error="; ".join(p.message for p in report.problems),
                cost=cost(loads.files),
                in_view=in_view(loads.files, shown),
            )
        )
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


class _Loads(NamedTuple):
    """What the adapter says of one agent here: its facts, targets and the files it loads."""

    title: str
    facts: AgentFacts | None
    targets: dict[str, list[Target]]
    files: list[Measured]


def _loads(agents: AgentSet, name: str, adapter: Adapter, base: Session, report: Report) -> _Loads:
    facts = agents.loaded.features(name).facts
    ctx = base.ctx
    config = agents.call_adapter(
        name, report, partial(_config_dir, agents, name, adapter, ctx), None
    )
    targets: dict[str, list[Target]] = {}
    for t in agents.call_adapter(name, report, partial(adapter.targets, ctx), NO_TARGETS):
        targets.setdefault(t.tier, []).append(t)
    files: list[Measured] = []
    if facts is not None:
        session = Session(base.cwd, base.root, ctx, config, targets)
        none: list[Found] = []
        listed = agents.call_adapter(name, report, partial(found, facts, session), none)
        files = measure(listed, agents.store.root, strips_comments=facts.strips_comments)
    return _Loads(facts.title if facts else name, facts, targets, files)


def _tiers(
    agent: Agent,
    loads: _Loads,
    project: Path | None,
    settle: Callable[[TierView], TierView] | None = None,
) -> tuple[list[TierView], list[str]]:
    """The state of each tier's memory for this agent, and the hints that go with them."""
    if loads.facts is None:
        hint = f"the {agent.name} adapter declares no FACTS: coffer cannot say what it loads"
        return [unknown(t) for ts in loads.targets.values() for t in ts], [hint]
    tiers = [
        tier_view(agent, tier, loads.targets.get(tier, []), loads.files, project is not None)
        for tier in ("project", "global")
    ]
    if settle is not None:
        tiers = [settle(t) for t in tiers]
    return tiers, [t.hint for t in tiers if t.hint] + shadow_hints(agent, loads.files)
