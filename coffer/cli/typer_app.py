"""The typer app: every command, loaded lazily by name; errors mapped to exit codes."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
import typer.core

from coffer.base.errors import CofferError, NotAProjectError
from coffer.cli._out import echo, fresh_app, report_error

app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # --install-completion / --show-completion. They cost ~0.2 ms when the command tree is
    # built, and `coffer project` / `coffer vault` never build it (coffer.main dispatches
    # them first), so session starts do not pay even that (docs/adr/0016).
    add_completion=True,
    help="Keep one memory store; project it into every coding agent.",
    epilog="Exit codes: 0 done; 1 an error (one `coffer: error:` line says why); 2 a usage "
    "error; 3 `coffer watch --status`: the daemon is not running; 130 interrupted (Ctrl-C).",
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
    "history": "history",
    "restore": "history",
    "stale": "stale",
    "verify": "stale",
    "review": "review",
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
    "ui": "ui",
    "adapter": "adapter",
    "vault": "vault",
    "sync": "sync",
    "team": "team",
}
_ROOT_FLAGS = frozenset({"--version"})


def register_commands(argv: Sequence[str] | None = None) -> None:
    """Import the modules declaring the command ``argv`` invokes (every module when ``argv``
    is None or names no known command: help, completion and "No such command" need all)."""
    import importlib
    import os

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
    from coffer.cli import _help

    for command in typer_app.registered_commands:
        command.help = _unwrap(command.help or inspect.getdoc(command.callback))
        if command.short_help is None and command.help:
            command.short_help = _help.summary(command.help)
        if command.cls in (None, typer.core.TyperCommand):
            command.cls = _help.Command
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            info = group.typer_instance.info
            text = group.help if isinstance(group.help, str) else info.help
            if isinstance(text, str) and not isinstance(group.short_help, str):
                group.short_help = _help.summary(_unwrap(text) or "")
            _unwrap_help(group.typer_instance)


def run(argv: Sequence[str]) -> int:
    """Run the CLI and map errors to exit codes: CofferError 1, usage 2, Ctrl-C 130.

    Every error prints as ``coffer: error: …``, click's usage errors too (docs/adr/0044):
    not standalone mode, where click would print its own ``Error: …`` block."""
    register_commands(argv)
    fresh_app()
    try:
        code = app(args=list(argv), prog_name="coffer", standalone_mode=False)
    except typer.TyperException as exc:  # click's errors (typer vendors click)
        ctx: Any = getattr(exc, "ctx", None)
        # Matched by name, as typer itself does: the class is not public.
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            # `coffer` (or `coffer adapter`) alone asks what there is: the help, exit 0.
            echo(ctx.get_help())
            return 0
        print(f"coffer: error: {exc.format_message()}", file=sys.stderr)
        if exc.exit_code == 2 and ctx is not None:  # a usage error
            print(f"Try '{ctx.command_path} --help' for help.", file=sys.stderr)
        return exc.exit_code
    except typer.Abort:
        print("coffer: aborted", file=sys.stderr)  # end of input at a prompt
        return 1
    except SystemExit as exc:  # shell completion, and commands that exit on their own
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except CofferError as exc:
        return report_error(exc, options_of(argv) if isinstance(exc, NotAProjectError) else set())
    except KeyboardInterrupt:
        print("coffer: interrupted", file=sys.stderr)
        return 130
    # A command's typer.Exit(n), or its return value (None: success).
    return code if isinstance(code, int) else 0


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
