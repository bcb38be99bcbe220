"""``coffer vault``: the ``ecc memory`` CLI (docs/vault-format.md §10) as a typer sub-app.

The reference's argument grammar cannot be expressed through click (``--`` would be eaten,
``-x`` bundled, ``--help`` intercepted), so :class:`VaultGroup` passes every argument after
``vault`` untouched to :func:`coffer.vault.cli.run`, which prints the exact reference text.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from coffer.cli.vault_run import run

_ARGV_KEY = "coffer.vault.argv"


class VaultGroup(TyperGroup):
    """Passes every argument after ``vault`` to :func:`run` untouched (§10.2)."""

    # typer vendors click (typer._click) and its Context is not public API, hence ``Any``.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_ARGV_KEY] = list(args)
        return []

    def invoke(self, ctx: Any) -> Any:
        # An exception, not a return value: in standalone mode click ignores the latter.
        raise typer.Exit(run(ctx.meta.get(_ARGV_KEY, [])))


app = typer.Typer(
    cls=VaultGroup,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="The ecc.memory.v1 vault shared with ECC (init, save, handoff, search, read, doctor).",
)

_RAW = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def _register(name: str, summary_text: str) -> None:
    # Declared so the sub-app lists its commands; VaultGroup routes the raw arguments, and a
    # direct call of a command still goes through the same parser.
    def command(ctx: typer.Context) -> None:
        raise typer.Exit(run([name, *ctx.args]))

    command.__doc__ = summary_text
    app.command(name, context_settings=_RAW)(command)


_register("init", "Create the project/team (or user) vault directories.")
_register("save", "Save an unreviewed memory (create-only).")
_register("handoff", "Save a handoff memory for other harnesses.")
_register("search", "Search memories with the reference's lexical ranking.")
_register("read", "Read one memory and its backlinks.")
_register("doctor", "Audit the vault for invalid files, duplicates and broken links.")
