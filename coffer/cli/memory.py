"""Store commands that write: remember, update, edit, forget (each refreshes the projections)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from coffer.base.errors import InvalidInputError
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    WriteScopeOpt,
    check_type,
    coffer_app,
    complete_type,
    echo,
    emit_json,
    found_json,
    here,
    scope,
    store,
    usage_checked,
)
from coffer.cli.typer_app import app
from coffer.store import RememberOptions, Revision, Saved, Tier
from coffer.store.entry import TYPES, check_name
from coffer.store.views import tier_json

if TYPE_CHECKING:
    from coffer.projection.writes import Refreshed, Writer


NameArg = Annotated[str, typer.Argument(help="Entry name.")]


def writer() -> Writer:
    return coffer_app().writer()


def say_refreshed(refreshed: Refreshed) -> None:
    """Which projected files the write reached; what it could not reach goes to stderr."""
    for path in refreshed.updated:
        echo(f"updated {path}")
    for problem in refreshed.problems:
        typer.echo(f"coffer: not refreshed: {problem}", err=True)


def _write_tier(project: ProjectOpt, scope_value: str | None) -> Tier:
    s = store()
    if scope(scope_value) == "global":
        return s.global_tier(create=True)
    tier = s.project_tier(here(project), create=True)
    assert tier is not None
    return tier


def _type_option(label: str) -> Any:
    """``--type`` for the commands that write an entry (checked and completed alike)."""
    return typer.Option(
        "--type",
        help=f"{label}: {', '.join(TYPES)}.",
        metavar="TYPE",
        callback=check_type,
        autocompletion=complete_type,
    )


AnchorOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--anchor",
        metavar="PATH[#SYMBOL]",
        help="A file in the repository the entry is about (repeatable); quoted paths count too.",
    ),
]
ReviewOpt = Annotated[
    str | None,
    typer.Option(
        "--review-after",
        metavar="DATE|AGE",
        help="When to look at the entry again: a date (2027-03-01) or an age (90d, 6m).",
    ),
]


@app.command()
def remember(  # noqa: PLR0913 - typer declares each option as a parameter
    text: Annotated[str, typer.Argument(help="What to remember; '-' reads it from stdin.")],
    name: Annotated[
        str | None,
        typer.Option(help="Entry name (kebab-case).", callback=usage_checked(check_name)),
    ] = None,
    description: Annotated[str | None, typer.Option(help="One-line description.")] = None,
    type_: Annotated[str | None, _type_option("Entry type")] = None,
    scope_value: WriteScopeOpt = "project",
    replace: Annotated[
        bool, typer.Option(help="Overwrite an existing entry with the same --name.")
    ] = False,
    origin_session_id: Annotated[
        str | None,
        typer.Option(
            "--origin-session-id",
            metavar="ID",
            help="The agent session this fact comes from (its session-start hook names it).",
        ),
    ] = None,
    anchor: AnchorOpt = None,
    review_after: ReviewOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Store a memory entry in the project's tier (or the global one)."""
    if text == "-":
        text = sys.stdin.read()
    tier = _write_tier(project, scope_value)
    saved, refreshed = writer().remember(
        tier,
        text,
        name=name,
        description=description,
        type=type_,
        options=RememberOptions(
            replace_existing=replace,
            origin_session_id=origin_session_id,
            anchors=tuple(anchor or ()),
            review_after=review_after,
        ),
    )
    say_saved(saved, refreshed, as_json)


def say_saved(saved: Saved, refreshed: Refreshed, as_json: bool) -> None:
    path = saved.tier.dir / saved.entry.filename
    if as_json:
        emit_json(
            {
                "action": saved.action,
                "name": saved.entry.name,
                "file": str(path),
                "tier": tier_json(saved.tier),
                "refresh": refreshed.as_json(),
            }
        )
        return
    if saved.action == "unchanged":
        echo(f"already remembered as {saved.entry.name} in {saved.tier.label}: {path}")
    else:
        echo(f"{saved.action} {saved.entry.name} in {saved.tier.label}: {path}")
    say_refreshed(refreshed)


