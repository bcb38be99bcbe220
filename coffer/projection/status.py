"""`coffer adapter list`: what each adapter projects where, and the state of every target.

Read-only. A RENDER target is judged against exactly what `coffer project` would write for
it (``Engine.block_plan``), so a shared block is not reported stale because one reader
alone would render it differently.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coffer import fsutil
from coffer.adapter import Adapter, Context, Mode, Target, modes
from coffer.errors import CofferError
from coffer.projection import block_content, render_targets
from coffer.projection import native_memory as native
from coffer.projection import symlink_targets as links
from coffer.projection.engine import NO_TARGETS
from coffer.report import Report
from coffer.store.entry import Entry
from coffer.store.store import Tier

if TYPE_CHECKING:
    from coffer.projection.engine import Engine
    from coffer.store.here import Here


@dataclass(frozen=True)
class TargetStatus:
    tier: str
    mode: str
    path: str
    state: str  # ok, missing, drifted, stale, foreign, broken, shadowed
    detail: str = ""
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.state == "ok"


@dataclass
class AdapterStatus:
    name: str
    origin: str
    present: bool
    enabled: bool
    modes: dict[str, str]
    targets: list[TargetStatus] = field(default_factory=list)
    native: str = "none"
    error: str = ""

    @property
    def ok(self) -> bool:
        if not self.enabled:
            return True
        return not self.error and self.native != "on" and all(t.ok for t in self.targets)


def _modes(engine: Engine, name: str, report: Report, adapter: Adapter) -> dict[str, str]:
    """The mode of each tier, read off the adapter's targets (coffer.adapter.modes)."""
    found: dict[str, Mode] = engine.call_adapter(
        name, report, partial(modes, adapter, engine.store.root), {}
    )
    return {tier: mode.value for tier, mode in found.items()}


def status(engine: Engine, here: Here | None) -> tuple[list[AdapterStatus], list[str]]:
    """Per adapter: presence, modes, targets with their state, native memory state."""
    root = here.project if here is not None else None
    ctx = engine.context(root)
    ptier = engine.store.tier_at(root) if root is not None else None
    tiers: dict[str, Tier | None] = {"project": ptier, "global": engine.store.global_tier()}
    entries = {k: list(engine.store.scan(t).entries) if t else [] for k, t in tiers.items()}
    readers = _readers(engine, ctx)
    out = []
    for name, adapter in engine.loaded.adapters.items():
        report = Report()
        present = engine.call_adapter(name, report, partial(adapter.detect, ctx), False)
        st = AdapterStatus(
            name=name,
            origin=engine.loaded.origins.get(name, "?"),
            present=present,
            enabled=engine.settings.enabled(name, present),
            modes=_modes(engine, name, report, adapter),
        )
        targets: list[Target] = list(
            engine.call_adapter(name, report, partial(adapter.targets, ctx), NO_TARGETS)
        )
        for t in targets:
            items = readers.get(t.path) or [(name, t)]
            st.targets.append(_target(engine, ctx, t, items, tiers, entries))
        nm = engine.call_adapter(name, report, partial(adapter.native_memory, ctx), None)
        if nm is not None:
            try:  # through a dotfile manager's link, as `coffer project` edits it
                config: bytes | None = fsutil.edit_target(nm.config).read_bytes()
            except (OSError, CofferError):
                config = None
            on = nm.enabled(config)
            by_us = engine.journal.get(native.key(name, nm.config)) is not None
            st.native = "on" if on else ("off (turned off by coffer)" if by_us else "off")
        st.targets += _orphans(engine, name, {t.path for t in targets}, ptier)
        if report.problems:
            st.error = "; ".join(p.message for p in report.problems)
        out.append(st)
    return out, list(engine.loaded.errors)


def _readers(engine: Engine, ctx: Context) -> dict[Path, list[tuple[str, Target]]]:
    """The enabled adapters rendering each file, grouped as `coffer project` groups them."""
    out: dict[Path, list[tuple[str, Target]]] = defaultdict(list)
    report = Report()
    for name, adapter in engine.enabled(ctx, report).items():
        for t in engine.call_adapter(name, report, partial(adapter.targets, ctx), NO_TARGETS):
            if t.mode is Mode.RENDER:
                out[t.path].append((name, t))
    return out


def _target(
    engine: Engine,
    ctx: Context,
    t: Target,
    items: list[tuple[str, Target]],
    tiers: dict[str, Tier | None],
    entries: dict[str, list[Entry]],
) -> TargetStatus:
    tier = tiers.get(t.tier)
    base: dict[str, Any] = {
        "tier": t.tier,
        "mode": t.mode.value,
        "path": str(t.path),
        "note": t.note,
    }
    if t.mode is Mode.NONE:
        return TargetStatus(state="ok", detail="nothing to write", **base)
    if t.shadowed_by is not None and t.shadowed_by.exists():
        return TargetStatus(state="shadowed", detail=f"{t.shadowed_by} hides this file", **base)
    if not t.active:
        return TargetStatus(state="shadowed", detail=t.note or "the agent will not read it", **base)
    if tier is None:
        return TargetStatus(
            state="missing", detail="the project has no store yet; run `coffer project`", **base
        )
    if t.mode is Mode.SYMLINK:
        state, detail = links.state(t.path, tier.dir)
        if state == "ok":
            state, detail = _index_state(engine, tier, detail)
        return TargetStatus(state=state, detail=detail, **base)
    plan = engine.block_plan(ctx, items, tiers)
    if isinstance(plan, str):
        return TargetStatus(state="drifted", detail=plan, **base)
    data = fsutil.read_bytes_or_none(t.path) if t.path.is_file() else None
    expected = block_content.render(
        plan.title,
        plan.tier_name,
        entries[plan.tier_name],
        render_targets.room_for(data, plan.budget),
        plan.handoffs,
    )
    state, detail = render_targets.state(t.path, expected.body)
    return TargetStatus(state=state, detail=detail, **base)


def _index_state(engine: Engine, tier: Tier, detail: str) -> tuple[str, str]:
    """A link is only as good as the MEMORY.md behind it: the agent loads that index, so
    one that no longer matches the entries is reported, not called ok."""
    rendered, current = engine.store.render_index(tier)
    if current == rendered.text.encode("utf-8", errors="surrogateescape"):
        return "ok", detail
    listed = (current or b"").decode("utf-8", "replace")
    count = sum(1 for line in rendered.generated if line in listed.splitlines())
    return (
        "stale",
        f"{detail}; its MEMORY.md lists {count} of {len(rendered.generated)} index lines "
        "(run `coffer project`)",
    )


def _orphans(
    engine: Engine, name: str, current: set[Path], ptier: Tier | None
) -> list[TargetStatus]:
    """Blocks coffer wrote for this adapter that it no longer reads (e.g. an
    AGENTS.override.md appeared beside the AGENTS.md holding the block)."""
    out = []
    for record in engine.journal.records():
        path = Path(record["path"])
        if record.get("kind") != "block" or name not in record.get("adapters", []):
            continue
        other_project = record.get("tier") == "project" and (
            ptier is None or record.get("project_id") != ptier.info.id
        )
        if path in current or other_project:
            continue
        out.append(
            TargetStatus(
                tier=str(record.get("tier")),
                mode=Mode.RENDER.value,
                path=str(path),
                state="shadowed",
                detail=f"{name} no longer reads this file; `coffer unproject` removes the block",
            )
        )
    return out
