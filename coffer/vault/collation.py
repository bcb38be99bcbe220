"""ICU root collation, as JavaScript ``localeCompare`` sorts (docs/vault-format.md §7.6, R7, Q2).

Two tiers:

* Strings over ``_-.0123456789abcdefghijklmnopqrstuvwxyz`` (every id, every generated file
  name, the kind directories, ``.gitignore``) get an exact rank key: these characters have
  distinct primary weights and no secondary or tertiary differences, so comparing their
  ranks lexicographically, shorter prefix first, *is* the ICU order. No table is loaded.
* Anything else (hand-made names with capitals, accents, symbols) goes through the Unicode
  Collation Algorithm with the DUCET table shipped by ``pyuca`` (non-ignorable, tertiary),
  which is what ICU's root collation is built from. It is loaded lazily, once.

Timestamps of the fixed §3.1 shape compare like plain strings, so callers use ``str`` order
for them directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


FAST_ALPHABET = "_-.0123456789abcdefghijklmnopqrstuvwxyz"
_RANK = {ch: index for index, ch in enumerate(FAST_ALPHABET)}
_FAST_CHARS = frozenset(FAST_ALPHABET)

_uca_key: Callable[[str], tuple[int, ...]] | None = None


def is_fast(value: str) -> bool:
    """True if the rank key is exact for ``value``."""
    return _FAST_CHARS.issuperset(value)


# Each alphabet character mapped to a character whose code point order is its rank, so a
# translated string compares (in C) exactly like the rank sequence, shorter prefix first.
_RANK_TABLE = str.maketrans({ch: chr(0x100 + index) for index, ch in enumerate(FAST_ALPHABET)})


def rank_key(value: str) -> str:
    """Exact collation key for strings over :data:`FAST_ALPHABET` (ids, generated names)."""
    return value.translate(_RANK_TABLE)


def _fallback_key(value: str) -> tuple[Any, ...]:
    # Used only if pyuca is missing: the Q2 fallback (rank order, lowercase before
    # uppercase on ties). Characters outside the alphabet sort after it by code point.
    primary = tuple(_RANK.get(ch, len(_RANK) + ord(ch)) for ch in value.lower())
    return (primary, tuple(ch.isupper() for ch in value))


def uca_key(value: str) -> tuple[Any, ...]:
    """Full UCA (DUCET, non-ignorable, three levels) sort key, as ICU root compares."""
    global _uca_key
    if _uca_key is None:
        try:
            from pyuca.collator import Collator_10_0_0  # type: ignore[import-untyped]
        except ImportError:  # pragma: no cover - pyuca is a declared dependency
            return _fallback_key(value)
        _uca_key = Collator_10_0_0().sort_key
    return _uca_key(value)


def sorted_by(items: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """Stable sort of ``items`` by ``key`` under ICU root collation."""
    listed = list(items)
    keys = [key(item) for item in listed]
    if all(is_fast(k) for k in keys):
        make: Callable[[str], Any] = rank_key
    else:
        make = uca_key
    ordered = sorted(range(len(listed)), key=lambda i: make(keys[i]))
    return [listed[i] for i in ordered]


def sort_strings(values: Iterable[str]) -> list[str]:
    """Stable sort of strings under ICU root collation (equal keys keep their order)."""
    return sorted_by(values, lambda value: value)
