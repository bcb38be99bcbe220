"""`coffer adapter list`: what each adapter projects where, and the state of every target.

Read-only. A RENDER target is judged against exactly what `coffer project` would write for
it (``AgentSet.block_plan``), so a shared block is not reported stale because one reader
alone would render it differently.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import HookTrust, LinkCheck, Mode, Target, modes
from coffer.base.report import Report
from coffer.projection import kinds
from coffer.projection.agents import NO_TARGETS, AgentSet, Reader
from coffer.projection.run import Run, run_of
from coffer.store import Here, Store, Tier

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, TypeAlias

    from coffer.adapter import Adapter, Context
    from coffer.projection.journal import JournalRecord
    from coffer.store.search_cache import TierScan

    # The tiers' scans by the run's names for them ("project", "global").
    Scans: TypeAlias = Mapping[str, TierScan]


class TargetStatus(NamedTuple):
    tier: str
    mode: str
    path: str
    state: str  # ok, missing, drifted, stale, foreign, broken, shadowed
    detail: str = ""
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    @property
    def pending(self) -> bool:
        """Not projected yet, or behind the entries: `coffer project` (or the next session
        start) brings it up to date. Not an error."""
        return self.state in PENDING


# The states `coffer project` simply brings up to date; every other state but "ok" needs
# the user (a hand edit, a foreign file, a link coffer refused to replace).
PENDING = frozenset({"missing", "stale"})


class AdapterStatus:
    name: str
    origin: str
    present: bool
    enabled: bool
    modes: dict[str, str]
    targets: list[TargetStatus]
    native: str
    error: str
    # What `coffer setup` wired into the agent's own config: {"mcp"|"hook": state}.
    wiring: dict[str, str]
    hidden: bool  # absent and not enabled: listed only with --all
    wireable: bool  # the adapter has something for `coffer setup` to wire
    # Whether the agent runs coffer's wired hook, where the agent records its trust (Codex's
    # /hooks); None: the agent asks for no trust, or coffer's hook is not in its config.
    trust: HookTrust | None
    # The agent's own records put this project's memory elsewhere than coffer's link
    # (the adapter's link_check); None: they agree, or nothing tells.
    link: LinkCheck | None

    def __init__(
        self, name: str, origin: str, present: bool, enabled: bool, hidden: bool = False
    ) -> None:
        self.name = name
        self.origin = origin
        self.present = present
        self.enabled = enabled
        self.modes: dict[str, str] = {}
        self.targets = []
        self.native = "none"
        self.error = ""
        self.wiring = {}
        self.hidden = hidden
        self.wireable = False
        self.trust = None
        self.link = None

    @property
    def ok(self) -> bool:
        if not self.enabled:
            return True
        if self.error or self.link is not None or self.native == "on":
            return False
        return all(t.ok for t in self.targets)

    def as_json(self) -> dict[str, Any]:
        """The `adapter list --json` view of this agent."""
        return {
            "name": self.name,
            "origin": self.origin,
            "present": self.present,
            "enabled": self.enabled,
            "modes": self.modes,
            "native_memory": self.native,
            "setup": self.wiring if self.wireable else None,
            "hook_trust": self.trust._asdict() if self.trust is not None else None,
            "elsewhere": self.link.as_json() if self.link is not None else None,
            "error": self.error or None,
            "ok": self.ok,
            "targets": [t._asdict() for t in self.targets],
        }

    def problems(self) -> list[str]:
        """What needs the user here (empty when all is ok or merely pending)."""
        if not self.enabled:
            return []
        out = [self.error] if self.error else []
        if self.native == "on":
            out.append("its own memory is on")
        if self.link is not None:
            out.append(self.link.warning)
        out += [f"{t.path} is {t.state}" for t in self.targets if not t.ok and not t.pending]
        return out


def _modes(agents: AgentSet, name: str, report: Report, adapter: Adapter) -> dict[str, str]:
    """The mode of each tier, read off the adapter's targets (coffer.adapter.modes)."""
    found: dict[str, Mode] = agents.call_adapter(
        name, report, partial(modes, adapter, agents.store.root), {}
    )
    return {tier: mode.value for tier, mode in found.items()}


