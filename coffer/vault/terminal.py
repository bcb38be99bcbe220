"""The vault CLI's arguments and streams: the §10.2 parse and the §10.6 standard input
(docs/vault-format.md), apart from the commands that use them (coffer/vault/cli.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from coffer.vault.errors import VaultError, raw_os_error
from coffer.vault.io import decode_text
from coffer.vault.jscompat import encode_utf8
from coffer.vault.validate import MAX_BODY_BYTES

if TYPE_CHECKING:
    from typing import IO

_FLAGS = frozenset({"--help", "-h", "--json", "--stdin"})
_SINGLE = frozenset(
    {"--body-file", "--from", "--limit", "--source-harness", "--target-harness", "--title"}
)
_MULTI = frozenset({"--kind", "--link", "--scope", "--tag", "--target"})
_STDIN_WAIT_MS = 5_000
_STDIN_STEP_MS = 10


class Arguments:
    """The §10.2 parse of ``argv[1:]``."""

    def __init__(self, command: str, rest: Sequence[str]) -> None:
        self.command = command
        self.flags: set[str] = set()
        self.single: dict[str, str] = {}
        self.multi: dict[str, list[str]] = {}
        self.positionals: list[str] = []
        index = 0
        while index < len(rest):
            arg = rest[index]
            if arg in _FLAGS:
                self.flags.add(arg)
            elif arg in _SINGLE or arg in _MULTI:
                if index + 1 >= len(rest) or rest[index + 1].startswith("--"):
                    raise VaultError(f"{arg} requires a value.")
                index += 1
                if arg in _SINGLE:
                    self.single[arg] = rest[index]
                else:
                    self.multi.setdefault(arg, []).append(rest[index])
            elif arg.startswith("-"):
                raise VaultError(f"Unknown option: {arg}")
            else:
                self.positionals.append(arg)
            index += 1

    @property
    def json(self) -> bool:
        return "--json" in self.flags

    def scopes(self) -> list[str] | None:
        return self.multi.get("--scope")


def write(stream: IO[str], text: str) -> None:
    # Bytes, not the locale's text encoding: output is UTF-8 whatever LANG says, and a lone
    # surrogate becomes U+FFFD as in the reference's terminal output (Q9).
    data = encode_utf8(text)
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(data.decode("utf-8"))
        stream.flush()
        return
    stream.flush()
    buffer.write(data)
    buffer.flush()


def read_stdin(fd: int) -> str:
    """§10.6: at most 65 536 raw bytes, EAGAIN retried in 10 ms steps for 5 000 ms."""
    chunks: list[bytes] = []
    total = 0
    waited = 0
    while total <= MAX_BODY_BYTES:
        try:
            chunk = os.read(fd, 65_536)
        except BlockingIOError:
            if waited >= _STDIN_WAIT_MS:
                raise VaultError(
                    f"Standard input remained unavailable after {_STDIN_WAIT_MS}ms."
                ) from None
            time.sleep(_STDIN_STEP_MS / 1000)
            waited += _STDIN_STEP_MS
            continue
        except OSError as exc:
            raise raw_os_error(exc, "read", None) from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > MAX_BODY_BYTES:
        raise VaultError(f"memory body is too large (maximum {MAX_BODY_BYTES} bytes).")
    return decode_text(b"".join(chunks), "memory body from standard input")
