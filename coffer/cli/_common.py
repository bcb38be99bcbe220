"""Helpers shared by the typer command modules."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from coffer.errors import InvalidInputError
from coffer.secrets import redact
from coffer.store.entry import TYPES
from coffer.store.store import Found, Scope, Store
from coffer.store.views import entry_json

if TYPE_CHECKING:
    from coffer.projection.engine import Engine
    from coffer.report import Report

SCOPES = ("project", "global")


def choice(values: Sequence[str]) -> Callable[[str | None], str | None]:
    """A typer callback: a value outside ``values`` is a usage error (exit 2), like any
    other malformed option, rather than a refusal of the command itself (exit 1)."""

    def check(value: str | None) -> str | None:
        if value is None or value in values:
            return value
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(values)}")

    return check


def usage_checked(check: Callable[[str], str]) -> Callable[[str | None], str | None]:
    """A typer callback running a core validator; its refusal becomes a usage error."""

    def callback(value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check(value)
        except InvalidInputError as exc:
            raise typer.BadParameter(str(exc)) from None

    return callback


def _completer(values: Sequence[str]) -> Callable[[], list[str]]:
    return lambda: list(values)


SCOPE_METAVAR = "[" + "|".join(SCOPES) + "]"


def complete_agent() -> list[str]:
    """Installed adapter names, for shell completion of --agent and NAME."""
    from coffer import registry

    return list(registry.load_adapters().adapters)


check_scope = choice(SCOPES)
check_type = choice(TYPES)
complete_scope = _completer(SCOPES)
complete_type = _completer(TYPES)

ProjectOpt = Annotated[
    Path | None,
    typer.Option(
        "--project", help="Act on the project containing PATH instead of the cwd.", metavar="PATH"
    ),
]
WriteScopeOpt = Annotated[
    str,
    typer.Option(
        "--scope",
        help="The tier to change.",
        metavar=SCOPE_METAVAR,
        callback=check_scope,
        autocompletion=complete_scope,
        show_default=True,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        help="Only this tier (default: both).",
        metavar=SCOPE_METAVAR,
        callback=check_scope,
        autocompletion=complete_scope,
    ),
]


def store() -> Store:
    return Store.from_environ(os.environ)


def project_path(project: Path | None) -> Path:
    return (project or Path.cwd()).absolute()


def scope(value: str | None) -> Scope | None:
    if value is None:
        return None
    if value == "project":
        return "project"
    if value == "global":
        return "global"
    raise InvalidInputError(f"invalid scope {value!r}: use project or global")


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def echo(text: str = "") -> None:
    typer.echo(text)


def _redacted(value: Any) -> Any:
    """``value`` with every secret-shaped span in its strings replaced by ``[redacted …]``.

    Entries arrive through linked directories and synced folders, so a name, description or
    file name may hold a token the write gate never saw; what coffer prints (to a terminal or
    an agent reading its output) never repeats it, as doctor and watch do not.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {_redacted(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def found_json(found: Found, *, body: bool, score: bool = False) -> dict[str, Any]:
    """The shared entry view (coffer.store.views), redacted for printing."""
    redacted: dict[str, Any] = _redacted(entry_json(found, body=body, score=score))
    return redacted


def build_engine() -> Engine:
    """The projection engine over this environment's store, with the vault's handoffs."""
    from coffer.projection.engine import Engine
    from coffer.projection.integrations import handoff_source

    return Engine(store(), os.environ, handoffs=handoff_source())


def print_report(report: Report, *, quiet: bool = False, dry_run: bool = False) -> None:
    """The one way a command prints a :class:`Report`: changes (planned ones with their
    diff) and notes on stdout unless ``quiet``; alerts and problems always, on stderr."""
    if dry_run:
        for c in report.changes:
            echo(c.line(planned=True))
            if c.diff:
                sys.stdout.write(c.diff)
    elif not quiet:
        for c in report.changes:
            echo(c.line())
    if not quiet:
        for n in report.notices:
            echo(f"note: {n}")
    for a in report.alerts:
        typer.echo(named(a), err=True)
    for p in report.problems:
        typer.echo(f"coffer: {p.line()}", err=True)


def named(alert: str) -> str:
    # Each line names coffer once: "coffer turned off …", never "coffer: coffer turned …".
    return alert if alert.startswith("coffer ") else f"coffer: {alert}"