def tiers_of(store: Store, root: Path | None) -> dict[str, Tier | None]:
    """The tiers an audit of the project at ``root`` (or of none) judges, by name."""
    ptier = store.tier_at(root) if root is not None else None
    return {"project": ptier, "global": store.global_tier()}


def scans_of(store: Store, tiers: Mapping[str, Tier | None]) -> dict[str, TierScan]:
    """Each tier's scan, for a read-only command to read once: nothing it does writes
    between its reads, so a second scan would only sync the search cache again."""
    return {k: store.scan(t) for k, t in tiers.items() if t is not None}


def status(
    agents: AgentSet, here: Here | None, *, every: bool = True, scans: Scans | None = None
) -> tuple[list[AdapterStatus], list[str]]:
    """Per adapter: presence, modes, targets with their state, native memory state, what
    setup wired. Without ``every``, an agent neither installed nor enabled is only named
    (``hidden``): with two dozen adapters most are not on a given machine. ``scans``: the
    tiers as :func:`scans_of` read them, when the caller has."""
    root = here.project if here is not None else None
    ctx = agents.context(root)
    tiers = tiers_of(agents.store, root)
    # Read-only: each tier is read once, and every target below is judged against that read.
    scans = scans_of(agents.store, tiers) if scans is None else scans
    entries = {k: agents.block_entries(t, scans.get(k)) for k, t in tiers.items()}
    run = run_of(agents, ctx, tiers, entries)
    # The enabled adapters rendering each file, grouped as `coffer project` groups them.
    reports = {name: Report() for name in agents.loaded.adapters}
    detected = agents.detected(ctx, reports)  # once; a failure in that adapter's own report
    enabled = agents.enabled(ctx, Report(), detected)
    shown = {n for n in agents.loaded.adapters if every or detected[n] or n in enabled}
    planned = {  # each adapter's targets, asked once
        name: list(agents.call_adapter(name, reports[name], partial(a.targets, ctx), NO_TARGETS))
        for name, a in agents.loaded.adapters.items()
        if name in shown
    }
    readers = agents.targets(ctx, Report(), enabled, planned).blocks
    audit = _Audit(agents, run, readers, agents.journal.load_all(), scans)
    out = []
    for name, adapter in agents.loaded.adapters.items():
        report, present = reports[name], detected[name]
        st = AdapterStatus(
            name=name,
            origin=agents.loaded.origins.get(name, "?"),
            present=present,
            enabled=agents.settings.enabled(name, present),
            hidden=not present and not agents.settings.enabled(name, present),
        )
        if every or not st.hidden:
            _fill(audit, st, (adapter, planned[name]), report)
        out.append(st)
    return out, list(agents.loaded.errors)


class _Audit(NamedTuple):
    """What one audit read once, for every adapter: the run its kinds judge against, the
    enabled adapters reading each file, the journal's usable records and the tiers' scans."""

    agents: AgentSet
    run: Run
    readers: dict[Path, list[Reader]]
    journal: list[JournalRecord]
    scans: Scans


def _fill(
    audit: _Audit, st: AdapterStatus, planned: tuple[Adapter, list[Target]], report: Report
) -> None:
    agents, run, journal, name = audit.agents, audit.run, audit.journal, st.name
    ctx = run.ctx
    adapter, targets = planned
    st.modes = _modes(agents, name, report, adapter)
    for t in targets:
        st.targets.append(_target(audit, t, audit.readers.get(t.path) or [(name, t)]))
    native = agents.call_adapter(name, report, partial(adapter.native_memory, ctx), None)
    if native is not None:
        st.native, _ = kinds.NATIVES.state(run, (name, native))
    st.targets += _orphans(journal, name, {t.path for t in targets}, run.tiers["project"])
    st.wiring = _wiring(journal, name)
    features = agents.loaded.features(name)
    st.wireable = features.wiring is not None
    if features.hook_trust is not None and "hook" in st.wiring:
        st.trust = agents.call_adapter(name, report, partial(features.hook_trust, ctx), None)
    st.link = link_check(agents, name, ctx, report)
    if report.problems:
        st.error = "; ".join(p.message for p in report.problems)


