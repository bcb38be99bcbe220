"""Console entry point.

Stays stdlib-only at import time: ``coffer project`` runs at every agent session start and
its no-op path must not pay for typer, yaml or entry-point discovery (docs/adr/0004).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Run coffer with ``argv`` (default: ``sys.argv[1:]``); exits with the command's code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["project"]:
        from coffer import fastpath

        try:
            output = fastpath.unchanged(args, os.environ, os.getcwd())
        except OSError:
            output = None  # any doubt: take the full path
        if output is not None:
            sys.stdout.write(output)
            raise SystemExit(0)
    if args[:1] == ["vault"]:
        # The vault parses its own arguments (its messages must match ECC's byte for
        # byte), so it skips typer and its ~150 ms of start-up entirely.
        from coffer.vault.cli import COFFER
        from coffer.vault.cli import run as run_vault

        raise SystemExit(run_vault(args[1:], program=COFFER))
    from coffer.cli import run

    raise SystemExit(run(args))
