"""Read-only store commands: recall, list, show, where (their output: coffer.cli.reading)."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.cli import reading
from coffer.cli._common import JsonOpt, ProjectOpt, ScopeOpt, option
from coffer.cli.typer_app import app


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    scope_value: ScopeOpt = None,
    limit: Annotated[int, option("limit")] = 10,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search both tiers (BM25 ranking); each hit shows its tier and file."""
    raise typer.Exit(reading.recall(query, scope_value, limit, project, as_json))


@app.command("list")
def list_(
    scope_value: ScopeOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List entries of the project and global tiers."""
    raise typer.Exit(reading.list_entries(scope_value, project, as_json))


@app.command()
def show(
    name: Annotated[str, typer.Argument(help="Entry name.")],
    scope_value: ScopeOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print one entry's file exactly as stored (its path and tier go to stderr)."""
    raise typer.Exit(reading.show(name, scope_value, project, as_json))


@app.command()
def where(project: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """Show the store and the project this directory resolves to."""
    raise typer.Exit(reading.where(project, as_json))
