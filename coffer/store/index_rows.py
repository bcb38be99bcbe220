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

import heapq
import itertools
import json
import operator
import sqlite3
from collections.abc import Container, Iterator, Sequence
from pathlib import Path
from typing import Protocol, overload

from coffer.store import cache_gate, freshness, index, index_file, recalls, search_cache, settings
from coffer.store.cache_open import connected
from coffer.store.entry import Entry
from coffer.store.search_cache import ROW_SQL, TierScan, UnusableFile, entry_of
from coffer.store.tier import Tier

# In the order agents load them but for staleness and recall counts, which only a few rows
# have: the cache keeps each row's type rank and newest-first date (search_cache._insert),
# and its index files_order hands the listed rows over in that order, one at a time, as the
# render takes them: it stops at the caps, so at 10,000 entries most rows are never read.
_ORDER_SQL = (
    "SELECT id, rank, newest, name, filename FROM files"
    " WHERE error IS NULL AND withheld = '[]' ORDER BY rank, newest, name, filename"
)
# How many rows there are to list, and whether any row has no verdict (index_file.expected
# lists the rows the gate does not withhold; a row without a verdict cannot say).
_TALLY_SQL = (
    "SELECT count(*) - count(withheld), total(withheld = '[]') FROM files WHERE error IS NULL"
)
# The rows whose place depends on more than the columns: dated (their staleness) and
# recalled (their count), found by a walk of the index, not a fetch of every row.
_KEY = "id, rank, newest, name, filename, withheld = '[]'"
_DATED_SQL = f"SELECT {_KEY} FROM files WHERE error IS NULL AND judged"  # noqa: S608
_NAMED_SQL = (
    f"SELECT {_KEY} FROM files WHERE error IS NULL"  # noqa: S608
    " AND name IN (SELECT value FROM json_each(?))"
)
# index.priority's, with the date as bytes and the file last: 0 and its name for a row (the
# cache's order on a full tie, as the scan's sort keeps it), 1 for an unreadable file's line
# (sorted() puts it after the rows it ties with).
_Key = tuple[int, bool, int, bytes, str, int, str]
_Row = tuple[int, int, bytes, str, str, int]  # as _KEY reads it


class Shown(Protocol):
    """The store's ``shown``: what agents load of a tier (pending entries too, here)."""

    def __call__(self, tier: Tier, *, with_pending: bool) -> TierScan: ...


class _Listed(Sequence[Entry]):
    """The listed entries in index order, each row's entry built when render reaches it."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        order: Iterator[int | Entry],
        size: int,
        judged: dict[int, Entry],
        counts: dict[str, int],
    ) -> None:
        self.conn = conn
        self.order = order  # row ids, or an unreadable file's entry, read as asked for
        self.read: list[int | Entry] = []
        self.size = size
        self.judged = judged  # the rows with an anchor or a review date, as a scan marks them
        self.counts = counts

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, i: int) -> Entry: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Entry]: ...
    def __getitem__(self, i: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(i, slice):
            return [self[n] for n in range(*i.indices(len(self)))]
        n = range(self.size)[i]  # an IndexError as a list's
        self.read += itertools.islice(self.order, n + 1 - len(self.read))
        return self._built(self.read[n])

    def __iter__(self) -> Iterator[Entry]:
        return (self[n] for n in range(self.size))

    def _built(self, row: int | Entry) -> Entry:
        if isinstance(row, Entry):
            return row  # an unreadable file's line
        entry = self.judged.get(row) or _row(self.conn, row)
        seen = self.counts.get(entry.name)
        return entry._replace(recalled=seen) if seen else entry


class _Files(Container[str]):
    """The tier's file names, looked up one at a time: MEMORY.md's lines ask for a few
    hundred, not 10,000 (index.preserved_lines). Less the stale rows left to recall."""

    def __init__(self, conn: sqlite3.Connection, left_out: set[int]) -> None:
        self.conn = conn
        self.left_out = left_out

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            row = self.conn.execute("SELECT id FROM files WHERE filename = ?", (name,)).fetchone()
        except UnicodeEncodeError:  # SQLite cannot bind it; no row's file holds it
            return False
        return row is not None and row[0] not in self.left_out


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
    if not trusted:
        return None
    conn.execute("BEGIN")  # one snapshot of the rows: another reader may sync meanwhile
    try:
        return _expected(conn, tier, store_root)
    finally:
        conn.execute("COMMIT")


def _expected(conn: sqlite3.Connection, tier: Tier, store_root: Path) -> index_file.Expected | None:
    unjudged, listed = conn.execute(_TALLY_SQL).fetchone()
    if unjudged:
        return None
    counts = recalls.counts(tier)
    rows = {r[0]: r for r in conn.execute(_DATED_SQL)}  # judged as a scan judges them
    marked = freshness.marked([_row(conn, i) for i in rows], tier.root)
    judged = dict(zip(rows, marked, strict=True))
    stale = {i for i, e in judged.items() if e.stale}
    left_out: set[int] = set()
    if stale and tier.key in settings.load(store_root).stale_recall:
        left_out = stale  # left to recall (docs/adr/0053)
    if counts:
        rows.update((r[0], r) for r in conn.execute(_NAMED_SQL, (json.dumps(list(counts)),)))
    # The rows out of the columns' order: stale ones after the fresh of their type, often
    # recalled ones before the rest (in doublings), as index.priority orders them.
    moved = {
        i: (r[1], i in stale, -counts.get(r[3], 0).bit_length(), r[2], r[3], 0, r[4])
        for i, r in rows.items()
        if r[5] and i not in left_out and (i in stale or counts.get(r[3], 0) > 0)
    }
    problems = conn.execute(
        "SELECT filename, error FROM files WHERE error IS NOT NULL ORDER BY filename"
    )
    lines = [
        ((index.type_rank(e), False, 0, index.newest_first(e), e.name, 1, e.filename), e)
        for e in index_file.placeholders(UnusableFile(f, e) for f, e in problems)
    ]
    rest = conn.execute(_ORDER_SQL)
    try:
        order = heapq.merge(
            _rest(rest, moved.keys() | left_out),
            sorted((k, i) for i, k in moved.items()),
            sorted(lines, key=_first),
            key=_first,
        )
        size = int(listed) - len([i for i in left_out if rows[i][5]]) + len(lines)
        shown = _Listed(conn, (at for _, at in order), size, judged, counts)
        return index_file.rendered(tier, shown, _Files(conn, left_out), ordered=True)
    finally:
        rest.close()  # the render stops at the caps: the rows after them are never read


_first = operator.itemgetter(0)


def _rest(rows: sqlite3.Cursor, moved: Container[int]) -> Iterator[tuple[_Key, int | Entry]]:
    """The listed rows in the columns' order, less those placed elsewhere (``moved``)."""
    for i, rank, newest, name, filename in rows:
        if i not in moved:
            yield (rank, False, 0, newest, name, 0, filename), i


def _row(conn: sqlite3.Connection, rowid: int) -> Entry:
    return entry_of(conn.execute(ROW_SQL, (rowid,)).fetchone())
