"""What every command prints with, without typer: the quick path (coffer.cli.quick) and
the typer commands share these, so both print the same bytes."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.app import App
from coffer.base.errors import (
    CofferError,
    InvalidInputError,
    NotAProjectError,
    UnknownNameError,
    describe_os_error,
)
from coffer.secrets import redact

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, TextIO

    from coffer.base.report import Report
    from coffer.projection.engine import Engine
    from coffer.store import Found, Here, Scope, Store

# What typer's echo (click's) removes from text bound for a file or a pipe.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
_ASCII = ("ascii", "ansi_x3.4-1968", "us-ascii")


def echo(text: str = "", *, err: bool = False) -> None:
    """One line, as ``typer.echo`` writes it: ANSI codes dropped unless the stream is a
    terminal, flushed at once (so stdout and stderr interleave in order)."""
    stream: TextIO = sys.stderr if err else sys.stdout
    if (getattr(stream, "encoding", None) or "").lower() in _ASCII:
        # click re-wraps a stream misconfigured as ASCII; let it, rather than copy that.
        import typer

        typer.echo(text, err=err)
        return
    line = text + "\n"
    if not _isatty(stream):
        line = _ANSI.sub("", line)
    stream.write(line)
    stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except Exception:  # a closed or odd stream: not a terminal
        return False


_APP: App | None = None


def coffer_app() -> App:
    """This command's composition root (coffer.app): one store and one adapter load for
    the command, built on first use."""
    global _APP
    if _APP is None:
        _APP = App(os.environ)
    return _APP


def fresh_app() -> None:
    """Start a command with a new composition root (the CLI may run more than once in a
    process, with another environment each time)."""
    global _APP
    _APP = None


def store() -> Store:
    return coffer_app().store


def here(project: Path | None) -> Here:
    """Where the command runs (``--project`` or the cwd), resolved once (docs/adr/0026)."""
    return coffer_app().here(project_path(project))


def project_path(project: Path | None) -> Path:
    return (project or Path.cwd()).absolute()


def scope(value: str | None) -> Scope | None:
    if value is None:
        return None
    if value == "project":
        return "project"
    if value == "global":
        return "global"
    raise InvalidInputError(f"invalid scope {value!r}: use project or global")


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def redacted_json(value: Any) -> Any:
    """``value`` with every secret-shaped span in its strings replaced by ``[redacted …]``.

    Entries arrive through linked directories and synced folders, so a name, description or
    file name may hold a token the write gate never saw; what coffer prints (to a terminal or
    an agent reading its output) never repeats it, as doctor and watch do not.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redacted_json(k): redacted_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redacted_json(v) for v in value]
    return value


def found_json(found: Found, *, body: bool, score: bool = False) -> dict[str, Any]:
    """The shared entry view (coffer.store.views), redacted for printing."""
    from coffer.store.views import entry_json

    redacted: dict[str, Any] = redacted_json(entry_json(found, body=body, score=score))
    return redacted


def founds_json(listing: Iterable[Found], *, body: bool, score: bool = False) -> list[Any]:
    """:func:`found_json` of each entry of a listing (coffer.store.views.entries_json)."""
    from coffer.store.views import entries_json

    return [redacted_json(d) for d in entries_json(listing, body=body, score=score)]


def build_engine() -> Engine:
    """The projection engine over this environment's store, with the vault's handoffs."""
    return coffer_app().engine()


def print_report(report: Report, *, quiet: bool = False, dry_run: bool = False) -> None:
    """The one way a command prints a :class:`Report`: changes (planned ones with their
    diff) and notes on stdout unless ``quiet``; alerts and problems always, on stderr."""
    if dry_run:
        for c in report.changes:
            echo(c.line(planned=True))
            if c.diff:
                sys.stdout.write(str(c.diff))
    elif not quiet:
        for c in report.changes:
            echo(c.line())
    if not quiet:
        for n in report.notices:
            echo(f"note: {n}")
    for a in report.alerts:
        echo(named(a), err=True)
    for p in report.problems:
        echo(f"coffer: {p.line()}", err=True)


def say_errors(problems: Sequence[str], more: str) -> None:
    """Why a command exits 1, in the one error style, on stderr (so --json stays parseable)."""
    if problems:
        echo(f"coffer: error: {'; '.join(problems)} ({more})", err=True)


def named(alert: str) -> str:
    # Each line names coffer once: "coffer turned off …", never "coffer: coffer turned …".
    return alert if alert.startswith("coffer ") else f"coffer: {alert}"


def report_error(exc: CofferError, options: set[str]) -> int:
    """Print ``coffer: error: …`` and return the exit code: 2 for a name that matches nothing
    (`--agent vim` is a usage error, like `--scope team`), else 1. ``options`` are those of
    the command that failed: a missing project names only the ways out it has."""
    if isinstance(exc, NotAProjectError):
        exc = NotAProjectError(f"{exc}{_elsewhere(options)}")
    print(f"coffer: error: {exc}", file=sys.stderr)
    return 2 if isinstance(exc, UnknownNameError) else 1


def failure_message(exc: BaseException) -> str | None:
    """The one line for a failure of the machine or of its input, not of coffer (a full
    disk, a directory coffer may not read, bytes that are not UTF-8, SQLite refusing to
    write), or None for anything else: a bug keeps its traceback."""
    if isinstance(exc, OSError):
        return describe_os_error(exc)
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"a file is not valid UTF-8 ({exc.reason} at byte {exc.start}); coffer reads and "
            "writes UTF-8 text only"
        )
    if isinstance(exc, UnicodeEncodeError) and isinstance(exc.object, str):
        # Bytes that were not UTF-8 (a directory named in Latin-1) reached a file coffer
        # writes as UTF-8: show where, as Python would print the bytes.
        text = exc.object
        line = text[text.rfind("\n", 0, exc.start) + 1 :].split("\n", 1)[0].strip()[:120]
        shown = line.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        return (
            f"cannot write {shown!r}: it is not valid UTF-8, and coffer keeps names, paths and "
            "text as UTF-8 (rename the directory or convert the text)"
        )
    if isinstance(exc, UnicodeError):
        return f"text that is not valid UTF-8 ({exc}); coffer keeps text as UTF-8 only"
    if type(exc).__module__ == "sqlite3":  # sqlite3.Error, without importing sqlite3
        return f"the search cache failed: {exc}"
    return None


def report_failure(exc: BaseException) -> int | None:
    """Print ``coffer: error: …`` for :func:`failure_message`'s failures; exit code 1."""
    message = failure_message(exc)
    if message is None:
        return None
    print(f"coffer: error: {message}", file=sys.stderr)
    return 1


def _elsewhere(options: set[str]) -> str:
    # Name only the ways out this command has (issue 9: `coffer where` once suggested a
    # --scope it does not take).
    ways = []
    if "--project" in options:
        ways.append("pass --project PATH")
    if "--scope" in options:
        ways.append("add --scope global for the global tier")
    elif "--global" in options:
        ways.append("add --global for the global tier")
    return f" (or {', or '.join(ways)})" if ways else ""
