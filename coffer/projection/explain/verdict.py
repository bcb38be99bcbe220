"""Whether coffer's memory reaches the agent, per tier, and what to change when it does not.

Agent-neutral: the agent's name and title, its target paths and the caps come from the
adapter; the sentences are the same for every agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from coffer.adapter import Mode, Target
from coffer.base import platform
from coffer.projection.explain.caps import Measured

PROJECT = "`coffer project`"


class TierView(NamedTuple):
    """Coffer's memory of one tier, as this agent gets it."""

    tier: str
    # loaded, cut, shadowed, not-loaded, off, missing, empty, none, no-project, unknown
    state: str
    path: Path | None
    detail: str = ""
    hint: str = ""

    @property
    def ok(self) -> bool:
        return self.state in ("loaded", "none", "empty")


class Agent(NamedTuple):
    """The names the sentences use."""

    name: str
    title: str
    enabled: bool
    cwd: Path


def tier_view(
    agent: Agent, tier: str, targets: Sequence[Target], files: Sequence[Measured], has_project: bool
) -> TierView:
    """The state of ``tier``'s memory for this agent, read off the files it loads."""
    if tier == "project" and not has_project:
        return TierView(tier, "no-project", None, "this directory is not a coffer project")
    mine = [m for m in files if m.coffer and m.found.load.scope == tier]
    whole = [m for m in mine if m.found.state == "loaded" and not m.coffer_cut]
    # the adapter's own file first: Claude's project memory is its index, not AGENTS.md
    whole.sort(key=lambda m: not any(_holds(t, m.found.path) for t in targets))
    if whole:
        return TierView(tier, "loaded", whole[0].found.path, _where(whole[0]))
    cut = [m for m in mine if m.found.state == "loaded"]
    if cut:
        m = cut[0]
        return TierView(
            tier,
            "cut",
            m.found.path,
            f"coffer's memory is {m.coffer_cut} past the cap: {'; '.join(m.cut)}",
            f"coffer's memory in {m.found.path} is past {agent.title}'s limit: shorten what "
            "comes before it, or keep fewer entries (`coffer forget`)",
        )
    target = next((t for t in targets if t.mode is not Mode.NONE), None)
    if target is None:
        note = next((t.note for t in targets if t.note), "coffer projects nothing here")
        return TierView(tier, "none", targets[0].path if targets else None, note)
    return _missing(agent, tier, target, mine, files)


def unknown(target: Target) -> TierView:
    """A tier of an adapter without FACTS: where coffer put it, not whether it is read."""
    return TierView(target.tier, "unknown", target.path, "the adapter declares no FACTS")


def _where(m: Measured) -> str:
    return "coffer's block" if m.coffer == "block" else "coffer's memory index"


def _missing(
    agent: Agent, tier: str, target: Target, mine: Sequence[Measured], files: Sequence[Measured]
) -> TierView:
    if not target.active:
        return TierView(tier, "off", target.path, target.note, target.note)
    if not agent.enabled:
        return TierView(
            tier,
            "missing",
            target.path,
            f"coffer does not project into {agent.name} (not detected, not enabled)",
            f"run `coffer adapter enable {agent.name}`, then {PROJECT}",
        )
    hidden = next((m for m in mine if m.found.state == "shadowed"), None)
    read = any(_holds(target, m.found.path) and m.found.state == "loaded" for m in files)
    if read or (hidden is None and not _holds_memory(target)):
        # the file coffer writes for this agent is read and lacks the block (an
        # AGENTS.override.md that appeared), or coffer has not written it yet
        also = f"; {hidden.found.by} hides {hidden.found.path}, which has it" if hidden else ""
        return TierView(
            tier,
            "missing",
            target.path,
            f"no coffer memory in {target.path}{also}",
            f"run {PROJECT}",
        )
    if hidden is not None:
        by = hidden.found.by
        return TierView(
            tier,
            "shadowed",
            hidden.found.path,
            f"{by} hides it from {agent.title}",
            f"{by} hides {hidden.found.path} from {agent.title}: move what {by.name if by else ''} "
            f"holds into {hidden.found.path.name} and remove it, then run {PROJECT}",
        )
    off = next((m for m in mine if m.found.state == "off"), None)
    if off is not None:
        return TierView(
            tier, "off", off.found.path, off.found.why, f"{agent.title}: {off.found.why}"
        )
    return TierView(
        tier,
        "not-loaded",
        target.path,
        f"{agent.title} does not read {target.path} in a session started in {agent.cwd}",
        f"start {agent.title} in {target.path.parent}",
    )


def _holds(target: Target, path: Path) -> bool:
    return path == target.path or path.parent == target.path


def _holds_memory(target: Target) -> bool:
    """Whether the target holds coffer's memory although the agent did not load it."""
    from coffer.projection import managed_block

    if target.mode is Mode.SYMLINK:
        return platform.link_at(target.path)
    try:
        data = target.path.read_bytes()
        return managed_block.find(data) is not None
    except (OSError, ValueError):
        return False


def shadow_hints(agent: Agent, files: Sequence[Measured]) -> list[str]:
    """Every file holding coffer's memory that the agent skips, said once: a CLAUDE.md
    hiding the shared AGENTS.md matters even when the tier reaches the agent another way."""
    out = []
    for m in files:
        if m.coffer and m.found.state == "shadowed":
            out.append(f"{m.found.by} hides {m.found.path} (coffer's memory) from {agent.title}")
        elif m.sections and m.found.state == "off" and m.found.via is not None:
            out.append(
                f"{m.found.via} imports {m.found.path} (coffer's memory), but {agent.title} "
                f"does not read it here: {m.found.why}"
            )
        elif m.coffer == "malformed":
            out.append(f"{m.found.path} has malformed coffer markers: `coffer doctor` says where")
    return out
