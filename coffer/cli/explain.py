"""`coffer explain`: what each agent loads at session start here, and whether coffer's
memory is in it (coffer.projection.explain; docs/adr/0029). Informational: exit 0 whatever
it finds; a usage error (an unknown agent) is 2, a path that does not exist 1. What it
prints is coffer.cli.explaining's, which the quick path runs too."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.cli import explaining
from coffer.cli._common import JsonOpt, ProjectOpt, complete_agent, option
from coffer.cli.typer_app import app


@app.command("explain")
def explain_command(
    agent: Annotated[str | None, option("agent", autocompletion=complete_agent)] = None,
    path: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show what each agent loads at session start here, in order: files, sizes, what its
    caps cut and what hides what; whether coffer's memory is in it, and what to change if
    not. Always exits 0: it only explains."""
    raise typer.Exit(explaining.explain(agent, path, as_json))
