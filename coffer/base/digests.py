"""SHA-256, without OpenSSL's start-up (docs/adr/0023).

``hashlib`` loads OpenSSL's libcrypto on import, about 11 million instructions (4 ms): more
than a fifth of a bare interpreter start, paid by every command that renders a block or
reads the journal, for hashes of a few kilobytes. CPython's own SHA-256 (``_sha2`` from
3.12, ``_sha256`` before) is in the interpreter already and gives the same digests; a build
without it falls back to ``hashlib``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same interface; typeshed describes only hashlib's
    from hashlib import sha256
else:
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:  # a CPython built without its own hashes
        from hashlib import sha256


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of ``data``, as ``hashlib.sha256(data).hexdigest()`` gives it."""
    return sha256(data).hexdigest()
