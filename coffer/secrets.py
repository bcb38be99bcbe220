"""Secret-shape detection, shared by the canonical store and the vault.

``REFERENCE_PATTERNS`` are the ``ecc.memory.v1`` patterns verbatim (the vault must match the
reference byte for byte, so they are compiled with ``re.ASCII`` exactly as its spec says).
The store adds a few more shapes on top; a false positive costs a rephrase, a false negative
puts a live credential into a file an agent may commit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SecretPattern = tuple[str, re.Pattern[str]]

REFERENCE_PATTERNS: tuple[SecretPattern, ...] = (
    ("provider API key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}\b", re.ASCII | re.IGNORECASE)),
    ("Stripe key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b", re.ASCII)),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{20,}\b", re.ASCII)),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{20,}\b", re.ASCII)),
    ("GitHub token", re.compile(r"\bgh[pors]_[A-Za-z0-9]{16,}\b", re.ASCII)),
    ("GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{16,}\b", re.ASCII)),
    ("Google API key", re.compile(r"\bAIza[A-Za-z0-9_-]{16,}\b", re.ASCII)),
    ("Slack token", re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b", re.ASCII)),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", re.ASCII)),
    ("private key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----", re.ASCII)),
)

STORE_PATTERNS: tuple[SecretPattern, ...] = (
    *REFERENCE_PATTERNS,
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b", re.ASCII)),
    (
        "JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", re.ASCII),
    ),
    ("bearer token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*", re.ASCII)),
    (
        "password in URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s:@]{3,}@", re.ASCII | re.IGNORECASE),
    ),
)


def find_secrets(text: str, patterns: Sequence[SecretPattern] = STORE_PATTERNS) -> list[str]:
    """Labels of the secret shapes found in ``text``, in pattern order, without duplicates.

    Only labels come back: callers must never echo the matched text.
    """
    labels: list[str] = []
    for label, pattern in patterns:
        if label not in labels and pattern.search(text):
            labels.append(label)
    return labels
