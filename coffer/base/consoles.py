"""Text streams under a legacy code page (Windows' cp1252, GBK): coffer reads and writes
UTF-8 through them without crashing on non-ASCII text (issue 27, docs/platforms.md).

Standard library only: ``coffer.main`` fits the streams before any command runs, the
session-start hook included.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def _legacy(stream: object) -> tuple[Callable[..., object], bool] | None:
    """``stream``'s ``reconfigure`` and whether it is a console, where it does not use
    UTF-8; None where nothing is to be fitted (UTF-8 already, closed, detached, absent)."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    reconfigure = getattr(stream, "reconfigure", None)
    if encoding in {"utf-8", "utf8"} or reconfigure is None:
        return None
    try:
        return reconfigure, bool(stream.isatty())  # type: ignore[attr-defined]
    except (OSError, ValueError):
        return None  # closed or detached: nothing will go through it


def fit_output_streams() -> None:
    """Keep non-ASCII text from crashing output under a legacy code page (cp1252, GBK):
    a pipe or file gets UTF-8, which every reader of coffer's output expects; a console
    keeps its code page, with what it cannot show replaced."""
    for stream in (sys.stdout, sys.stderr):
        fit = _legacy(stream)
        if fit is not None:
            reconfigure, console = fit
            reconfigure(**({"errors": "replace"} if console else {"encoding": "utf-8"}))


def fit_input_stream() -> None:
    """Read what a program pipes to coffer as the UTF-8 it is, under a legacy code page too
    (cp1252 would store it garbled, GBK refuse it). Bytes that are not UTF-8 arrive as lone
    surrogates, as on a UTF-8 system, so ``check_utf8`` names the byte. A console is left
    alone: Windows reads one through its own UTF-16 API, whatever the code page."""
    fit = _legacy(sys.stdin)
    if fit is not None and not fit[1]:
        fit[0](encoding="utf-8", errors="surrogateescape")
