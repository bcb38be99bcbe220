"""`coffer remember`, without typer, and what every command that writes an entry says about
its write: the typer commands (coffer.cli.memory, …) and the quick path (coffer.cli.quick)
both call these, so both print the same."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.cli._out import coffer_app, echo, emit_json, here, scope, store

if TYPE_CHECKING:
    from coffer.projection.writes import Refreshed, Writer
    from coffer.store import Saved, Tier


def writer() -> Writer:
    return coffer_app().writer()


def remember(  # noqa: PLR0913 - the options of `coffer remember` (coffer.cli.grammar)
    text: str,
    entry_name: str | None,
    description: str | None,
    entry_type: str | None,
    write_scope: str,
    replace: bool,
    origin_session_id: str | None,
    anchors: list[str] | None,
    review_after: str | None,
    project: Path | None,
    as_json: bool,
) -> int:
    """Store ``text`` as an entry of the project's tier (or the global one); '-' reads it
    from stdin."""
    from coffer.store import RememberOptions

    if text == "-":
        text = sys.stdin.read()
    tier = write_tier(project, write_scope)
    saved, refreshed = writer().remember(
        tier,
        text,
        name=entry_name,
        description=description,
        type=entry_type,
        options=RememberOptions(
            replace_existing=replace,
            origin_session_id=origin_session_id,
            anchors=tuple(anchors or ()),
            review_after=review_after,
        ),
    )
    say_saved(saved, refreshed, as_json)
    return 0


def write_tier(project: Path | None, scope_value: str | None) -> Tier:
    """The tier a new entry goes to, created if need be."""
    s = store()
    if scope(scope_value) == "global":
        return s.global_tier(create=True)
    tier = s.project_tier(here(project), create=True)
    assert tier is not None
    return tier


def say_saved(saved: Saved, refreshed: Refreshed, as_json: bool) -> None:
    path = saved.tier.dir / saved.entry.filename
    if as_json:
        from coffer.store.views import tier_json  # the JSON answer only

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


def say_refreshed(refreshed: Refreshed) -> None:
    """Which projected files the write reached; what it could not reach goes to stderr."""
    for path in refreshed.updated:
        echo(f"updated {path}")
    for problem in refreshed.problems:
        echo(f"coffer: not refreshed: {problem}", err=True)
