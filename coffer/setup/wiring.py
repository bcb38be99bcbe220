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
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from coffer.adapter import ConfigEdit, Context, Launch
from coffer.adapter.registry import Loaded, unknown_agents
from coffer.base import fsutil
from coffer.base.errors import CofferError, UnknownNameError
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import (
    ensure_parent,
    mtime_ns,
    now_iso,
    text_diff,
)
from coffer.projection.journal import Journal, sha256
from coffer.projection.records import SetupRecord
from coffer.setup.config_docs import _add, _eof, load
from coffer.setup.launch import resolve_launch
from coffer.store.paths import home_dir

TYPE_CHECKING = False  # typing stays unimported at run time (docs/adr/0039)
if TYPE_CHECKING:
    from typing import Any

    from coffer.adapter import Wiring

KIND = "setup"


def key(agent: str, path: Path) -> str:
    return f"setup:{agent}:{path}"


# ---- planning -------------------------------------------------------------------------------


@dataclass
class FilePlan:
    """The edits for one agent in one file, with the exact bytes before and after."""

    agent: str
    path: Path
    format: str
    before: bytes | None
    after: bytes
    entries: list[dict[str, Any]]
    whats: list[str]
    edits: Sequence[ConfigEdit] = ()  # what to redo if the file changes before the write

    @property
    def changed(self) -> bool:
        return self.after != self.before


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
    planned = [
        _plan_file(journal, name, path, group, out.report) for path, group in by_path.items()
    ]
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


def _plan_file(
    journal: Journal, agent: str, path: Path, edits: list[ConfigEdit], report: Report
) -> FilePlan | None:
    formats = {e.format for e in edits}
    if len(formats) != 1:
        report.problems.append(Problem(path, "error", f"{agent}: edits disagree on the format"))
        return None
    fmt = formats.pop()
    try:
        # A dotfile manager's link: edit the file it points to; the link stays as it is.
        target = fsutil.edit_target(path)
        locked = fsutil.read_only(target)
        if locked is not None:
            raise CofferError(locked)  # refused while planning: nothing is journaled
        before = fsutil.read_bytes_or_none(target)
        return _edited(journal, FilePlan(agent, path, fmt, before, b"", [], [], edits), before)
    except CofferError as exc:
        report.problems.append(Problem(path, "refused", f"{agent}: {exc}"))
        return None


def _edited(journal: Journal, fp: FilePlan, before: bytes | None) -> FilePlan:
    """``fp``'s edits made on the bytes ``before`` (the file as read now); CofferError when
    they cannot be made there without changing anything else (docs/adr/0041)."""
    doc = load(fp.format, before, fp.path)
    record = journal.load(key(fp.agent, fp.path), SetupRecord)
    previous = {
        (tuple(e["keys"]), bool(e.get("append"))): e for e in (record.edits if record else ())
    }
    entries = dict(previous)
    whats = []
    modified = False
    for edit in fp.edits:
        k = (tuple(edit.keys), edit.append)
        entry, changed = _add(doc, edit, previous.get(k))
        if entry is not None:
            entries[k] = entry
        if changed:
            modified = True
            whats.append(edit.what or ".".join(edit.keys))
    # Nothing to add: keep the bytes exactly (no re-serialisation).
    after = doc.dump() if modified or before is None else before
    return FilePlan(
        fp.agent, fp.path, fp.format, before, after, list(entries.values()), whats, fp.edits
    )


# ---- applying -------------------------------------------------------------------------------


def _record(journal: Journal, fp: FilePlan, target: Path) -> SetupRecord:
    """The record to journal before ``fp`` is written: the existing one brought up to date,
    or a new one holding the file's pre-image."""
    k = key(fp.agent, fp.path)
    record = journal.load(k, SetupRecord)
    if record is not None and fp.before is None:
        record = None  # the file is gone: nothing of the old record is left to undo
    if record is None:
        if fp.before is not None:
            journal.backup_bytes(fp.before)
        link = fsutil.link_of(fp.path)
        record = SetupRecord(
            key=k,
            path=str(fp.path),
            format=fp.format,
            adapters=(fp.agent,),
            created_file=fp.before is None,
            before_sha256=None if fp.before is None else sha256(fp.before),
            before_mtime_ns=None if fp.before is None else mtime_ns(target),
            # None: nothing of the original to end the file with (see unwiring)
            eof=_eof(fp.before) if fp.before and fp.before.strip() else None,
            created_at=now_iso(),
            link={"readlink": link, "target": str(target)} if link is not None else None,
        )
    elif fp.before is None or sha256(fp.before) != record.after_sha256:
        # Someone changed the file between coffer's writes: the pre-image no longer
        # describes everything that should survive an undo.
        record = record.but(exact=False)
    record = record.but(
        edits=tuple(fp.entries),
        updated_at=now_iso(),
        seq=time.time_ns(),  # orders writes within one second, for undo
    )
    if fp.before is None:
        record = record.but(created_dirs=tuple(ensure_parent(fp.path)))
    return record


def apply(journal: Journal, the_plan: Plan) -> Report:
    """Write every pending file of ``the_plan`` (journal first, then an atomic write)."""
    report = Report()
    for fp in the_plan.pending:
        try:
            report.extend(_apply_file(journal, fp))
        except CofferError as exc:
            report.problems.append(Problem(fp.path, "refused", str(exc)))
    return report


# Redos when another program keeps rewriting the file between coffer's read and its write.
ATTEMPTS = 8


def _apply_file(journal: Journal, fp: FilePlan) -> Report:
    """Journal, then swap the new bytes in; when the file changed since it was read (since
    the plan, or in the instant before the swap), redo the edits on what is there now, so
    another program's write is never lost (docs/adr/0041)."""
    target = fsutil.edit_target(fp.path)
    k = key(fp.agent, fp.path)
    kept = journal.load(k, SetupRecord)
    try:
        report = _swap_file(journal, fp, target)
    except CofferError:
        _put_back_record(journal, k, kept)
        raise
    if not report.ok:
        _put_back_record(journal, k, kept)
    return report


def _put_back_record(journal: Journal, k: str, kept: SetupRecord | None) -> None:
    """Never written as coffer wanted: the journal goes back to what it was."""
    if kept is None:
        journal.drop(k)
    else:
        journal.save(kept)


def _swap_file(journal: Journal, fp: FilePlan, target: Path) -> Report:
    report = Report()
    current = fsutil.read_bytes_or_none(target)
    for _ in range(ATTEMPTS):
        if current != fp.before:
            fp = _edited(journal, fp, current)  # CofferError: refused, nothing written
            if not fp.changed:
                return report  # the other program's version already has coffer's entries
        record = _record(journal, fp, target)
        journal.save(record)  # before the write: a crash leaves a record of what was there
        current = fsutil.read_bytes_or_none(target)
        if current != fp.before:
            continue  # changed while journaling: redo before anything is swapped
        mode = None if fp.before is not None else fsutil.PRIVATE_FILE_MODE
        written, current = fsutil.replace_if(target, fp.after, fp.before, mode=mode)
        if written:
            journal.save(record.but(after_sha256=sha256(fp.after)))
            report.changes.append(
                Change(
                    fp.path,
                    "create" if fp.before is None else "update",
                    f"{fp.agent}: " + "; ".join(fp.whats),
                )
            )
            return report
        # Another program wrote in between: its bytes are back in place (replace_if), and
        # the edit is made again on them.
    report.problems.append(
        Problem(
            fp.path,
            "refused",
            f"another program kept rewriting it ({ATTEMPTS} times while coffer tried); left as "
            "that program wrote it: run coffer setup again",
        )
    )
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
