"""The secret gate, shared by the canonical store and the vault (docs/adr/0018, 0042).

Two rule sources. :mod:`coffer.secrets.patterns` holds coffer's own shapes
(``REFERENCE_PATTERNS``, the ``ecc.memory.v1`` ones verbatim; ``STORE_PATTERNS``, their
superset with the shapes gitleaks lacks). :mod:`coffer.secrets.gitleaks` runs gitleaks' whole
default rule set, vendored. Every coffer write and render goes through both
(``STORE_PATTERNS`` as the argument means "the whole gate"); the vault's reference mode uses
``REFERENCE_PATTERNS`` alone. Each pattern and rule is compiled the first time a text holds
one of its literals or keywords, so a command that prints a few names pays for a few.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from coffer.secrets.patterns import (
    ALL_LITERALS,
    ASSIGNED_SECRET,
    LITERALS,
    REFERENCE_PATTERNS,
    STORE_PATTERNS,
    SecretPattern,
)

__all__ = [
    "REFERENCE_PATTERNS",
    "STORE_PATTERNS",
    "SecretPattern",
    "find_secrets",
    "find_secrets_any",
    "redact",
    "redact_each",
    "visible",
]


def find_secrets(text: str, patterns: Sequence[SecretPattern] = STORE_PATTERNS) -> list[str]:
    """Labels of the secret shapes found in ``text``, in pattern order, without duplicates.

    Only labels come back: callers must never echo the matched text.
    """
    if patterns is STORE_PATTERNS and len(text) <= _CACHED_LENGTH:
        return list(_store_labels(text))
    return _find(text, patterns)


# One projection gates each entry twice (its block, then MEMORY.md): remember short texts.
_CACHED_LENGTH = 8192


@functools.lru_cache(maxsize=2048)
def _store_labels(text: str) -> tuple[str, ...]:
    return tuple(_find(text, STORE_PATTERNS))


def _find(text: str, patterns: Sequence[SecretPattern]) -> list[str]:
    texts = [text]
    if _has_invisible(text):
        # A token split by a NUL, a zero-width or bidi character or a lone surrogate reads
        # whole to an agent, and renderers drop some of these: scan it with them removed too.
        texts.append(visible(text))
    return find_secrets_any(texts, patterns)


def _gitleaks_labels(texts: Iterable[str], labels: list[str]) -> None:
    """Append the ids of the gitleaks rules that find a secret in any of ``texts``."""
    from coffer.secrets.gitleaks import default_rules

    rules = default_rules()
    for text in texts:
        for label in rules.labels(text):
            if label not in labels:
                labels.append(label)


def find_secrets_any(
    texts: Iterable[str], patterns: Sequence[SecretPattern] = STORE_PATTERNS
) -> list[str]:
    """Labels found in any of ``texts`` (each scanned on its own), in pattern order."""
    listed = []
    for text in texts:
        # Which literals occur, once per text; each pattern then costs one set operation
        # unless one of its literals is there.
        listed.append((text, _present(text)))
    labels: list[str] = []
    for label, pattern in patterns:
        if label in labels:
            continue
        literals = LITERALS.get(pattern)
        for text, present in listed:
            if literals and literals.isdisjoint(present):
                continue
            if pattern is ASSIGNED_SECRET and not _assignment_near_keyword(text):
                continue
            if pattern.search(text):
                labels.append(label)
                break
    if patterns is STORE_PATTERNS and not labels:
        # gitleaks' rules only when coffer's own found nothing: the message then names one
        # family ("JSON Web Token", not also "jwt"), and a refused text costs no more.
        _gitleaks_labels([text for text, _ in listed], labels)
    return labels


# The assignment rule's keyword, followed within 40 characters by ``=`` or ``:``. That
# rule's own pattern has no literal prefix, so ``re`` tries it at every position; this one
# starts with literals and rules most text out at a fraction of the cost.
_NEAR_KEYWORD = re.compile(r"(?:passw|secret|token|key|credential|creds)[\s\S]{0,39}?[=:]")


def _assignment_near_keyword(text: str) -> bool:
    """Whether some credential keyword is followed, within 40 characters, by ``=`` or ``:``."""
    return _NEAR_KEYWORD.search(text.lower()) is not None


# C0/C1 controls other than TAB/LF/CR, format characters (zero-width, bidi, soft hyphen,
# BOM) and surrogates: characters nobody sees.
_INVISIBLE_CLASS = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_INVISIBLE = re.compile(_INVISIBLE_CLASS)


def _has_invisible(text: str) -> bool:
    return _INVISIBLE.search(text) is not None


def visible(text: str) -> str:
    """``text`` without the characters nobody sees (see ``_INVISIBLE_CLASS``) and other
    format characters (Unicode category Cf)."""
    text = _INVISIBLE.sub("", text)
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def redact(text: str, patterns: Sequence[SecretPattern] = STORE_PATTERNS) -> str:
    """``text`` with every secret-shaped span replaced by ``[redacted <label>]``.

    For messages that must name something (a file whose name holds a token): the reader can
    still tell which file is meant, and the credential is never printed or logged.
    """
    present = _present(text)
    for label, pattern in patterns:
        literals = LITERALS.get(pattern)
        if literals and literals.isdisjoint(present):
            continue  # no match can lack all of its literals: skip compiling it
        replaced = pattern.sub(f"[redacted {label}]", text)
        if replaced != text:
            text, present = replaced, _present(replaced)
    if patterns is STORE_PATTERNS:
        text = _redact_gitleaks(text)
    return text


def redact_each(texts: Sequence[str]) -> list[str]:
    """``redact`` of each of ``texts`` (the whole gate), screened together.

    The literals and keywords of the joined texts choose the patterns and rules any of them
    can wake; each text is searched with those few, and only one they find something in is
    redacted as ``redact`` does it. A listing of 10,000 entries costs a screen, not 30,000.
    """
    from coffer.secrets.gitleaks import default_rules

    joined = "\n".join(texts)
    present = _present(joined)
    woken = [
        pattern
        for _, pattern in STORE_PATTERNS
        if not (literals := LITERALS.get(pattern)) or not literals.isdisjoint(present)
    ]
    rules = default_rules()
    woken_rules = list(rules.candidates(joined))
    return [
        redact(text)
        if any(p.search(text) for p in woken) or rules.findings(text, woken_rules)
        else text
        for text in texts
    ]


def _redact_gitleaks(text: str) -> str:
    from coffer.secrets.gitleaks import default_rules

    # Longest first, so a span inside another one is replaced with it; then from the end,
    # so earlier offsets stay valid.
    spans = sorted(default_rules().findings(text), key=lambda f: (f[1], -f[2]))
    kept: list[tuple[str, int, int]] = []
    for finding in spans:
        if kept and finding[1] < kept[-1][2]:
            continue  # overlaps the one before
        kept.append(finding)
    for rule_id, start, end in reversed(kept):
        text = f"{text[:start]}[redacted {rule_id}]{text[end:]}"
    return text


def _present(text: str) -> set[str]:
    """The screening literals that occur in ``text`` (substring tests run in C)."""
    lowered = text.lower()
    return {lit for lit in ALL_LITERALS if lit in lowered}
