"""The order of ``MEMORY.md`` (coffer.store.index.priority): newest first within a type."""

from __future__ import annotations

from coffer.store.entry import Entry
from coffer.store.index import priority


def _entry(name: str, updated: str) -> Entry:
    return Entry(name, "", "", {"type": "project", "updated_at": updated})


def test_newest_first_then_name() -> None:
    entries = [
        _entry("b", "2026-01-01T00:00:00+00:00"),
        _entry("a", "2026-01-01T00:00:00+00:00"),
        _entry("c", "2026-06-01T00:00:00+00:00"),
        _entry("d", ""),
    ]
    assert [e.name for e in sorted(entries, key=priority)] == ["c", "a", "b", "d"]


def test_a_timestamp_written_by_hand_orders_as_its_characters_do() -> None:
    # The ASCII fast path and the general one invert alike: "é" (U+00E9) sorts after "z".
    entries = [_entry("ascii", "2026-z"), _entry("accent", "2026-é")]
    assert [e.name for e in sorted(entries, key=priority)] == ["accent", "ascii"]
    inverted = priority(_entry("x", "2026-é"))[3]
    assert inverted == "".join(chr(0x10FFFF - ord(c)) for c in "2026-é")
