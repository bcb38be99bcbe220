"""The read-only commands and `coffer project` without typer, in the forms agents and
people type.

Importing typer costs about four times a bare ``python -c pass`` (docs/adr/0023), more than
`coffer where` itself. So ``coffer.main`` first offers the arguments to :func:`run`: a
command below (the read commands, and `coffer project` as the session-start hook runs it)
with only the options listed, each once, with well-formed values, runs here and prints
through the same functions as its typer command (coffer.cli.reading, coffer.cli.hook).
Anything else — ``--help``, an unknown or repeated option, a value typer would refuse,
``--``, shell completion — returns None and typer handles it exactly as before, errors
included. tests/cli/test_quick.py checks the table against the typer commands and the
output of both.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

_SCOPES = ("project", "global")


# Plain classes, not dataclasses: this module is the start of every quick command, and
# importing dataclasses (with inspect) costs about half a `python -c pass` (docs/adr/0023).
class Parsed:
    """The options and arguments of one invocation, checked as typer would."""

    __slots__ = ("args", "flags", "values")

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.flags: set[str] = set()
        self.args: list[str] = []

    @property
    def project(self) -> Path | None:
        value = self.values.get("--project")
        return Path(value) if value is not None else None

    @property
    def json(self) -> bool:
        return "--json" in self.flags


class Spec(NamedTuple):
    """One command: its words, options taking a value, flags, positional arguments."""

    values: frozenset[str]
    flags: frozenset[str]
    args: int
    run: Callable[[Parsed], int]
    required: frozenset[str] = frozenset()  # flags that must be given (watch --status)

    @property
    def options(self) -> set[str]:
        return set(self.values | self.flags)


def _where(p: Parsed) -> int:
    from coffer.cli import reading

    return reading.where(p.project, p.json)


def _list(p: Parsed) -> int:
    from coffer.cli import reading

    return reading.list_entries(p.values.get("--scope"), p.project, p.json)


def _show(p: Parsed) -> int:
    from coffer.cli import reading

    return reading.show(p.args[0], p.values.get("--scope"), p.project, p.json)


def _recall(p: Parsed) -> int:
    from coffer.cli import reading

    limit = int(p.values.get("--limit", "10"))
    return reading.recall(p.args[0], p.values.get("--scope"), limit, p.project, p.json)


def _watch_status(p: Parsed) -> int:
    from coffer.cli import reading

    return reading.watch_status(p.json)


def _adapter_list(p: Parsed) -> int:
    from coffer.cli import reading

    return reading.adapter_list(p.project, p.json, "--all" in p.flags)


def _status(p: Parsed) -> int:
    from coffer.cli import reading

    return reading.status(p.project, p.json)


def _project(p: Parsed) -> int:
    from coffer.cli import hook
    from coffer.cli._out import project_path

    run = hook.Run(
        project_path(p.project),
        quiet=bool(p.flags & {"--quiet", "-q"}),
        dry_run="--dry-run" in p.flags,
        replace_edited="--replace-edited" in p.flags,
        resume="--resume" in p.flags,
        for_agent=p.values.get("--for"),
        hook="--hook" in p.flags,
    )
    return hook.start(run, p.values.get("--git-block"))


_READ = frozenset({"--scope", "--project"})
# `coffer project`'s switches; typer reads `-q` and `--quiet` as one (either, or both).
_PROJECT_FLAGS = frozenset({"--quiet", "-q", "--dry-run", "--replace-edited", "--resume", "--hook"})
_JSON = frozenset({"--json"})
COMMANDS: dict[tuple[str, ...], Spec] = {
    ("where",): Spec(frozenset({"--project"}), _JSON, 0, _where),
    ("list",): Spec(_READ, _JSON, 0, _list),
    ("show",): Spec(_READ, _JSON, 1, _show),
    ("recall",): Spec(_READ | {"--limit"}, _JSON, 1, _recall),
    ("watch",): Spec(frozenset(), _JSON | {"--status"}, 0, _watch_status, frozenset({"--status"})),
    ("adapter", "list"): Spec(frozenset({"--project"}), _JSON | {"--all"}, 0, _adapter_list),
    ("status",): Spec(frozenset({"--project"}), _JSON, 0, _status),
    # The session-start hook's full path (the no-op one never gets here: coffer.main).
    ("project",): Spec(
        frozenset({"--for", "--git-block", "--project"}), _PROJECT_FLAGS, 0, _project
    ),
}


def run(argv: Sequence[str]) -> int | None:
    """The exit code of ``argv`` run here, or None: typer must run it."""
    if os.environ.get("_COFFER_COMPLETE"):
        return None
    for words, spec in COMMANDS.items():
        if tuple(argv[: len(words)]) == words:
            parsed = parse(spec, argv[len(words) :])
            return None if parsed is None else _call(spec, parsed)
    return None


def parse(spec: Spec, argv: Sequence[str]) -> Parsed | None:
    """``argv`` (after the command words) as typer would read it, or None when unsure."""
    parsed = Parsed()
    words = iter(argv)
    for word in words:
        name, eq, inline = word.partition("=")
        if not word.startswith("-"):
            parsed.args.append(word)
        elif word in spec.flags and word not in parsed.flags:
            parsed.flags.add(word)
        elif name in spec.values and name not in parsed.values:
            value = inline if eq else next(words, None)
            if value is None or not _valid(name, value):
                return None
            parsed.values[name] = value
        else:
            return None  # --help, `--`, an unknown or repeated option: typer's to handle
    if len(parsed.args) != spec.args or not spec.required <= parsed.flags:
        return None
    return parsed


def _valid(option: str, value: str) -> bool:
    if not value or value.startswith("-"):
        return False
    if option == "--scope":
        return value in _SCOPES
    if option == "--git-block":
        return value in ("hide", "commit")
    if option == "--limit":
        # [1-9][0-9]{0,17}: what converts to an int without a doubt
        return len(value) <= 18 and value.isascii() and value.isdigit() and value[0] != "0"
    return True


def _call(spec: Spec, parsed: Parsed) -> int:
    from coffer.base.errors import CofferError
    from coffer.cli._out import fresh_app

    fresh_app()
    try:
        return spec.run(parsed)
    except CofferError as exc:
        from coffer.cli._out import report_error

        return report_error(exc, spec.options)
    except KeyboardInterrupt:
        print("coffer: interrupted", file=sys.stderr)
        return 130
