"""`coffer team` (init, add, list, remove): the team tier kept in the repository's
``.coffer/memory/`` (docs/adr/0036). Every change is followed by `coffer project`, so the
team block in the project's instruction files shows it at once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    ScopeOpt,
    build_engine,
    echo,
    emit_json,
    here,
    print_report,
    project_path,
    scope,
    store,
)
from coffer.cli.typer_app import app
from coffer.secrets import redact
from coffer.store import team_write

team_app = typer.Typer(
    no_args_is_help=True, help="Share memory with the team through the repository."
)
app.add_typer(team_app, name="team")

NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The entry's name.")]


def _root(project: Path | None) -> Path:
    return here(project).require()


def _project(project: Path | None) -> int:
    """Re-render the team block (and everything else `coffer project` keeps)."""
    report = build_engine().project(project_path(project))
    print_report(report, quiet=False)
    return 0 if report.ok else 1


@team_app.command("init")
def team_init(project: ProjectOpt = None) -> None:
    """Create .coffer/memory/ in this project (commit it to share its entries)."""
    directory, created = team_write.init(_root(project))
    echo(f"{'created' if created else 'already there:'} {directory}")
    code = _project(project)
    echo("commit .coffer/memory/ and the files holding the team block to share them")
    raise typer.Exit(code)


@team_app.command("add")
def team_add(name: NameArg, scope_value: ScopeOpt = None, project: ProjectOpt = None) -> None:
    """Promote a personal entry (project tier first, then global) into the team tier."""
    s = store()
    root = _root(project)
    found = s.find(s.tiers(here(project), scope(scope_value)), name)
    path = team_write.add(root, found.entry)
    echo(redact(f"added {path} (from the {found.tier.label} tier)"))
    raise typer.Exit(_project(project))


@team_app.command("remove")
def team_remove(name: NameArg, project: ProjectOpt = None) -> None:
    """Delete a team entry (git keeps its history; the personal one is untouched)."""
    path = team_write.remove(_root(project), name)
    echo(redact(f"removed {path}"))
    raise typer.Exit(_project(project))


@team_app.command("list")
def team_list(project: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """List the team tier's entries and the files it skips."""
    scan = team_write.require(_root(project))
    if as_json:
        emit_json(
            {
                "dir": str(scan.dir),
                "entries": [
                    {
                        "name": redact(e.name),
                        "description": redact(e.description),
                        "type": e.type,
                        "file": redact(e.filename),
                    }
                    for e in scan.entries
                ],
                "skipped": [{"file": p.filename, "why": p.why} for p in scan.problems],
            }
        )
        raise typer.Exit(0)
    if not scan.entries:
        echo(f"no team entries in {scan.dir}")
    width = max((len(redact(e.name)) for e in scan.entries), default=0)
    for e in scan.entries:
        echo(redact(f"{e.name:<{width}}  {e.type or '-'}  {e.description}"))
    for p in scan.problems:
        echo(f"skipped: {p.line()}", err=True)
    raise typer.Exit(0)
