"""The commands people and agents run most, without typer, in the forms they type them.

Importing typer costs about four times a bare ``python -c pass``, which would put `coffer
recall`, `adapter list`, `status`, `explain`, `doctor` and `remember` over their budget of
ten (docs/adr/0050). So ``coffer.main`` first offers the arguments to :func:`run`: a
command below, with only its options (coffer.cli.grammar, the declaration typer reads too),
each once (unless it may be repeated), with well-formed values, runs here through the same
function as its typer command. Anything else — ``--help``, an unknown or repeated option, a
value typer would refuse, ``--``, shell completion — returns None and typer handles it
exactly as before, errors included.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from coffer.cli.grammar import OPTIONS, Option


class Quick(NamedTuple):
    """A command's runner (``coffer.cli.<module>.<name>``): its parameters are the
    command's options and arguments (coffer.cli.grammar)."""

    module: str
    name: str
    # Options that must be given and pick this form of the command (`watch --status`);
    # the runner does not take them.
    required: tuple[str, ...] = ()

    def runner(self) -> Callable[..., int]:
        found: Callable[..., int] = getattr(
            importlib.import_module(f"coffer.cli.{self.module}"), self.name
        )
        return found

    def options(self, params: Sequence[str]) -> dict[str, Option]:
        return {p: OPTIONS[p] for p in (*params, *self.required) if p in OPTIONS}


COMMANDS: dict[tuple[str, ...], Quick] = {
    ("where",): Quick("reading", "where"),
    ("list",): Quick("reading", "list_entries"),
    ("show",): Quick("reading", "show"),
    ("recall",): Quick("reading", "recall"),
    ("watch",): Quick("reading", "watch_status", required=("status",)),
    ("adapter", "list"): Quick("reading", "adapter_list"),
    ("status",): Quick("reading", "status"),
    ("explain",): Quick("explaining", "explain"),
    ("doctor",): Quick("upkeep", "doctor"),
    ("remember",): Quick("writing", "remember"),
    # The session-start hook's full path (the no-op one never gets here: coffer.main).
    ("project",): Quick("hook", "command"),
}


def params_of(runner: Callable[..., int]) -> tuple[str, ...]:
    """The runner's parameter names, without inspect (about half a `python -c pass`)."""
    code = runner.__code__
    names: tuple[str, ...] = code.co_varnames[: code.co_argcount]
    return names


def run(argv: Sequence[str]) -> int | None:
    """The exit code of ``argv`` run here, or None: typer must run it."""
    if os.environ.get("_COFFER_COMPLETE"):
        return None
    for words, quick in COMMANDS.items():
        if tuple(argv[: len(words)]) == words:
            runner = quick.runner()
            params = params_of(runner)
            kwargs = parse(quick, params, argv[len(words) :])
            if kwargs is None:
                return None
            names = {w for o in quick.options(params).values() for w in o.words()}
            return _call(runner, kwargs, names)
    return None


def parse(quick: Quick, params: Sequence[str], argv: Sequence[str]) -> dict[str, Any] | None:
    """The runner's arguments from ``argv`` (after the command words), read as typer would
    read them, or None when unsure."""
    options = quick.options(params)
    words = {w: (p, v) for p, o in options.items() for w, v in o.words().items()}
    values: dict[str, Any] = {}
    args: list[str] = []
    rest = iter(argv)
    for word in rest:
        name, eq, inline = word.partition("=")
        if word == "-" or not word.startswith("-"):  # `-` is an argument (stdin), as for click
            args.append(word)
            continue
        param, value = words.get(name, (None, None))
        if param is None or (param in values and not options[param].multiple):
            return None  # --help, `--`, an unknown or repeated option: typer's to handle
        option = options[param]
        if option.flag:
            if eq:
                return None
        else:
            value = inline if eq else next(rest, None)
            if value is None or not option.accepts(value):
                return None
            value = option.convert(value)
        if option.multiple:
            values.setdefault(param, []).append(value)
        else:
            values[param] = value
    arguments = [p for p in params if p not in OPTIONS]
    if len(args) != len(arguments) or not all(r in values for r in quick.required):
        return None
    found = {p: values.get(p, OPTIONS[p].default) for p in params if p in OPTIONS}
    return found | dict(zip(arguments, args, strict=True))


def _call(runner: Callable[..., int], kwargs: dict[str, Any], options: set[str]) -> int:
    from coffer.base.errors import CofferError
    from coffer.cli._out import fresh_app

    fresh_app()
    try:
        return runner(**kwargs)
    except CofferError as exc:
        from coffer.cli._out import report_error

        return report_error(exc, options)
    except KeyboardInterrupt:
        print("coffer: interrupted", file=sys.stderr)
        return 130
