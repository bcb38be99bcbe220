"""Secret detection for the vault (docs/vault-format.md §5), on top of :mod:`coffer.secrets`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from coffer.secrets import REFERENCE_PATTERNS, STORE_PATTERNS
from coffer.secrets import find_secrets as _find
from coffer.vault.errors import VaultError
from coffer.vault.jscompat import json_compact

if TYPE_CHECKING:
    from typing import Any

# One pass that says "nothing here" for the common case; the per-pattern pass then runs
# only on a hit. Scoped (?i:...) keeps IGNORECASE on pattern 1 alone, as §5.1 requires.
_ANY = re.compile(
    "|".join(
        f"(?i:{pattern.pattern})" if pattern.flags & re.IGNORECASE else f"(?:{pattern.pattern})"
        for _, pattern in REFERENCE_PATTERNS
    ),
    re.ASCII,
)


# Every literal that ends with "_" (patterns 2-6); the rest are tested with `in` below.
_UNDERSCORE_LITERALS = ("_live_", "npm_", "hf_", "hp_", "ho_", "hr_", "hs_", "_pat_")


def _maybe(text: str) -> bool:
    """Cheap, never-missing pre-check: every pattern needs one of these literals (pattern 1
    case-insensitively; ASCII-only folding matches nothing that lower() misses).

    The underscore literals are found from the few "_" in a text (ids hold two) rather than
    with eight whole-text searches: half the cost of this check on a typical memory.
    """
    at = text.find("_")
    while at >= 0:
        if text.endswith(_UNDERSCORE_LITERALS, 0, at + 1):
            return True
        at = text.find("_", at + 1)
    return (
        "AIza" in text
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
    behind the escape's letter, and knows ten shapes. By default the raw string fields are
    scanned too (Q1: "differ on write"), and with coffer's whole gate (JWTs, passwords,
    AWS secret keys, … — docs/adr/0018): refusing more on write produces no file the
    reference would read differently. Whenever the reference patterns find something, the
    message names exactly their labels, so it stays the reference's. ``reference=True``
    restores the exact reference behaviour.
    """
    texts = [json_compact(dict(memory))]
    if not reference:
        texts.append(memory["title"])
        texts.extend(memory["tags"])
        texts.extend(memory["targetHarnesses"])
        texts.append(memory["sourceHarness"])
        texts.append(memory["body"])
    labels = _labels_any(texts)
    if not labels and not reference:
        found = [label for text in texts for label in _find(text)]
        # coffer's own labels in pattern order, then gitleaks' rule ids (docs/adr/0042).
        order = {label: at for at, (label, _) in enumerate(STORE_PATTERNS)}
        labels = sorted(dict.fromkeys(found), key=lambda label: order.get(label, len(order)))
    if labels:
        raise VaultError(
            f"Refusing to save memory containing a suspected secret ({', '.join(labels)})."
        )


def _raw_text(memory: Mapping[str, Any]) -> str | None:
    """Keys and string values joined by NUL; None if a value is not a string or string list."""
    parts: list[Any] = list(memory)
    for value in memory.values():
        if type(value) is str:
            parts.append(value)
        elif type(value) is list:
            parts.extend(value)
        else:
            return None
    try:
        return "\x00".join(parts)
    except TypeError:  # a key or list item that is not a string
        return None


def is_quarantined(memory: Mapping[str, Any]) -> bool:
    """§5.4: the read-side scan, exactly the reference's (compact JSON only).

    The compact JSON is built only when the raw strings hold a literal of :func:`_maybe`.
    That pre-check is exact: no literal contains a JSON structural character, a quote or a
    backslash, so an occurrence in the JSON text lies inside one key or one escaped value,
    and escaping adds only a backslash plus one of ``n r t b f u " \\`` or lowercase hex
    digits. The only literal that can start with such a letter is ``npm_``, after the
    ``\\n`` of a line feed (R1), hence the second test.
    """
    raw = _raw_text(memory)
    if raw is not None and "\npm_" not in raw and not _maybe(raw):
        return False
    return _hit(json_compact(memory))
