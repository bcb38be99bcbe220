"""Store commands that write: remember, update, edit, forget (each refreshes the projections;
what remember does and what each says of its write are coffer.cli.writing's)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from coffer.base.errors import InvalidInputError
from coffer.cli import writing
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    WriteScopeOpt,
    echo,
    emit_json,
    found_json,
    here,
    option,
    scope,
    store,
)
from coffer.cli.typer_app import app
from coffer.cli.writing import say_refreshed, say_saved, writer
from coffer.store import Revision
from coffer.store.entry import TYPES

NameArg = Annotated[str, typer.Argument(help="Entry name.")]
AnchorOpt = Annotated[list[str] | None, option("anchors")]
ReviewOpt = Annotated[str | None, option("review_after")]


@app.command()
def remember(  # noqa: PLR0913 - typer declares each option as a parameter
    text: Annotated[str, typer.Argument(help="What to remember; '-' reads it from stdin.")],
    name: Annotated[str | None, option("entry_name")] = None,
    description: Annotated[str | None, option("description")] = None,
    type_: Annotated[str | None, option("entry_type")] = None,
    scope_value: WriteScopeOpt = "project",
    replace: Annotated[bool, option("replace")] = False,
    origin_session_id: Annotated[str | None, option("origin_session_id")] = None,
    anchor: AnchorOpt = None,
    review_after: ReviewOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Store a memory entry in the project's tier (or the global one)."""
    options = (name, description, type_, scope_value, replace, origin_session_id, anchor)
    raise typer.Exit(writing.remember(text, *options, review_after, project, as_json))


@app.command()
def update(  # noqa: PLR0913 - typer declares each option as a parameter
    name: NameArg,
    text: Annotated[
        str | None, typer.Argument(help="The new text; '-' reads it from stdin.")
    ] = None,
    description: Annotated[str | None, typer.Option(help="New one-line description.")] = None,
    type_: Annotated[
        str | None, option("entry_type", help=f"New entry type: {', '.join(TYPES)}.")
    ] = None,
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
