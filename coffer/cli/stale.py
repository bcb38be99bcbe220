"""`coffer stale` and `coffer verify`: entries that may no longer be true, and marking one
as checked (coffer.store.freshness, docs/adr/0053)."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    ScopeOpt,
    WriteScopeOpt,
    echo,
    emit_json,
    here,
    scope,
    store,
)
from coffer.cli.memory import NameArg, ReviewOpt
from coffer.cli.typer_app import app
from coffer.cli.writing import say_saved, writer
from coffer.store import Revision
from coffer.store.views import entries_json


@app.command("stale")
def stale_(
    scope_value: ScopeOpt = None,
    recall_only: Annotated[
        bool | None,
        typer.Option(
            "--recall-only/--mark",
            help="From now on, leave this tier's stale entries to recall (or mark them in place, "
            "the default) in what agents load. Needs --scope.",
        ),
    ] = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List entries whose anchored files changed or vanished, or whose review date passed."""
    at = store()
    tiers = at.tiers(here(project), scope(scope_value))
    if recall_only is not None:
        if scope_value is None or len(tiers) != 1:
            raise typer.BadParameter("choose the tier with --scope project or --scope global")
        at.choose("stale_recall", tiers[0], recall_only)
        where = "recall only" if recall_only else "marked where agents load them"
        echo(f"stale entries of {tiers[0].label}: {where}")
    found = at.stale(tiers)
    if as_json:
        emit_json(entries_json(found, body=False))
        return
    for f in found:
        echo(f"{f.entry.name} ({f.tier.label}): {f.entry.stale}")
    if not found:
        echo("nothing is stale")
    else:
        echo(f"{len(found)} stale; check each, then `coffer verify NAME` or `coffer update NAME`")


@app.command()
def verify(
    name: NameArg,
    scope_value: WriteScopeOpt = "project",
    review_after: ReviewOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark an entry as checked now: its anchors' current contents become the reference."""
    tiers = store().tiers(here(project), scope(scope_value))
    if not tiers:
        raise typer.BadParameter("this project has no memory yet")
    saved, refreshed = writer().update(
        tiers[0], name, Revision(review_after=review_after, verified=True)
    )
    say_saved(saved, refreshed, as_json)
