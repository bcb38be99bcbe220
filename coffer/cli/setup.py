"""``coffer setup``: wire coffer into every agent on this machine; ``--undo`` unwires it."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from coffer.base.errors import CofferError
from coffer.base.report import Report
from coffer.cli._common import complete_agent, echo, print_report, store
from coffer.cli.typer_app import app

if TYPE_CHECKING:
    from coffer.adapter.registry import Loaded
    from coffer.projection.journal import Journal


def _problems(report: Report) -> None:
    for p in report.problems:
        typer.echo(f"coffer: {p.line()}", err=True)


def _notices(report: Report, root: Path | None = None) -> int:
    """Print the notes; with ``root``, only those the previous run did not say (they are
    remembered in the store's state: a second `coffer setup` does not repeat them all).
    Returns how many were left out."""
    notes = list(report.notices)
    if root is not None:
        from coffer.projection import hook as hook_mode

        notes = hook_mode.news(root, _NOTES_KEY, notes)
    for n in notes:
        echo(f"note: {n}")
    return len(report.notices) - len(notes)


_NOTES_KEY = "coffer setup"  # the notes of the last run, beside the hooks' (coffer.projection.hook)


@app.command()
def setup(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the exact edits as a diff; write nothing.")
    ] = False,
    undo: Annotated[
        bool, typer.Option("--undo", help="Remove what `coffer setup` added, exactly.")
    ] = False,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="Only this agent (repeatable); wires it even if absent.",
            autocompletion=complete_agent,
        ),
    ] = None,
    service: Annotated[
        bool,
        typer.Option(
            "--service/--no-service",
            help="Also run `coffer watch` as a user service (systemd, launchd), or with "
            "--undo stop and remove it; --undo --agent leaves it.",
        ),
    ] = True,
) -> None:
    """Register coffer's MCP server and session-start hook in each agent's own config.

    The hook runs `coffer project --hook`, and `coffer watch` runs as a user service. Asks
    first (--yes does not), journals every edit, and `coffer setup --undo` reverses them
    exactly.
    """
    from coffer.projection.journal import Journal

    root = store().root
    journal = Journal(root)
    if not dry_run:
        # A killed run may have left a temp record; a retry that finds every agent wired
        # (or nothing left to undo) writes no record, so no write would sweep it.
        journal.sweep_tmp()
    if undo:
        raise typer.Exit(_undo(journal, agent or (), service=service, dry_run=dry_run))
    raise typer.Exit(_wire(root, agent or (), service=service, dry_run=dry_run, yes=yes))


def _undo(journal: Journal, agents: Sequence[str], *, service: bool, dry_run: bool) -> int:
    from coffer.setup import unwiring

    report = unwiring.undo(journal, agents, dry_run=dry_run)
    if service and not agents:  # the watcher serves every agent
        from coffer.setup import service as service_mod

        report.extend(service_mod.undo(journal, os.environ, dry_run=dry_run))
    print_report(report, dry_run=dry_run)
    if not report.changes and not report.problems and not report.notices:
        echo("nothing to undo: coffer setup has not changed any agent's config")
    return 0 if report.ok else 1


def _windows_side(loaded: Loaded) -> list[str]:
    """WSL: agents on the Windows side, not wired by this setup. Said once: a later run's
    notes leave it out (_notices)."""
    from coffer.adapter import wsl

    why = wsl.notice(wsl.windows_side(loaded))
    return [why] if why is not None else []


def _wire(root: Path, agents: Sequence[str], *, service: bool, dry_run: bool, yes: bool) -> int:
    from coffer.adapter import registry
    from coffer.projection.journal import Journal
    from coffer.setup import service as service_mod
    from coffer.setup import wiring as setup_mod

    journal = Journal(root)
    loaded = registry.load_adapters()
    plan = setup_mod.plan(root, os.environ, loaded, agents)
    svc = service_mod.plan(root, os.environ, loaded, plan.launch) if service else None
    if svc is not None:
        plan.report.extend(svc.report)
    plan.report.notices += _windows_side(loaded)
    _problems(plan.report)
    changes = plan.changes() + (svc.changes() if svc else [])
    if not changes:
        quiet = _notices(plan.report, None if dry_run else root)
        if plan.wired:
            again = " (`coffer setup --dry-run` repeats the notes said before)" if quiet else ""
            echo(f"already wired: {', '.join(plan.wired)}; nothing to change{again}")
        return 0 if plan.report.ok else 1
    echo(f"agents will start coffer as: {' '.join(plan.launch.argv)}")
    if dry_run or not yes:  # with --yes the plan is not shown first: the result says it
        for c in changes:
            echo(c.line(planned=True))
            if dry_run and c.diff:
                sys.stdout.write(str(c.diff))
    if dry_run:
        _notices(plan.report)
        return 0 if plan.report.ok else 1
    if not yes and not _confirmed():
        echo("nothing changed (rerun with --yes to apply without asking)")
        return 1
    report = setup_mod.apply(journal, plan)
    if svc is not None:
        report.extend(service_mod.apply(journal, svc, os.environ))
    planned = {c.line(planned=True) for c in changes}
    done = [c for c in report.changes if yes or c.line(planned=True) not in planned]
    for c in done:  # after the plan was shown, only what differs from it
        echo(c.line())
    both = Report()
    both.extend(plan.report)
    both.extend(report)
    _notices(both, root)
    _problems(report)
    if report.changes:
        made = "these edits" if yes else f"the {len(report.changes)} edits above"
        echo(f"done; `coffer setup --undo` reverses {made} exactly")
    return 0 if report.ok and plan.report.ok else 1


def _confirmed() -> bool:
    """Ask on the terminal. Ctrl-C is an interrupt like anywhere else in coffer (exit 130,
    as the README says), not a "no": typer's own prompt turns both into the same Abort."""
    sys.stdout.write("Apply these changes? [y/N]: ")
    sys.stdout.flush()
    answer = sys.stdin.readline()  # KeyboardInterrupt goes up to the one handler: 130
    if not answer:
        if not sys.stdin.isatty():
            # No answer and nobody to ask (a script, a CI job, stdin from /dev/null).
            raise CofferError(
                "no terminal to ask on (stdin is not a terminal and gave no answer), so "
                "nothing changed; review the edits with `coffer setup --dry-run`, then "
                "apply them with `coffer setup --yes`"
            )
        sys.stdout.write("\n")  # Ctrl-D: a "no", on a line of its own
        return False
    if not sys.stdin.isatty():
        sys.stdout.write("\n")  # a piped answer is not echoed: end the prompt's line
    return answer.strip().lower() in ("y", "yes")
