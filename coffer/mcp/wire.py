"""Newline-delimited JSON-RPC 2.0 on stdin/stdout, stdlib only (docs/adr/0028).

Both MCP servers (``coffer mcp`` and ``ecc-memory-mcp``) read their messages through an
:class:`Inbox` and write them with :func:`send`. Nothing here imports more than the standard
library: the SDK and pydantic cost a second of start-up, and an agent starts its MCP servers
at every session.

The framing follows the vault reference (docs/vault-format.md §11.1), which is also what the
MCP stdio transport asks for: one message per LF-terminated line, a line counted in bytes
without its LF, lines over :data:`MAX_LINE` bytes rejected and skipped up to the next LF.
A daemon thread reads stdin, so a server can wait for a client's answer with a timeout.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import IO, Any

MAX_LINE = 1_048_576
CHUNK = 65_536  # what Node reads from a pipe at once; the queue limits count per chunk
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass(frozen=True)
class Limits:
    """The reference's bound on waiting work (§11.1): past it, input is dropped until the
    queue drains, then the server says so once."""

    messages: int = 64
    bytes: int = 2_097_152


class Marker:
    """An event of the transport itself rather than a line."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


TOO_LARGE = Marker("too large")  # a line over MAX_LINE, already skipped
OVERFLOW = Marker("overflow")  # the queue limit was hit; input was dropped until now
FAILED = Marker("stream failed")  # reading stdin raised; no more input follows
TIMEOUT = Marker("timeout")  # Inbox.next: nothing arrived in time

Item = bytes | Marker


class Inbox:
    """Lines from a file descriptor, read by a daemon thread, handed out one at a time.

    The item :meth:`next` returned last is the one being handled; the others wait. With
    :class:`Limits`, a line that would make more than ``messages`` items or ``bytes`` bytes
    wait is dropped with the rest of its chunk, and so is every chunk until the waiting items
    are handed out; :meth:`next` then returns :data:`OVERFLOW` once (§11.1, Q11).
    """

    def __init__(self, fd: int, limits: Limits | None = None) -> None:
        self._fd = fd
        self._limits = limits
        self._cond = threading.Condition()
        self._items: deque[tuple[Item, int]] = deque()  # (item, bytes it counts; -1: in flight)
        self._waiting_bytes = 0
        self._busy = False  # the last item handed out is still being handled
        self._overflowed = False
        self._eof = False
        self._line = bytearray()
        self._skipping = False  # inside a line that was too large, up to its LF

    def start(self) -> Inbox:
        threading.Thread(target=self._read, name="mcp-stdin", daemon=True).start()
        return self

    # ---- the reading thread ----------------------------------------------------------

    def _read(self) -> None:
        try:
            while chunk := os.read(self._fd, CHUNK):
                with self._cond:
                    self._take_chunk(chunk)
                    self._cond.notify_all()
        except OSError:
            with self._cond:
                self._line.clear()
                self._items.append((FAILED, 0))
        with self._cond:
            if self._line and not self._skipping:
                self._admit(bytes(self._line))  # an unterminated last line is a line
            self._eof = True
            self._cond.notify_all()

    def _take_chunk(self, chunk: bytes) -> None:
        if self._overflowed:
            return  # dropped until the queue drains
        parts = chunk.split(b"\n")
        for i, part in enumerate(parts):
            complete = i < len(parts) - 1
            if self._skipping:
                self._skipping = not complete
                continue
            if len(self._line) + len(part) > MAX_LINE:
                self._line.clear()
                self._skipping = not complete
                if not self._admit(TOO_LARGE):
                    return
                continue
            self._line += part
            if complete:
                line = bytes(self._line)
                self._line.clear()
                if not self._admit(line):
                    return

    def _admit(self, item: Item) -> bool:
        size = len(item) if isinstance(item, bytes) else 0
        if not self._busy and not self._items:
            self._items.append((item, -1))  # handled at once: it never waits
            self._busy = True
            return True
        if self._limits is not None and self._over(self._limits, size):
            self._overflowed = True
            self._line.clear()
            self._skipping = False
            return False
        self._items.append((item, size))
        self._waiting_bytes += size
        return True

    def _over(self, limits: Limits, size: int) -> bool:
        waiting = sum(1 for _, counted in self._items if counted >= 0)
        return waiting + 1 > limits.messages or self._waiting_bytes + size > limits.bytes

    # ---- the handling thread ---------------------------------------------------------

    def next(self, timeout: float | None = None) -> Item | None:
        """The next line (without its LF) or marker; None once the input has ended."""
        with self._cond:
            if not self._items:
                self._busy = False
                if self._overflowed:
                    self._overflowed = False
                    return OVERFLOW
                if not self._cond.wait_for(lambda: self._items or self._eof, timeout):
                    return TIMEOUT
                if not self._items:
                    return None
            item, counted = self._items.popleft()
            self._waiting_bytes -= max(counted, 0)
            self._busy = True
            return item

    def settle(self) -> None:
        """The item handed out last is handled: with nothing waiting, the next line to
        arrive is handled at once rather than queued behind it."""
        with self._cond:
            if not self._items:
                self._busy = False

    def put_back(self, items: list[Item]) -> None:
        """Return items taken while waiting for something else, to be handled next."""
        with self._cond:
            self._items.extendleft((item, 0) for item in reversed(items))


# ---- messages ----------------------------------------------------------------------------


class ParseFailure(Exception):
    """The line is not one JSON value."""


def _reject_constant(name: str) -> Any:
    raise ParseFailure(name)  # NaN and Infinity are not JSON (Python accepts them)


def _parse_int(digits: str) -> int | float:
    # A JSON number is a double to JavaScript clients; int() refuses over 4300 digits.
    return int(digits) if len(digits) <= 4000 else float(digits)


def parse(line: bytes) -> Any:
    """The JSON value of one line: UTF-8 decoded leniently, one trailing CR dropped, parsed
    strictly (no NaN, no BOM). Raises :class:`ParseFailure`."""
    text = line.decode("utf-8", "replace").removesuffix("\r")
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except (ValueError, RecursionError) as exc:
        raise ParseFailure(str(exc)) from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(message: object) -> str:
    """Compact JSON, non-ASCII kept; a lone surrogate (from a ``\\udxxx`` escape in the
    input) written back as that escape, since it has no UTF-8 form (Q9)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def result(request_id: object, value: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class Output:
    """Writes one message per line to a binary stream, each flushed before the next."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, message: object) -> None:
        data = (dumps(message) + "\n").encode("utf-8")
        with self._lock:
            self._stream.write(data)
            self._stream.flush()


def guarded(serve: Callable[[], None]) -> int:
    """Run a server loop; the exit status. Ctrl-C ends it with 130 and a client that closed
    our stdout ends it quietly with 0, without a traceback on stderr either way."""
    try:
        serve()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Keep the interpreter's last flush of stdout from failing again at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


__all__ = [
    "FAILED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_LINE",
    "METHOD_NOT_FOUND",
    "OVERFLOW",
    "PARSE_ERROR",
    "TIMEOUT",
    "TOO_LARGE",
    "Inbox",
    "Item",
    "Limits",
    "Output",
    "ParseFailure",
    "dumps",
    "error",
    "guarded",
    "parse",
    "result",
]
