"""coffer.base.digests gives hashlib's SHA-256 without loading OpenSSL (docs/adr/0023)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from coffer.base.digests import sha256_hex


@pytest.mark.parametrize("data", [b"", b"x", "ü—€".encode(), bytes(range(256)) * 1000])
def test_same_digest_as_hashlib(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_rendering_a_block_loads_no_openssl() -> None:
    code = (
        "import sys\n"
        "from coffer.projection import block_format, journal\n"
        "journal.sha256(b'x')\n"
        "print('_hashlib' in sys.modules, 'hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
