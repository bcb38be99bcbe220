"""coffer.base.digests gives hashlib's SHA-256 without loading OpenSSL, and the other
stdlib stand-ins on the start-up path keep the stdlib's results (docs/adr/0038)."""

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
        "from coffer.projection import managed_block\n"
        "from coffer.projection.journal import ledger as journal\n"
        "journal.sha256(b'x')\n"
        "print('_hashlib' in sys.modules, 'hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_now_iso_is_datetimes_form() -> None:
    import datetime

    from coffer.store.projects import now_iso

    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    stamp = now_iso()
    after = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    assert before <= datetime.datetime.fromisoformat(stamp) <= after
    assert len(stamp) == len(before.isoformat()) and stamp.endswith("+00:00")
