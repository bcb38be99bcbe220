"""``coffer uninstall``: undo setup, the watcher and every projection; keep or delete the store."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from coffer.cli._common import echo
from coffer.cli.typer_app import app


@app.command()
def uninstall(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what the real run would do; change nothing.")
    ] = False,
    delete_store: Annotated[
        bool,
        typer.Option(
            "--delete-store",
            help="Then delete the store (your memories) and coffer's undo ledger, only if "
            "everything was put back.",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            help="Also remove blocks edited by hand, and let --delete-store delete what only "
            "the store holds: for when you have kept what you need."
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
    outcome = core.run(engine, os.environ, dry_run=dry_run, delete_store=delete_store, force=force)
    _print(outcome.report, quiet=False, dry_run=dry_run)
    root = engine.store.root
    would = "would be " if dry_run else "is "
    for left in outcome.left:
        echo(f"still to undo: {left} (see above; the journal keeps it)")
    for kept in outcome.only_in_store:
        echo(kept.line())
    gone = outcome.deleted or (outcome.to_delete if dry_run else [])
    if gone:
        echo(("would delete " if dry_run else "deleted ") + " and ".join(str(p) for p in gone))
    elif outcome.clean:
        echo(f"everything coffer changed {would}undone. Your memories are in {root}/projects;")
        echo(f"`coffer uninstall --delete-store` (or `rm -rf {root}`) deletes them;")
        echo("then uninstall the package.")
    else:
        echo(f"do not delete {root} yet: it holds what is listed above. Keep what you need")
        echo("(the commands above), then run this again; `--force` deletes the store anyway.")
    raise typer.Exit(0 if outcome.clean or gone else 1)
