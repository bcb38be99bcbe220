"""Reading an open file without trusting what it says of its size: a file can grow between
``fstat`` and ``read``, and a hostile one (a team file, a vault file) can be any size."""

from __future__ import annotations

import os


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of ``fd``: more than ``limit`` back means the file is over
    the limit, and the caller refuses it without having read the rest."""
    chunks: list[bytes] = []
    got = 0
    while got <= limit:
        chunk = os.read(fd, limit + 1 - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
