"""``redact_each`` (a listing's texts screened together) answers as ``redact`` of each."""

from __future__ import annotations

from coffer.secrets import redact, redact_each

# Built by concatenation so no scanner flags this file (as tests/secrets/test_shapes.py).
_PW = "Xk29pLmq" + "7TzR"
SECRETS = [
    "machine api.example.com login alice password " + _PW,
    "redis://:" + _PW + "@cache.internal:6379/0",
    "whsec_" + "MfKQ9r8GKYqrTwjU" + "PD8ILPZIo2LaLaSw",
    "GOCSPX-" + "1mVtq9tPGeRg3J0u" + "UdaZ4xT7LkYa",
    "token: ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "AKIA" + "IOSFODNN7EXAMPLE",
]
BENIGN = ["deploy-notes", "-", "retry the staging deploy twice", "the auth token is in the vault"]


def test_each_text_as_redact_leaves_it() -> None:
    texts = [*BENIGN, *SECRETS, ""]
    expected = [redact(text) for text in texts]
    assert redact_each(texts) == expected
    assert sum(a != b for a, b in zip(texts, expected, strict=True)) == len(SECRETS)


def test_a_listing_without_secrets_comes_back_as_it_was() -> None:
    assert redact_each(BENIGN) == BENIGN
    assert redact_each([]) == []
