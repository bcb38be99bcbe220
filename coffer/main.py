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
            if fastpath.unchanged(args, os.environ, os.getcwd()):
                raise SystemExit(0)
        except OSError:
            pass  # any doubt: take the full path
    from coffer.cli import run

    raise SystemExit(run(args))
