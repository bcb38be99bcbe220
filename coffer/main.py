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
    from coffer.base.consoles import fit_input_stream, fit_output_streams

    fit_output_streams()
    fit_input_stream()
    try:
        try:
            _dispatch(list(sys.argv[1:] if argv is None else argv))
        finally:
            sys.stdout.flush()  # a closed pipe shows here, while it can still be handled
    except BrokenPipeError:
        # The reader went away (`coffer list | head -1`): end quietly, as Unix tools do,
        # and keep the interpreter's final flush from printing a traceback. Exit 1, as
        # typer does for the commands it runs.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(1) from None
    except Exception as exc:
        # A full disk, a store directory coffer may not read, bytes that are not UTF-8:
        # one `coffer: error: …` line, never a traceback (docs/adr/0044). Imported only
        # here, so a run that does not fail pays nothing.
        from coffer.cli._out import report_failure

        code = report_failure(exc)
        if code is None:
            raise
        raise SystemExit(code) from None


def _dispatch(args: list[str]) -> None:
    if args == ["--version"]:
        # What typer's eager --version prints, without typer's ~50 ms start-up (ADR 0023).
        from coffer import __version__

        sys.stdout.write(f"coffer {__version__}\n")
        raise SystemExit(0)
    if args[:1] == ["project"]:
        from coffer.projection import fastpath

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
        from coffer.app import run_vault

        raise SystemExit(run_vault(args[1:]))
    if args == ["mcp"]:
        # Agents start it at every session: no typer, no SDK, answer initialize at once
        # (ADR 0028). `coffer mcp --help` still goes through typer.
        from coffer.mcp.server import run as run_mcp

        raise SystemExit(run_mcp(os.environ))
    # The everyday commands in their plain forms skip typer's start-up (ADR 0050).
    from coffer.cli import quick

    code = quick.run(args)
    if code is not None:
        raise SystemExit(code)
    from coffer.cli.typer_app import run

    raise SystemExit(run(args))
