"""`coffer sync`: the same memory on every machine, through a git remote (docs/adr/0034)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from coffer.cli._common import JsonOpt, ProjectOpt, coffer_app, echo, emit_json, here
from coffer.cli.typer_app import app

if TYPE_CHECKING:
    from coffer.sync.api import SyncReport

# The group's help is written out unwrapped: typer_app unwraps commands' docstrings, not
# a group callback's.
sync_app = typer.Typer(
    invoke_without_command=True,
    help=(
        "One round through the git remote: commit this machine's entries, merge, push.\n\n"
        "Exits 1 when the remote cannot be reached (nothing is lost: the next round pushes) "
        "or when an entry that looks like it holds a secret blocks the push (nothing leaves)."
    ),
)
app.add_typer(sync_app, name="sync")


def _report_json(report: SyncReport) -> dict[str, Any]:
    from coffer.cli._out import redacted_json

    data: dict[str, Any] = redacted_json(report._asdict())
    return data


def _print(report: SyncReport, as_json: bool) -> None:
    if as_json:
        emit_json(_report_json(report))
        return
    echo(report.summary)
    for path in report.conflicts:
        echo(f"conflict copy: {path}")
    for line in report.refused:
        echo(f"coffer: refused a pulled file: {line}", err=True)


@sync_app.callback()
def sync(
    ctx: typer.Context,
    no_push: Annotated[
        bool, typer.Option("--no-push", help="Commit and pull, but send nothing.")
    ] = False,
    allow_deletions: Annotated[
        bool,
        typer.Option(
            "--allow-deletions",
            help="Send a burst of deletions (over 25% of a tier, 5 or more) held back before.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """One round through the git remote (the help text is the group's, above)."""
    if ctx.invoked_subcommand is not None:
        return
    from coffer.sync.api import sync_once
    from coffer.sync.errors import PushRefused

    try:
        report = sync_once(coffer_app(), push=not no_push, allow_deletions=allow_deletions)
    except PushRefused as exc:
        if exc.report is not None:
            _print(exc.report, as_json)
        raise
    _print(report, as_json)


@sync_app.command("init")
def sync_init(
    remote: Annotated[
        str, typer.Argument(metavar="REMOTE", help="A git URL (ssh, https) or a bare repo path.")
    ],
    host: Annotated[
        str | None,
        typer.Option("--host", help="This machine's name in commits and conflict copies."),
    ] = None,
) -> None:
    """Sync this store through REMOTE (an empty or earlier-synced git repository)."""
    from coffer.sync import control
    from coffer.sync.gitcmd import shown

    config = control.init(coffer_app(), remote, host)
    echo(f"sync set up: {shown(config.remote)} as {config.host}; run `coffer sync` to sync now")


@sync_app.command("link")
def sync_link(
    key: Annotated[str, typer.Argument(metavar="KEY", help="e.g. github.com/me/notes")],
    project: ProjectOpt = None,
) -> None:
    """Sync this project under KEY (for a project with no remote and no commit)."""
    from coffer.sync import control

    root = here(project).require()
    echo(f"{root} syncs as {control.link(coffer_app(), root, key)}")


@sync_app.command("status")
def sync_status(as_json: JsonOpt = False) -> None:
    """Show the remote, the last round and which projects sync under which key."""
    from coffer.sync import control

    st = control.status(coffer_app())
    if as_json:
        from coffer.cli._out import redacted_json

        emit_json(redacted_json(st._asdict()))
        return
    echo(f"remote: {st.remote} (this machine: {st.host})")
    last = f"{st.last_round} — {st.last_summary}" if st.last_round else "never"
    echo(f"last round: {last}")
    for key, label in st.synced:
        echo(f"synced: {key} <- {label}")
    for label in st.unkeyed:
        echo(f"local only: {label} (no remote or commit; `coffer sync link KEY` names one)")
    for label in st.doubles:
        echo(f"local only: {label} (another clone here has its key)")
    for key in st.waiting:
        echo(f"waiting: {key} (no project here yet; imported once one is registered)")
    if st.unpushed:
        echo(f"not pushed yet: {st.unpushed} commit(s)")
    for path in st.conflict_copies:
        echo(f"conflict copy: {path}")
