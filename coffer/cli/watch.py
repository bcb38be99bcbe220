"""``coffer watch``: the daemon that keeps every projection current (docs/watch.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from coffer.cli import reading
from coffer.cli._common import JsonOpt, option, store
from coffer.cli.typer_app import app

PollIntervalOpt = Annotated[
    float,
    typer.Option(
        "--poll-interval",
        help="Seconds between polls.",
        metavar="SECONDS",
        min=0.05,
        max=3600,
    ),
]
DebounceOpt = Annotated[
    int,
    typer.Option(
        "--debounce",
        help="Quiet time in ms that ends a burst of events (one refresh per burst).",
        metavar="MS",
        min=0,
        max=60_000,
    ),
]
SyncIntervalOpt = Annotated[
    float | None,
    typer.Option(
        "--sync-interval",
        help="Seconds between background sync rounds once `coffer sync init` ran "
        "(default: sync_interval in config.json, else 300).",
        metavar="SECONDS",
        min=10,
        max=86400,
    ),
]


@app.command()
def watch(  # noqa: PLR0913 - typer declares each option as a parameter
    status: Annotated[bool, option("status")] = False,
    as_json: JsonOpt = False,
    log_file: Annotated[
        Path | None,
        typer.Option("--log-file", help="Append the log here instead of stderr.", metavar="PATH"),
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Also log every file event and pass.")
    ] = False,
    poll: Annotated[
        bool,
        typer.Option(
            "--poll", help="Poll instead of native file events (network file systems, WSL)."
        ),
    ] = False,
    poll_interval: PollIntervalOpt = 2.0,
    debounce: DebounceOpt = 150,
    sync_interval: SyncIntervalOpt = None,
    no_sync: Annotated[
        bool, typer.Option("--no-sync", help="No background sync rounds, even when set up.")
    ] = False,
) -> None:
    """Keep every agent's projection current while memory changes (runs in the foreground).

    Exit codes: 0 after SIGTERM (a service manager's stop), and for --status when the
    daemon runs; 3 for --status when it does not; 130 after Ctrl-C; 1 when it cannot
    start (another daemon holds the store); 2 for a usage error."""
    if status:
        raise typer.Exit(reading.watch_status(as_json))
    if as_json:
        raise typer.BadParameter("--json goes with --status", param_hint="'--json'")
    from coffer.watch import watcher as watch_mod

    options = watch_mod.WatchOptions(
        poll, poll_interval, debounce / 1000, sync=not no_sync, sync_interval=sync_interval
    )
    code = watch_mod.run(
        store(),
        os.environ,
        options,
        log_file=log_file.absolute() if log_file else None,
        verbose=verbose,
    )
    raise typer.Exit(code)
