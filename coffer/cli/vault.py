"""``coffer vault``: the ``ecc memory`` CLI (docs/vault-format.md §10) as a typer sub-app.

The reference's argument grammar cannot be expressed through click (``--`` would be eaten,
``-x`` bundled, ``--help`` intercepted), so :class:`VaultGroup` passes every argument after
``vault`` untouched to :func:`coffer.app.run_vault`, which prints the exact reference text.
``coffer.main`` calls that same function before typer loads (the vault is on the session-start
path), so this sub-app only lists the vault in help and completion: its commands and their
one-line summaries come from the vault's own table, and its grammar is the reference's,
declared by coffer.vault.cli alone (docs/adr/0050).
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from coffer.app import run_vault as run
from coffer.vault.cli import COMMANDS

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
    help=f"The ecc.memory.v1 vault shared with ECC ({', '.join(COMMANDS)}).",
)

_RAW = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def _register(name: str, summary_text: str) -> None:
    # Listed for help and completion; VaultGroup routes the raw arguments, and a direct
    # call of a command still goes to the same function.
    def command(ctx: typer.Context) -> None:
        raise typer.Exit(run([name, *ctx.args]))

    command.__doc__ = summary_text
    app.command(name, context_settings=_RAW)(command)


for _name, _summary in COMMANDS.items():
    _register(_name, _summary)
