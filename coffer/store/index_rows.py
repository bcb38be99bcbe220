"""``MEMORY.md`` rendered from the search cache's rows, building only the entries it lists.

A recall that moves an entry in the order agents load rewrites the index (docs/adr/0055).
Built from a scan, that is every row of the tier turned into an entry (at 10,000 entries
about twenty times a bare Python start) for an index that lists at most 200 of them. Here
each row gives only what the order reads (type, dates, name, the gate's verdict), through
SQLite's JSON functions; a whole entry is built for the rows with an anchor or a review
date (their staleness is part of the order) and for the lines the caps let through. The
text is the one :func:`coffer.store.index_file.expected` renders from the store's
``shown(tier, with_pending=True)``: the same :func:`coffer.store.index.priority` orders the
rows and the same :func:`coffer.store.index.render` writes them, and
tests/store/test_index_rows.py compares the two byte for byte.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, overload

from coffer.store import cache_gate, freshness, index, index_file, recalls, search_cache, settings
from coffer.store.cache_open import connected
from coffer.store.entry import Entry
from coffer.store.search_cache import TierScan, UnusableFile, entry_of
from coffer.store.tier import Tier

# ->> hands a value over as Python has it only when it is text or null: a number or a
# boolean would become a string other than the one Entry.updated_at's str() gives.
_KEYS_SQL = (
    "SELECT id, filename, name, withheld, metadata ->> '$.type',"
    " metadata ->> '$.updated_at', json_type(metadata, '$.updated_at'),"
    " metadata ->> '$.modified', json_type(metadata, '$.modified'),"
    " instr(metadata, '\"anchors\"') OR instr(metadata, '\"review_after\"')"
    " FROM files WHERE error IS NULL ORDER BY filename"
)
_ROW_SQL = (
    "SELECT filename, name, description, metadata, body, secrets, withheld FROM files WHERE id = ?"
)
_TEXTUAL = (None, "null", "text")


class Shown(Protocol):
    """The store's ``shown``: what agents load of a tier (pending entries too, here)."""

    def __call__(self, tier: Tier, *, with_pending: bool) -> TierScan: ...


class _Listed(Sequence[Entry]):
    """The listed entries in index order, each row's entry built when render reaches it."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        order: list[tuple[Any, int | Entry]],
        judged: dict[int, Entry],
        counts: dict[str, int],
    ) -> None:
        self.conn = conn
        self.order = order  # (priority, row id or the entry itself)
        self.judged = judged  # the rows with an anchor or a review date, as a scan marks them
        self.counts = counts

    def __len__(self) -> int:
        return len(self.order)

    @overload
    def __getitem__(self, i: int) -> Entry: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Entry]: ...
    def __getitem__(self, i: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(i, slice):
            return [self[n] for n in range(*i.indices(len(self)))]
        return self._built(self.order[i][1])

    def __iter__(self) -> Iterator[Entry]:
        return (self._built(row) for _, row in self.order)

    def _built(self, row: int | Entry) -> Entry:
        if isinstance(row, Entry):
            return row  # an unreadable file's line
        entry = self.judged.get(row) or _row(self.conn, row)
        seen = self.counts.get(entry.name)
        return entry._replace(recalled=seen) if seen else entry


def regenerate(tier: Tier, store_root: Path, shown: Shown) -> bool:
    """Rewrite MEMORY.md when it differs from what the tier's entries give (under the
    tier's lock, taken by the caller), from the cache's rows; return whether it did.
    ``shown``: the store's, for when the rows cannot say."""
    with connected(tier.base / "cache.sqlite") as conn:
        trusted = cache_gate.check(conn)

        def expect(tier: Tier) -> index_file.Expected:
            search_cache.sync(conn, tier.dir)
            fast = expected(conn, tier, store_root, trusted)
            return fast or index_file.expected(tier, shown(tier, with_pending=True))

        return index_file.write_expected(tier, expect)


def expected(
    conn: sqlite3.Connection, tier: Tier, store_root: Path, trusted: bool
) -> index_file.Expected | None:
    """What MEMORY.md should hold and what it holds, from rows the caller synced; None
    when the rows cannot say (verdicts of another gate, or a row without one)."""
    rows = conn.execute(_KEYS_SQL).fetchall() if trusted else []
    if not trusted or any(r[3] is None for r in rows):
        return None
    counts = recalls.counts(tier)
    judged: dict[int, Entry] = {}
    if dated := [r[0] for r in rows if r[9]]:  # judged as a scan judges them
        marked = freshness.marked([_row(conn, i) for i in dated], tier.root)
        judged = dict(zip(dated, marked, strict=True))
    stale = {i for i, e in judged.items() if e.stale}
    if stale and tier.key in settings.load(store_root).stale_recall:
        rows = [r for r in rows if r[0] not in stale]  # left to recall (docs/adr/0053)
    order: list[tuple[Any, int | Entry]] = []
    for r in rows:
        if r[3] == "[]":  # one the gate withholds is not listed (index_file.expected)
            meta = _order_metadata(conn, r)
            mark = judged[r[0]].stale if r[0] in judged else ""
            light = Entry(r[2], "", "", meta, r[1], mark, counts.get(r[2], 0))
            order.append((index.priority(light), r[0]))
    problems = [
        UnusableFile(f, e)
        for f, e in conn.execute(
            "SELECT filename, error FROM files WHERE error IS NOT NULL ORDER BY filename"
        )
    ]
    order += [(index.priority(e), e) for e in index_file.placeholders(problems)]
    order.sort(key=lambda item: item[0])  # stable: ties keep the scan's order, as sorted()
    files = [r[1] for r in rows] + [p.filename for p in problems]
    listed = _Listed(conn, order, judged, counts)
    return index_file.rendered(tier, listed, files, ordered=True)


def _order_metadata(conn: sqlite3.Connection, row: Any) -> dict[str, Any]:
    """What ``index.priority`` reads of a row's metadata: its type and dates."""
    if row[6] in _TEXTUAL and row[8] in _TEXTUAL:
        return {"type": row[4], "updated_at": row[5], "modified": row[7]}
    found = conn.execute("SELECT metadata FROM files WHERE id = ?", (row[0],)).fetchone()
    loaded: dict[str, Any] = json.loads(found[0])
    return loaded


def _row(conn: sqlite3.Connection, rowid: int) -> Entry:
    return entry_of(conn.execute(_ROW_SQL, (rowid,)).fetchone())
