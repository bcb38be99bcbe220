"""``coffer uninstall``: undo setup, the watcher and every projection; keep or delete the store."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from coffer.cli._common import echo
from coffer.cli.typer_app import app


@app.command()
def uninstall(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be undone.")] = False,
    delete_store: Annotated[
        bool,
        typer.Option(
            "--delete-store",
            help="Then delete the store (your memories) and coffer's undo ledger, only if "
            "everything was put back.",
        ),
    ] = False,
) -> None:
    """Undo everything coffer changed: `setup --undo`, the watcher, `unproject --all`.

    The store (your memories, the directories coffer replaced) is kept unless
    --delete-store is given, and is never deleted while anything could not be restored.
    """
    from coffer.cli._common import build_engine as _engine
    from coffer.cli._common import print_report as _print
    from coffer.setup import uninstall as core

    engine = _engine()
    outcome = core.run(engine, os.environ, dry_run=dry_run, delete_store=delete_store)
    _print(outcome.report, quiet=False, dry_run=dry_run)
    if dry_run:
        raise typer.Exit(0 if outcome.report.ok else 1)
    root = engine.store.root
    for left in outcome.left:
        echo(f"still to undo: {left} (see above; the journal keeps it)")
    for kept in outcome.only_in_store:
        echo(f"only in the store: {kept}")
    if outcome.deleted:
        echo("deleted " + " and ".join(str(p) for p in outcome.deleted))
    elif outcome.clean:
        echo(f"everything coffer changed is undone. Your memories are in {root}/projects;")
        echo(f"`coffer uninstall --delete-store` (or `rm -rf {root}`) deletes them;")
        echo("then uninstall the package.")
    else:
        echo(f"do not delete {root} yet: it holds what is listed above.")
    raise typer.Exit(0 if outcome.clean else 1)