@app.command()
def update(  # noqa: PLR0913 - typer declares each option as a parameter
    name: NameArg,
    text: Annotated[
        str | None, typer.Argument(help="The new text; '-' reads it from stdin.")
    ] = None,
    description: Annotated[str | None, typer.Option(help="New one-line description.")] = None,
    type_: Annotated[str | None, _type_option("New entry type")] = None,
    scope_value: WriteScopeOpt = "project",
    anchor: AnchorOpt = None,
    review_after: ReviewOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change an existing entry's text, description, type, anchors or review date (other
    metadata is kept)."""
    if (text, description, type_, review_after) == (None, None, None, None) and not anchor:
        raise InvalidInputError(
            "nothing to update: pass the new text, --description, --type, --anchor or "
            "--review-after"
        )
    if text == "-":
        text = sys.stdin.read()
    tiers = store().tiers(here(project), scope(scope_value))
    if not tiers:
        raise InvalidInputError("this project has no memory yet")
    change = Revision(text, description, type_, tuple(anchor or ()), review_after)
    saved, refreshed = writer().update(tiers[0], name, change)
    say_saved(saved, refreshed, as_json)


def _editor() -> list[str]:
    """The user's editor: $VISUAL, else $EDITOR, else vi (as git and crontab choose)."""
    import os
    import shlex

    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]


def edited(text: str, filename: str, unchanged: str) -> tuple[str, Path]:
    """``text`` as the user's editor leaves it, and the scratch file it was edited in (named
    ``filename``, so editors colour it as Markdown); ``unchanged`` says what a failed edit
    leaves as it was."""
    import subprocess
    import tempfile

    draft = Path(tempfile.mkdtemp(prefix="coffer-edit-")) / filename
    draft.write_text(text, "utf-8", "surrogateescape")
    command = [*_editor(), str(draft)]
    try:
        done = subprocess.run(command, check=False)
    except OSError as exc:
        import shutil

        shutil.rmtree(draft.parent, ignore_errors=True)
        raise InvalidInputError(f"cannot start the editor {command[0]!r}: {exc}") from None
    if done.returncode != 0:
        raise InvalidInputError(
            f"the editor exited with {done.returncode}; {unchanged} "
            f"(the edited text is kept in {draft})"
        )
    return draft.read_text("utf-8", "surrogateescape"), draft


@app.command()
def edit(
    name: NameArg,
    scope_value: WriteScopeOpt = "project",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Open an entry's file in $VISUAL or $EDITOR (else vi); then check it (frontmatter,
    secrets), save it and refresh every block. A bad edit is refused and the entry kept."""
    import shutil

    from coffer.base.errors import CofferError

    tiers = store().tiers(here(project), scope(scope_value))
    if not tiers:
        raise InvalidInputError("this project has no memory yet")
    found = store().find_for_change(tiers[0], name)  # as `update` finds it, with its hints
    base = (found.tier.dir / found.entry.filename).read_text("utf-8", "surrogateescape")
    text, draft = edited(base, found.entry.filename, f"{name} is unchanged")
    try:
        saved, refreshed = writer().edit(found, text, base=base)
    except CofferError as exc:
        exc.args = (f"{exc}; {name} is unchanged, the edited text is kept in {draft}",)
        raise
    shutil.rmtree(draft.parent, ignore_errors=True)
    say_saved(saved, refreshed, as_json)


@app.command()
def forget(
    name: NameArg,
    scope_value: WriteScopeOpt = "project",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove an entry (moved to the store's trash, not destroyed)."""
    s = store()
    chosen = scope(scope_value)
    tiers = s.tiers(here(project), chosen)
    if not tiers:
        raise InvalidInputError("this project has no memory yet")
    found, refreshed = writer().forget(tiers[0], name)
    if as_json:
        emit_json(
            {
                "action": "forgotten",
                **found_json(found, body=False),
                "refresh": refreshed.as_json(),
            }
        )
    else:
        echo(f"forgot {found.entry.name} from {found.tier.label} (kept in {found.tier.base}/trash)")
        say_refreshed(refreshed)
