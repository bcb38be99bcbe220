"""``coffer ui``: a local web page to see and tend the memory (coffer.ui, docs/ui.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.cli._common import ProjectOpt, coffer_app, project_path
from coffer.cli.typer_app import app


@app.command()
def ui(
    port: Annotated[
        int, typer.Option(help="The port on 127.0.0.1 (default: a free one).", min=0, max=65535)
    ] = 0,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    project: ProjectOpt = None,
) -> None:
    """Serve a page on 127.0.0.1 to search, edit, forget and restore entries, work the
    review queue and see what each agent loads; prints its address (with this run's
    token) and opens it. Stops on Ctrl-C (exit 130)."""
    from coffer.ui.server import serve

    serve(coffer_app(), project_path(project), port, open_browser=not no_open)
