"""The command line: typer declares every command (coffer.cli.typer_app); the commands run
most also have a typer-free quick path (coffer.cli.quick), both reading their options from
one declaration (coffer.cli.grammar, docs/adr/0050). No logic lives here: commands parse
options, call the core and print.

Nothing is imported here, so ``coffer.cli.quick`` can run without loading typer; the names
below resolve to :mod:`coffer.cli.typer_app` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


_LAZY = ("COMMANDS", "app", "options_of", "run", "_register")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from coffer.cli import typer_app

        return getattr(typer_app, name)
    raise AttributeError(f"module 'coffer.cli' has no attribute {name!r}")
