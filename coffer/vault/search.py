"""Query validation, tokenizer, score, excerpt, limit and ranking (§7.2–§7.8).

Sections are those of docs/vault-format.md.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from coffer.vault.collation import rank_key
from coffer.vault.errors import VaultError
from coffer.vault.jscompat import (
    WS_RUN,
    from_utf16,
    has_unsafe,
    js_number,
    js_trim,
    to_utf16,
    utf16_len,
)
from coffer.vault.scan import Entry
from coffer.vault.validate import KINDS, enum_value, slug, summary, unique_list

if TYPE_CHECKING:
    from typing import Any

MAX_QUERY = 500
MAX_RESULTS = 100
DEFAULT_LIMIT = 20
EXCERPT_UNITS = 240
EXCERPT_CONTEXT = 60
ELLIPSIS = "…"


def _is_token_char(ch: str) -> bool:
    # §7.4: letters (L*), numbers (N*), "_" and "-"; combining marks (M*) separate tokens.
    return ch in "_-" or (ch.isascii() and ch.isalnum()) or unicodedata.category(ch)[0] in "LN"


def tokenize(text: str) -> list[str]:
    """§7.4: maximal runs of letters, numbers, ``_`` and ``-`` in the lowercased text."""
    tokens: list[str] = []
    current: list[str] = []
    for ch in text.lower():
        if _is_token_char(ch):
            current.append(ch)
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return tokens


def _unique(tokens: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(tokens))


class Query:
    """A validated query with its lowercase form and tokens, computed once per search."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lower = text.lower()
        self.tokens = tokenize(text)
        self.unique_tokens = _unique(self.tokens)


def score(memory: Mapping[str, Any], query: str | Query) -> int:
    """§7.5: phrase bonus plus per-token title/tag/meta/body points."""
    q = query if isinstance(query, Query) else Query(query)
    title = memory["title"].lower()
    body = memory["body"].lower()
    tags = [tag.lower() for tag in memory["tags"]]
    meta = " ".join(
        (memory["kind"], memory["scope"], memory["sourceHarness"], *memory["targetHarnesses"])
    )
    # Lowering the joined text equals joining the lowered values when it is ASCII (always,
    # for validated slugs and enums); otherwise per value, as Greek final sigma depends on
    # the neighbouring characters.
    meta = (
        meta.lower()
        if meta.isascii()
        else " ".join(
            value.lower()
            for value in (
                memory["kind"],
                memory["scope"],
                memory["sourceHarness"],
                *memory["targetHarnesses"],
            )
        )
    )
    total = 20 if q.lower in title else 5 if q.lower in body else 0
    for token in q.unique_tokens:
        if token in title:
            total += 8
        if token in tags:
            total += 6
        if token in meta:
            total += 3
        total += min(body.count(token), 5)
    return total


def excerpt(body: str, query: str | Query) -> str:
    """§7.7: whitespace-collapsed body, a 240-unit window 60 units before the first hit."""
    q = query if isinstance(query, Query) else Query(query)
    text = js_trim(WS_RUN.sub(" ", body))
    length = utf16_len(text)
    if length <= EXCERPT_UNITS:
        return text
    lower = text.lower()
    hits = [found for found in (lower.find(token) for token in q.tokens) if found >= 0]
    # The index is measured in the lowercased text and applied to the original (Q8).
    index = utf16_len(lower[: min(hits)]) if hits else 0
    start = max(0, index - EXCERPT_CONTEXT)
    units = to_utf16(text)
    window = from_utf16(units[start * 2 : (start + EXCERPT_UNITS) * 2])
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if start + EXCERPT_UNITS < length else ""
    return prefix + window + suffix


def normalize_limit(value: object) -> int:
    """§7.8: max(1, min(Number(v) or 20, 100)), truncated."""
    number = js_number(value)
    if number == 0 or math.isnan(number):
        number = DEFAULT_LIMIT
    return math.trunc(max(1.0, min(number, float(MAX_RESULTS))))


def validate_query(query: object) -> str:
    """§7.2 steps 1–3."""
    text = js_trim(query) if isinstance(query, str) else ""
    if utf16_len(text) > MAX_QUERY:
        raise VaultError(f"memory search query is too long (maximum {MAX_QUERY} characters).")
    if has_unsafe(text):
        raise VaultError("memory search query must not contain control characters.")
    return text


def validate_kinds(kinds: object) -> list[str] | None:
    """§7.2 step 4; ``None`` means no filter, ``[]`` filters out everything (Q4)."""
    if kinds is None:
        return None
    return unique_list(kinds, "kinds", 8, lambda item: enum_value(item, "memory kind", KINDS))


def validate_target(target: object) -> str | None:
    """A non-empty target harness is a slug; empty or absent means no filter (Q17)."""
    if target is None or target == "":
        return None
    return slug(target, "target harness")


def visible(memory: Mapping[str, Any], target: str | None) -> bool:
    """The target filter: ``all`` or the harness itself among the targets."""
    if target is None:
        return True
    targets = memory["targetHarnesses"]
    return "all" in targets or target in targets


def rank(
    entries: Sequence[Entry],
    query: str,
    kinds: list[str] | None,
    trust: str | None,
    target: str | None,
    limit: int,
) -> list[dict[str, Any]]:
    """§7.3: filter, score, keep positives, stable sort, cut, shape."""
    q = Query(query)
    scored: list[tuple[Entry, int]] = []
    for entry in entries:
        memory = entry.memory
        if memory["status"] != "active":
            continue
        if kinds is not None and memory["kind"] not in kinds:
            continue
        if trust is not None and memory["trust"] != trust:
            continue
        if not visible(memory, target):
            continue
        points = score(memory, q) if query else 0
        if query and points <= 0:
            continue
        scored.append((entry, points))
    # Stable multi-pass sort == the reference comparator (score desc, updatedAt desc, id asc).
    # Ids are over the exact rank alphabet; fixed-shape timestamps compare as plain strings.
    # A reverse sort keeps equal keys in their order, so the last two passes are one.
    scored.sort(key=lambda pair: rank_key(pair[0].memory["id"]))
    scored.sort(key=lambda pair: (pair[1], pair[0].memory["updatedAt"]), reverse=True)
    return [
        {
            "memory": summary(entry.memory),
            "score": points,
            # Computed for the returned results only: it never affects the order.
            "excerpt": excerpt(entry.memory["body"], q),
        }
        for entry, points in scored[:limit]
    ]
