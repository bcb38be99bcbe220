"""`coffer status`: one overview of what coffer manages here (coffer.overview)."""

from __future__ import annotations

import typer

from coffer.cli import reading
from coffer.cli._common import JsonOpt, ProjectOpt
from coffer.cli.typer_app import app


@app.command("status")
def status_command(path: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """Show what coffer manages here: entries, each agent (projected, wired, its hook
    trusted), the watcher, sync and the last problem. Always exits 0."""
    raise typer.Exit(reading.status(path, as_json))
