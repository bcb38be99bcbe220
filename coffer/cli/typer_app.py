"""The typer app: every command, loaded lazily by name; errors mapped to exit codes."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from coffer.base.errors import CofferError, NotAProjectError
from coffer.cli._out import fresh_app, report_error

app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # --install-completion / --show-completion. They cost ~0.2 ms when the command tree is
    # built, and `coffer project` / `coffer vault` never build it (coffer.main dispatches
    # them first), so session starts do not pay even that (benchmarks/bench_cli.py).
    add_completion=True,
    help="Keep one memory store; project it into every coding agent.",
)


def _version(value: bool) -> None:
    if value:
        from coffer import __version__

        typer.echo(f"coffer {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Keep one memory store; project it into every coding agent."""


# Every command's name -> the module that declares it, in the order `coffer --help` lists
# them. A run imports only the module of the command it invokes (docs/adr/0023): the others
# pull in the projection engine, the watcher or the setup planner, which `coffer where`
# should not pay for.
COMMANDS: dict[str, str] = {
    "mcp": "mcp",
    "remember": "memory",
    "update": "memory",
    "edit": "memory",
    "recall": "read",
    "list": "read",
    "show": "read",
    "forget": "memory",
    "where": "read",
    "status": "status",
    "reindex": "health",
    "doctor": "health",
    "project": "project",
    "init": "project",
    "unproject": "project",
    "setup": "setup",
    "uninstall": "uninstall",
    "watch": "watch",
    "explain": "explain",
    "adapter": "adapter",
    "vault": "vault",
    "sync": "sync",
    "team": "team",
}
_ROOT_FLAGS = frozenset({"--version"})


def _register(argv: Sequence[str] | None = None) -> None:
    """Import the modules declaring the command ``argv`` invokes (every module when ``argv``
    is None or names no known command: help, completion and "No such command" need all)."""
    import importlib
    import os

    from coffer.cli import _coercion

    _coercion.install()
    word = (
        _command_word(argv) if argv is not None and not os.environ.get("_COFFER_COMPLETE") else None
    )
    modules = [COMMANDS[word]] if word in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(f"coffer.cli.{module}")
    if "vault" in modules:
        from coffer.cli import vault as _vault

        if not any(group.typer_instance is _vault.app for group in app.registered_groups):
            app.add_typer(_vault.app, name="vault")
    order = list(COMMANDS)
    app.registered_commands.sort(key=lambda c: order.index(_name(c.name, c.callback)))
    app.registered_groups.sort(key=lambda g: order.index(g.name or ""))
    _unwrap_help(app)


def _command_word(argv: Sequence[str]) -> str | None:
    # The first word that is not a root option; root options take no values, so nothing
    # else can stand before the command name.
    for word in argv:
        if word in _ROOT_FLAGS:
            continue
        return None if word.startswith("-") else word
    return None


def _name(name: str | None, callback: object) -> str:
    return name or getattr(callback, "__name__", "").replace("_", "-")


def _unwrap(text: str | None) -> str | None:
    # Docstrings are wrapped to fit the source; typer keeps those line breaks and the
    # terminal wraps again, which breaks sentences mid-line. One line per paragraph.
    if not text:
        return text
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


def _unwrap_help(typer_app: typer.Typer) -> None:
    for command in typer_app.registered_commands:
        command.help = _unwrap(command.help or inspect.getdoc(command.callback))
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _unwrap_help(group.typer_instance)


def run(argv: Sequence[str]) -> int:
    """Run the CLI and map errors to exit codes: CofferError 1, usage 2, Ctrl-C 130."""
    _register(argv)
    fresh_app()
    try:
        # Standalone mode: typer prints usage errors itself (exit 2) and turns Ctrl-C into
        # exit 130; our own errors pass through untouched and are mapped here, once.
        app(args=list(argv), prog_name="coffer", standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except CofferError as exc:
        return report_error(exc, options_of(argv) if isinstance(exc, NotAProjectError) else set())
    except KeyboardInterrupt:
        print("coffer: interrupted", file=sys.stderr)
        return 130
    return 0


def options_of(argv: Sequence[str]) -> set[str]:
    """Every option name the command ``argv`` invokes accepts (empty if it names none)."""
    import typer.main

    command = typer.main.get_command(app)
    for word in argv:
        if word.startswith("-"):
            continue
        sub = getattr(command, "commands", {}).get(word)
        if sub is None:
            break
        command = sub
    return {name for p in command.params for name in getattr(p, "opts", ())}
