"""``coffer setup`` / ``coffer setup --undo``: wire coffer into each agent's own config.

Adapters that define ``wiring(ctx, launch)`` describe entries (an MCP server registration,
a session-start hook running ``coffer project --hook``) as :class:`ConfigEdit`; this
module plans them against the files as they are, shows the exact edits, and applies them
under the projection journal's rules (docs/adr/0007-journal.md, 0009-mcp-and-setup.md):

- style-preserving: JSON keeps key order, indentation, line endings and the final newline;
  TOML is edited with tomlkit, so comments and layout stay;
- atomic (``fsutil.atomic_write_bytes``) and journaled *before* the write, one record of
  kind ``setup`` per agent and file (key ``setup:<agent>:<path>``) with a pre-image backup;
- undone exactly: a file nobody touched since is restored byte for byte; otherwise only
  coffer's own entries are removed, and if someone changed those the undo is refused and the
  record kept. Names no agent.

This module plans across agents and applies the plan; one file's plan is made in
:mod:`coffer.setup.file_plan`, written in by :mod:`coffer.setup.file_apply`, undone by
:mod:`coffer.setup.unwiring`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import ConfigEdit, Context, Launch
from coffer.adapter.registry import Loaded, unknown_agents
from coffer.base.errors import CofferError, UnknownNameError
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import text_diff
from coffer.projection.journal import Journal
from coffer.setup.file_apply import ATTEMPTS, apply_file
from coffer.setup.file_plan import KIND, FilePlan, key, plan_file
from coffer.setup.launch import resolve_launch
from coffer.store.paths import home_dir

if TYPE_CHECKING:
    from typing import Any

    from coffer.adapter import Wiring


@dataclass
class Plan:
    launch: Launch
    files: list[FilePlan] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    wired: list[str] = field(default_factory=list)  # agents with at least one edit

    @property
    def pending(self) -> list[FilePlan]:
        return [f for f in self.files if f.changed]

    def changes(self) -> list[Change]:
        return [
            Change(
                f.path,
                "create" if f.before is None else "update",
                f"{f.agent}: " + "; ".join(f.whats),
                text_diff(f.path, f.before, f.after),
            )
            for f in self.pending
        ]


def _call(report: Report, name: str, fn: Any, default: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # one adapter's bug is reported, the others still run
        report.problems.append(
            Problem(Path(name), "error", f"adapter {name} failed: {type(exc).__name__}: {exc}")
        )
        return default


def plan(
    store_root: Path,
    environ: Mapping[str, str],
    loaded: Loaded,
    agents: Iterable[str] = (),
    *,
    launch: Launch | None = None,
) -> Plan:
    """What setup would change, for every present agent (or exactly ``agents``)."""
    wanted = set(agents)
    unknown = wanted - set(loaded.adapters)
    if unknown:
        raise UnknownNameError(unknown_agents(unknown, loaded.adapters))
    ctx = Context(home_dir(environ), environ, store_root, None)
    out = Plan(launch or resolve_launch(environ, store_root))
    journal = Journal(store_root)
    for err in loaded.errors:
        out.report.problems.append(Problem(Path("adapters"), "error", err))
    absent: dict[bool, list[str]] = {True: [], False: []}  # by: could setup wire it?
    for name, adapter in loaded.adapters.items():
        if wanted and name not in wanted:
            continue
        wiring = loaded.features(name).wiring
        if not wanted and not _call(out.report, name, partial(adapter.detect, ctx), False):
            absent[wiring is not None].append(name)
            continue
        edits = _edits(out, ctx, name, wiring)
        if edits:
            _plan_agent(out, journal, name, edits)
    _absent_notices(out.report, absent)
    return out


def _absent_notices(report: Report, absent: dict[bool, list[str]]) -> None:
    """One line for the agents not on this machine (two dozen of them, on most), not one
    each; `--agent` is suggested only where it would work."""
    if absent[True]:
        names = ", ".join(absent[True])
        report.notices.append(
            f"not found on this machine, skipped ({len(absent[True])}): {names} "
            "(`coffer setup --agent NAME` wires one anyway)"
        )
    if absent[False]:
        names = ", ".join(absent[False])
        report.notices.append(
            f"not found on this machine, and nothing for setup to wire ({len(absent[False])}):"
            f" {names}"
        )


def _edits(out: Plan, ctx: Context, name: str, wiring: Wiring | None) -> Sequence[ConfigEdit]:
    """The entries one agent's adapter asks for; none (and a notice why) when its adapter
    has no setup side."""
    if wiring is None:
        out.report.notices.append(
            f"{name}: its adapter does not support `coffer setup`; register `coffer mcp` "
            "and a session-start `coffer project --hook` by hand"
        )
        return ()
    edits: Sequence[ConfigEdit] = _call(out.report, name, partial(wiring, ctx, out.launch), ())
    if not edits:
        out.report.notices.append(f"{name}: nothing to wire")
    return edits


def _plan_agent(out: Plan, journal: Journal, name: str, edits: Sequence[ConfigEdit]) -> None:
    """Plan one agent's edits, file by file; all of them or, if one file refuses, none."""
    by_path: dict[Path, list[ConfigEdit]] = {}
    for edit in edits:
        by_path.setdefault(edit.path, []).append(edit)
        if edit.note:
            out.report.notices.append(f"{name}: {edit.note}")
    planned = [plan_file(journal, name, path, group, out.report) for path, group in by_path.items()]
    if any(fp is None for fp in planned):
        # An agent with its MCP server but not its hook (or the reverse) is wired
        # halfway: refuse it whole, say so, and let the user fix the file first.
        out.report.problems.append(
            Problem(
                Path(name),
                "refused",
                f"{name} was not wired at all: coffer wires an agent completely or not "
                "at all; fix the file named above, then run `coffer setup` again",
            )
        )
        return
    for fp in planned:
        if fp is not None:
            out.files.append(fp)
            if name not in out.wired:
                out.wired.append(name)


def apply(journal: Journal, the_plan: Plan) -> Report:
    """Write every pending file of ``the_plan`` (journal first, then an atomic write)."""
    report = Report()
    for fp in the_plan.pending:
        try:
            report.extend(apply_file(journal, fp))
        except CofferError as exc:
            report.problems.append(Problem(fp.path, "refused", str(exc)))
    return report


__all__ = [
    "ATTEMPTS",
    "KIND",
    "FilePlan",
    "Plan",
    "apply",
    "key",
    "plan",
]
