"""The one route into ``coffer vault``: the ecc memory CLI, without typer.

``coffer.main`` calls it before typer loads (the vault parses its own arguments, and its
messages must match ECC's byte for byte), and the typer sub-app in :mod:`coffer.cli.vault`
calls it for the same arguments. After a write, the vault's repo-local project scope is
kept out of ``git status`` (docs/adr/0040).
"""

from __future__ import annotations

_WRITES = (["init"], ["save"], ["handoff"])


def run(argv: list[str]) -> int:
    # Speaks as `coffer vault` (usage, error prefix); files and JSON are the reference's.
    from coffer.vault.cli import COFFER
    from coffer.vault.cli import run as _run

    code = _run(argv, program=COFFER)
    if code == 0 and argv[:1] in _WRITES:
        import os
        from pathlib import Path

        from coffer.app import App

        App(os.environ).vault_written(Path.cwd())
    return code
