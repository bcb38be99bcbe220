"""``MEMORY.md`` rendered from the search cache's rows, building only the entries it lists.

A recall that moves an entry in the order agents load rewrites the index (docs/adr/0055).
Built from a scan, that is every row of the tier turned into an entry (at 10,000 entries
about twenty times a bare Python start) for an index that lists at most 200 of them. Here
the cache's own columns give the order: each row's type rank and newest-first date, which
the cache computed from the entry when its file changed (coffer.store.search_cache), read
through an index already in that order, so Python only moves the few rows that are stale
or recalled. A whole entry is built for the rows with an anchor or a review date (their
staleness is part of the order) and for the lines the caps let through. The text is the
one :func:`coffer.store.index_file.expected` renders from the store's
``shown(tier, with_pending=True)``: the order is :func:`coffer.store.index.priority`'s
(the columns come from its own parts), the same :func:`coffer.store.index.render` writes
it, and tests/store/test_index_rows.py compares the two byte for byte.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, overload

from coffer.store import cache_gate, freshness, index, index_file, recalls, search_cache, settings
from coffer.store.cache_open import connected
from coffer.store.entry import Entry
from coffer.store.search_cache import TierScan, UnusableFile, entry_of
from coffer.store.tier import Tier

# In the order agents load them but for staleness and recall counts, which only a few rows
# have: the cache keeps each row's type rank and newest-first date (search_cache._insert),
# and its index files_order hands the rows over without a sort.
_KEYS_SQL = (
    "SELECT id, filename, name, withheld = '[]', judged, rank FROM files"
    " WHERE error IS NULL ORDER BY rank, newest, name, filename"
)
_ROW_SQL = (
    "SELECT filename, name, description, metadata, body, secrets, withheld FROM files WHERE id = ?"
)
_Key = tuple[int, bool, int, bytes, str]  # index.priority's, with the date as bytes


class Shown(Protocol):
    """The store's ``shown``: what agents load of a tier (pending entries too, here)."""

    def __call__(self, tier: Tier, *, with_pending: bool) -> TierScan: ...


class _Listed(Sequence[Entry]):
    """The listed entries in index order, each row's entry built when render reaches it."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        order: list[int | Entry],
        judged: dict[int, Entry],
        counts: dict[str, int],
    ) -> None:
        self.conn = conn
        self.order = order  # row ids, or an unreadable file's entry
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
        return self._built(self.order[i])

    def __iter__(self) -> Iterator[Entry]:
        return (self._built(row) for row in self.order)

    def _built(self, row: int | Entry) -> Entry:
        if isinstance(row, Entry):
            return row  # an unreadable file's line
        entry = self.judged.get(row) or _row(self.conn, row)
        seen = self.counts.get(entry.name)
        return entry._replace(recalled=seen) if seen else entry


def regenerate(tier: Tier, store_root: Path, shown: Shown, listed: str | None = None) -> bool:
    """Rewrite MEMORY.md when it differs from what the tier's entries give (under the
    tier's lock, taken by the caller), from the cache's rows; return whether it did.
    ``shown``: the store's, for when the rows cannot say. ``listed``: the digest of the
    listing the caller synced the rows to while holding the tier's lock already.

    The rows are synced to the directory first: a coffer writer may have changed it since
    the caller's search listed it. Not when the caller has held the lock since that
    listing and the rows are still the ones it left (search_cache.at_listing): no coffer
    writer could write meanwhile, so a second listing (at 10,000 entries, a fifth of a
    recall) would find what the first did. Agents write without coffer's lock either way;
    one whose write lands after the last listing is the hook's and the watcher's to render.
    """
    with connected(tier.base / "cache.sqlite") as conn:
        trusted = cache_gate.check(conn)
        ready = listed is not None and trusted and search_cache.at_listing(conn, listed)

        def expect(tier: Tier) -> index_file.Expected:
            nonlocal ready
            if not ready:
                search_cache.sync(conn, tier.dir)
            ready = False  # a render retried (MEMORY.md changed meanwhile) lists again
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
    if dated := [r[0] for r in rows if r[4]]:  # judged as a scan judges them
        marked = freshness.marked([_row(conn, i) for i in dated], tier.root)
        judged = dict(zip(dated, marked, strict=True))
    stale = {i for i, e in judged.items() if e.stale}
    if stale and tier.key in settings.load(store_root).stale_recall:
        rows = [r for r in rows if r[0] not in stale]  # left to recall (docs/adr/0053)
    listed = [r for r in rows if r[3]]  # not one the gate withholds (index_file.expected)
    if stale or counts:
        # Stable: rows that tie keep the query's order, the rest of index.priority and
        # then the file name (the scan's order, which sorted() keeps on a full tie).
        listed.sort(key=lambda r: (r[5], r[0] in stale, -counts.get(r[2], 0).bit_length()))

    def key(r: Any) -> _Key:  # a few rows' only: the rows are in this order already
        newest = conn.execute("SELECT newest FROM files WHERE id = ?", (r[0],)).fetchone()[0]
        return (r[5], r[0] in stale, -counts.get(r[2], 0).bit_length(), newest, r[2])

    problems = [
        UnusableFile(f, e)
        for f, e in conn.execute(
            "SELECT filename, error FROM files WHERE error IS NOT NULL ORDER BY filename"
        )
    ]
    # An unreadable file's line goes after the rows it ties with, as sorted() puts it.
    order: list[int | Entry] = []
    start = 0
    lines = [
        ((index.type_rank(e), False, 0, index.newest_first(e), e.name), e)
        for e in index_file.placeholders(problems)
    ]
    for line_key, line in sorted(lines, key=lambda item: item[0]):
        at = bisect.bisect_right(listed, line_key, lo=start, key=key)
        order += [r[0] for r in listed[start:at]]
        order.append(line)
        start = at
    order += [r[0] for r in listed[start:]]
    files = [r[1] for r in rows] + [p.filename for p in problems]
    return index_file.rendered(tier, _Listed(conn, order, judged, counts), files, ordered=True)


def _row(conn: sqlite3.Connection, rowid: int) -> Entry:
    return entry_of(conn.execute(_ROW_SQL, (rowid,)).fetchone())
