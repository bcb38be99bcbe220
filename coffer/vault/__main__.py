"""``python -m coffer.vault <command> ...``: the vault CLI without typer's start-up cost."""

from __future__ import annotations

import sys

from coffer.vault.cli import run

raise SystemExit(run(sys.argv[1:]))
