"""Option declarations and checks shared by the typer command modules: typer's side of
coffer.cli.grammar, and the options only typer reads (the printing helpers live in
coffer.cli._out, which the quick path uses too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from coffer.base.errors import InvalidInputError
from coffer.cli._out import (
    build_engine,
    coffer_app,
    echo,
    emit_json,
    found_json,
    here,
    named,
    print_report,
    project_path,
    scope,
    store,
)
from coffer.cli.grammar import OPTIONS
from coffer.store.tier import SCOPES


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


def complete_agent() -> list[str]:
    """Installed adapter names, for shell completion of --agent and NAME."""
    from coffer.adapter import registry

    return list(registry.load_adapters().adapters)


def option(key: str, **more: Any) -> Any:
    """typer's ``Option`` for the option coffer.cli.grammar declares as ``key``: the one
    declaration the quick path parses with too (docs/adr/0050). ``more`` adds what only
    typer uses (shell completion) or, for a command the quick path does not serve, words
    the option's help for it."""
    declared = OPTIONS[key]
    info: dict[str, Any] = {"help": declared.help}
    if declared.metavar is not None:
        info["metavar"] = declared.metavar
    if declared.choices:
        info["callback"] = choice(declared.choices)
        info["autocompletion"] = _completer(declared.choices)
    if declared.check is not None:
        info["callback"] = usage_checked(declared.check)
    if declared.minimum is not None:
        info["min"] = declared.minimum
    return typer.Option(*declared.names, **(info | more))


ProjectOpt = Annotated[Path | None, option("project")]
WriteScopeOpt = Annotated[str, option("write_scope")]
JsonOpt = Annotated[bool, option("as_json")]
ScopeOpt = Annotated[str | None, option("scope_value")]


__all__ = [
    "SCOPES",
    "build_engine",
    "choice",
    "coffer_app",
    "echo",
    "emit_json",
    "found_json",
    "here",
    "named",
    "print_report",
    "project_path",
    "scope",
    "store",
    "usage_checked",
]
