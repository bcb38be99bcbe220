"""ULID-shaped identifiers: 26 Crockford base32 characters (48-bit time, 80 random bits)."""

from __future__ import annotations

import os
import re
import time

GLOBAL_ID = "00000000000000000000000000"
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# [0-7] first: 26 base32 digits hold 130 bits, a ULID 128
_ID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", re.ASCII)


def new_id() -> str:
    """A fresh ULID (sortable by creation time)."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        value, rem = divmod(value, 32)
        chars.append(_ALPHABET[rem])
    return "".join(reversed(chars))


def is_id(text: str) -> bool:
    """Whether ``text`` is shaped like a coffer id."""
    return _ID.fullmatch(text) is not None
