"""Secret detection for the vault (spec §5), on top of :mod:`coffer.secrets`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from coffer.secrets import REFERENCE_PATTERNS
from coffer.secrets import find_secrets as _find
from coffer.vault.errors import VaultError
from coffer.vault.jscompat import json_compact

# One pass that says "nothing here" for the common case; the per-pattern pass then runs
# only on a hit. Scoped (?i:...) keeps IGNORECASE on pattern 1 alone, as §5.1 requires.
_ANY = re.compile(
    "|".join(
        f"(?i:{pattern.pattern})" if pattern.flags & re.IGNORECASE else f"(?:{pattern.pattern})"
        for _, pattern in REFERENCE_PATTERNS
    ),
    re.ASCII,
)


def _maybe(text: str) -> bool:
    """Cheap, never-missing pre-check: every pattern needs one of these literals (pattern 1
    case-insensitively; ASCII-only folding matches nothing that lower() misses)."""
    return (
        "_live_" in text
        or "npm_" in text
        or "hf_" in text
        or "hp_" in text
        or "ho_" in text
        or "hr_" in text
        or "hs_" in text
        or "_pat_" in text
        or "AIza" in text
        or "xox" in text
        or "AKIA" in text
        or "ASIA" in text
        or "-----BEGIN " in text
        or "sk-" in text.lower()
    )


def _hit(text: str) -> bool:
    return _maybe(text) and _ANY.search(text) is not None


def find_secrets(text: object) -> list[str]:
    """§5.2: labels of the reference patterns found in ``text``, in pattern order."""
    if not isinstance(text, str) or not _hit(text):
        return []
    return _find(text, REFERENCE_PATTERNS)


def _labels_any(texts: Iterable[str]) -> list[str]:
    listed = [text for text in texts if _hit(text)]
    labels: list[str] = []
    for label, pattern in REFERENCE_PATTERNS:
        if label not in labels and any(pattern.search(text) for text in listed):
            labels.append(label)
    return labels


def scan_for_save(memory: Mapping[str, Any], *, reference: bool = False) -> None:
    """§5.3 (plus the Q1 deviation unless ``reference``): refuse a secret-bearing memory.

    The reference scans only the compact JSON, where a token right after LF/CR/TAB hides
    behind the escape's letter. By default the raw string fields are scanned too (Q1:
    "differ on write"); ``reference=True`` restores the exact reference behaviour.
    """
    texts = [json_compact(dict(memory))]
    if not reference:
        texts.append(memory["title"])
        texts.extend(memory["tags"])
        texts.extend(memory["targetHarnesses"])
        texts.append(memory["sourceHarness"])
        texts.append(memory["body"])
    labels = _labels_any(texts)
    if labels:
        raise VaultError(
            f"Refusing to save memory containing a suspected secret ({', '.join(labels)})."
        )


def is_quarantined(memory: Mapping[str, Any]) -> bool:
    """§5.4: the read-side scan, exactly the reference's (compact JSON only)."""
    return _hit(json_compact(memory))
