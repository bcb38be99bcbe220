"""Projection commands: project, init, unproject."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.base.errors import InvalidInputError
from coffer.base.identity import in_git
from coffer.cli._common import (
    ProjectOpt,
    build_engine,
    complete_agent,
    echo,
    option,
    print_report,
    project_path,
)
from coffer.cli.typer_app import app
from coffer.store import settings as settings_mod


@app.command()
def project(  # noqa: PLR0913 - typer declares each option as a parameter
    quiet: Annotated[bool, option("quiet")] = False,
    dry_run: Annotated[bool, option("dry_run")] = False,
    replace_edited: Annotated[bool, option("replace_edited")] = False,
    resume: Annotated[bool, option("resume")] = False,
    for_agent: Annotated[str | None, option("for_agent")] = None,
    hook_: Annotated[bool, option("hook")] = False,
    git_block: Annotated[str | None, option("git_block")] = None,
    path: ProjectOpt = None,
) -> None:
    """Make every agent see this project's and the global memory (idempotent)."""
    from coffer.cli import hook  # the engine's front door: not for `coffer --help`

    options = (quiet, dry_run, replace_edited, resume, for_agent, hook_, git_block)
    raise typer.Exit(hook.command(*options, path))


@app.command()
def init(
    quiet: Annotated[bool, option("quiet")] = False,
    path: ProjectOpt = None,
) -> None:
    """Make a directory outside any git repository a project, and project it.

    Outside git, `coffer project` (the agents' session-start hook) projects only the global
    memory and writes nothing in the directory until this command invites it.
    """
    engine = build_engine()
    target = project_path(path)
    if not target.is_dir():
        raise InvalidInputError(f"{target} is not a directory")
    root = engine.store.here(target).any_root()
    if in_git(root):
        echo(f"{root} is a git repository, so it is a project already")
    else:
        with engine.store.projection_lock():
            s = settings_mod.load(engine.store.root)
            if str(root) not in s.opted_in:
                s.opted_in.append(str(root))
                settings_mod.save(engine.store.root, s)
        echo(f"{root} is now a coffer project (`coffer unproject` there pauses it)")
    # Resolved again: the invitation just changed what the store takes for a project.
    report = engine.project(target, resume=True)
    print_report(report, quiet=quiet, dry_run=False)
    raise typer.Exit(0 if report.ok else 1)


@app.command()
def unproject(
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="Only this agent (repeatable); also disables its adapter.",
            autocompletion=complete_agent,
        ),
    ] = None,
    global_: Annotated[
        bool,
        typer.Option("--global", help="Undo the global tier's blocks and native-memory changes."),
    ] = False,
    all_: Annotated[bool, typer.Option("--all", help="Undo everything coffer changed.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be undone.")] = False,
    force: Annotated[
        bool, typer.Option(help="Also remove blocks edited by hand (backed up first).")
    ] = False,
    path: ProjectOpt = None,
) -> None:
    """Undo exactly what coffer changed outside its store, from the journal."""
    report = build_engine().unproject(
        project_path(path),
        agents=agent or (),
        global_=global_,
        all_=all_,
        dry_run=dry_run,
        force=force,
    )
    print_report(report, quiet=False, dry_run=dry_run)
    if not report.changes and not report.problems and not report.notices:
        echo("nothing to undo")
    raise typer.Exit(0 if report.ok else 1)