def link_check(agents: AgentSet, name: str, ctx: Context, report: Report) -> LinkCheck | None:
    """Whether the agent ``name`` keeps this project's memory elsewhere than coffer's link,
    by its own records (the adapter's optional ``link_check``; a failure is the adapter's
    error, in ``report``)."""
    check = agents.loaded.features(name).link_check
    if check is None or ctx.project is None:
        return None
    found: LinkCheck | None = agents.call_adapter(name, report, partial(check, ctx), None)
    return found


# The first key of a setup edit, by what it registered (the rest are MCP servers): the hook,
# and the two files of the guidance skill (coffer.adapter.wiring.skill).
_KINDS = {"hooks": "hook", "SKILL.md": "skill", "agents/openai.yaml": "skill"}


def _serving(records: list[JournalRecord], kind: str, name: str) -> list[JournalRecord]:
    """The records of ``kind`` that serve the adapter ``name``."""
    return [r for r in records if r.kind == kind and name in r.adapters]


def _wiring(records: list[JournalRecord], name: str) -> dict[str, str]:
    """What `coffer setup` registered for ``name`` (its setup records): the MCP server, the
    session-start hook (the edits under ``hooks``) and the guidance skill (a ``SKILL.md``).
    "wired" while the file is as setup left it; "wired, file edited since" when someone
    changed it after."""
    from coffer.base import fsutil
    from coffer.projection.journal import sha256

    out: dict[str, str] = {}
    for r in _serving(records, "setup", name):
        data = fsutil.read_bytes_or_none(Path(r.path))
        state = "wired" if data is not None and sha256(data) == r.after_sha256 else ""
        state = state or ("wired, file edited since" if data is not None else "file removed")
        for edit in r.edits:
            keys = edit.get("keys")
            kind = _KINDS.get(keys[0] if keys else "", "mcp")
            out[kind] = state
    return out


def _target(audit: _Audit, t: Target, items: list[Reader]) -> TargetStatus:
    run = audit.run
    tier = run.tiers.get(t.tier)
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
        state, detail = kinds.LINKS.state(run, (items[0][0], t))
        if state == "ok":
            state, detail = _index_state(run.store, tier, detail, audit.scans.get(t.tier))
        return TargetStatus(state=state, detail=detail, **base)
    # judged as `coffer project` plans the file's one block, for every reader of it
    plan = audit.agents.block_plan(run.ctx, items, run.tiers)
    state, detail = kinds.BLOCKS.state(run, (t.path, plan))
    return TargetStatus(state=state, detail=detail, **base)


def _index_state(store: Store, tier: Tier, detail: str, found: TierScan | None) -> tuple[str, str]:
    """A link is only as good as the MEMORY.md behind it: the agent loads that index, so
    one that no longer matches the entries is reported, not called ok."""
    rendered, current = store.render_index(tier, found)
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
    records: list[JournalRecord], name: str, current: set[Path], ptier: Tier | None
) -> list[TargetStatus]:
    """Blocks coffer wrote for this adapter that it no longer reads (e.g. an
    AGENTS.override.md appeared beside the AGENTS.md holding the block)."""
    out = []
    # A team block (docs/adr/0036) is the team tier's, in files chosen for it: never an
    # orphan of the adapter's personal targets. Its kind is "team", so "block" leaves it out.
    for record in _serving(records, "block", name):
        path = Path(record.path)
        other_project = record.tier == "project" and (
            ptier is None or record.project_id != ptier.info.id
        )
        if path in current or other_project:
            continue
        out.append(
            TargetStatus(
                tier=str(record.tier),
                mode=Mode.RENDER.value,
                path=str(path),
                state="shadowed",
                detail=f"{name} no longer reads this file; `coffer unproject` removes the block",
            )
        )
    return out
