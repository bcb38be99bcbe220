"""`coffer unproject`: undo exactly what the journal records, for the chosen records.

Which records a run covers (an agent, a project, the global files, everything) is decided
here; how each is undone is its kind's (coffer/projection/kinds.py). A refused path stays
in the journal, and a damaged record is reported, never guessed at.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import NamedTuple

from coffer.adapter import NativeMemory, registry
from coffer.base import fsutil
from coffer.base.errors import CofferError, InvalidInputError, UnknownNameError
from coffer.base.report import Problem, Report
from coffer.projection import kinds, orphans
from coffer.projection.agents import AgentSet
from coffer.projection.journal import Damage, JournalRecord, moves, parse
from coffer.projection.run import Undo
from coffer.store import Here, projects, settings


class Choice(NamedTuple):
    """What an unproject run covers and how."""

    agents: set[str]
    global_: bool = False
    all_: bool = False
    dry_run: bool = False
    force: bool = False


class Scope(NamedTuple):
    """The project an unproject run covers, once resolved."""

    root: Path | None = None
    project_id: str | None = None


def run(agents: AgentSet, here: Here | None, choice: Choice) -> Report:
    report = Report()
    known = set(agents.loaded.adapters) | {a for r in agents.journal.load_all() for a in r.adapters}
    if choice.agents - known:
        raise UnknownNameError(registry.unknown_agents(choice.agents - known, known))
    scope = Scope()
    if here is not None and not choice.all_ and not choice.global_:
        scope = _scope(agents, here, choice, report)
    undo = undo_of(agents, dry_run=choice.dry_run, force=choice.force)
    for record in agents.journal.load_all():
        if selected(record, choice, scope.project_id):
            report.extend(_undo_one(undo, record, choice))
    for damage in agents.journal.damaged():
        if damage_selected(damage, choice, scope.project_id):
            # Reported, never guessed at: the other records were undone above.
            advice = damage.advice(agents.journal.backups)
            report.problems.append(Problem(Path(damage.target), "damaged", advice))
    if not agents.journal.exists() and not choice.agents and (choice.all_ or scope.root):
        # Store and ledger deleted by hand: find coffer's changes by their markers.
        near = scope.root
        if near is None and here is not None:
            with contextlib.suppress(CofferError):
                near = here.project
        report.extend(orphans.sweep(agents, near, dry_run=choice.dry_run, force=choice.force))
    if not choice.agents and (choice.all_ or scope.root):
        from coffer.projection.git import hiding

        everywhere = None if choice.all_ else scope.root
        report.extend(hiding.forget_vault(agents.journal, everywhere, dry_run=choice.dry_run))
    if not choice.dry_run:
        _remember_choice(agents, choice, scope.root)
    return report


def _scope(agents: AgentSet, here: Here, choice: Choice, report: Report) -> Scope:
    root = None
    try:
        root = here.any_root()
    except CofferError:
        if not choice.agents:
            raise  # a whole-project undo needs a project
    if root is None:
        return Scope()
    # The registry, not project_tier: a directory outside git that an earlier
    # version projected is no project now, but what was written there goes.
    project_id = projects.read_project_list(agents.store.root).get(str(root))
    if project_id is None and not choice.dry_run:
        # Moved here and never projected since: follow it, then undo it.
        with agents.store.store_lock():
            moved = projects.follow(agents.store.root, root)
        if moved is not None:
            project_id = moved.id
            report.extend(moves.relocate(agents.journal, moved))
    return Scope(root, project_id)


def one(agents: AgentSet, key: str, *, dry_run: bool = False) -> Report:
    """Undo exactly the one projection journaled under ``key`` (a block, a link, a native
    memory switch, a team block), for every agent it serves; nothing else is touched."""
    raw = agents.journal.get(key)
    record = parse(raw) if raw is not None else None
    if record is None or record.kind not in kinds.KINDS:
        raise InvalidInputError(f"no projection is journaled for {key}")
    choice = Choice(set(), dry_run=dry_run)
    return _undo_one(undo_of(agents, dry_run=dry_run), record, choice)


def undo_of(agents: AgentSet, *, dry_run: bool = False, force: bool = False) -> Undo:
    """What every kind's undo is handed: the journal, and each adapter's own memory as the
    adapter describes it now (asked only for a native record, outside any project)."""

    def native_of(name: str) -> NativeMemory | None:
        adapter = agents.loaded.adapters.get(name)
        return adapter.native_memory(agents.context(None)) if adapter is not None else None

    return Undo(agents.journal, native_of, dry_run, force)


def _undo_one(undo: Undo, record: JournalRecord, choice: Choice) -> Report:
    journal = undo.journal
    if not choice.dry_run and record.path:
        # Undo may delete rather than write; stale temp files still go.
        fsutil.sweep_stale_tmp(Path(record.path).parent)
    users = set(record.adapters)
    if choice.agents and users - choice.agents:
        # A file shared with other agents keeps its block for them.
        if not choice.dry_run:
            journal.save(record.but(adapters=tuple(sorted(users - choice.agents))))
        return Report()
    kind = kinds.KINDS.get(record.kind)
    return kind.undo(undo, record) if kind is not None else Report()


def damage_selected(damage: Damage, choice: Choice, project_id: str | None) -> bool:
    # A damaged record is shown to every undo that might have covered it: when its
    # adapters or project cannot be read, to all of them.
    if choice.agents and damage.adapters and not choice.agents & set(damage.adapters):
        return False
    if choice.all_ or choice.agents or damage.tier is None:
        return True
    if damage.tier == "global":
        return choice.global_
    return damage.project_id is None or damage.project_id == project_id


def selected(record: JournalRecord, choice: Choice, project_id: str | None) -> bool:
    if choice.agents and not choice.agents & set(record.adapters):
        return False
    if choice.all_:
        return True
    if record.tier == "global":
        return choice.global_ or bool(choice.agents)
    return project_id is not None and record.project_id == project_id


def _remember_choice(agents: AgentSet, choice: Choice, root: Path | None) -> None:
    # Without this the next session start would project everything again.
    if choice.agents:
        for name in choice.agents:
            agents.settings.adapters[name] = False
    elif root is not None and not choice.global_ and not choice.all_:
        agents.settings.paused.append(str(root))
    settings.save(agents.store.root, agents.settings)
    if not choice.agents:  # a disabled adapter's files are not refreshed anyway
        from coffer.projection.blocks import waiting

        project_id = projects.read_project_list(agents.store.root).get(str(root)) if root else None
        waiting.forget(
            agents.store.root, every=choice.all_, global_=choice.global_, project_id=project_id
        )
