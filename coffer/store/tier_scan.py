"""A tier's entries and problem files as the search cache holds them, kept per process.

A command reads a tier several times (doctor's checks, status's targets, a write and the
refresh after it); each read syncs the cache (coffer.store.search_cache) and builds the
entries from its rows only when the listing changed since this process last did, and then
only the rows whose files changed, when they are few.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

from coffer.store import cache_gate, search_cache
from coffer.store.entry import Entry
from coffer.store.search_cache import ROW_COLUMNS, Stat, TierScan, UnusableFile, entry_of

# The last scan of each tier directory in this process, by the listing it read: a command
# reads a tier several times (doctor's checks, status's targets, remember's refresh), and at
# 10,000 entries building the entries again costs more than the rest of such a command.
# Bounded, least recently read first out: a command reads two or three tiers, and a
# long-lived process (the watcher, the MCP server, the page) that visits every project
# keeps the few it read last, not every tier's entries for its lifetime.
_SCANS: OrderedDict[tuple[str, str, bool], _Scanned] = OrderedDict()
KEPT_SCANS = 8
# More changed files than this since the last scan: every row is read again.
_PATCH_MAX = 64


class _Scanned(NamedTuple):
    digest: str
    found: TierScan
    stats: dict[str, Stat]  # the stat each of its rows was read at


def scan(conn: sqlite3.Connection, tier_dir: Path) -> TierScan:
    """Every entry and every problem file in the tier, after syncing the cache."""
    trusted = cache_gate.check(conn)
    synced = search_cache.synced(conn, tier_dir)
    key = (str(tier_dir), cache_gate.gate_key(), trusted)
    last = _SCANS.get(key)
    if last is not None and last.digest == synced.digest:
        _SCANS.move_to_end(key)
        return last.found  # verdicts a long run has since dropped are taken again when asked
    found = None
    if last is not None and synced.stats is not None:
        # What changed since the last scan (a write of this process, an agent's): only
        # those rows are read again (a remember reads its tier before and after writing).
        found = _patched(conn, last, synced.stats, trusted)
    if found is None:
        found = _read_rows(conn, trusted)
    _SCANS[key] = _Scanned(synced.digest, *found)
    _SCANS.move_to_end(key)
    while len(_SCANS) > KEPT_SCANS:
        _SCANS.popitem(last=False)
    return found[0]


def _patched(
    conn: sqlite3.Connection, last: _Scanned, stats: dict[str, Stat], trusted: bool
) -> tuple[TierScan, dict[str, Stat]] | None:
    """The scan ``last`` with the rows whose stat is not the one it read them at read
    again (``stats``: every row's, after a complete sync); None past ``_PATCH_MAX``."""
    redo = {n for n, st in stats.items() if last.stats.get(n) != st}
    if len(redo) > _PATCH_MAX:
        return None
    entries = [e for e in last.found.entries if e.filename in stats and e.filename not in redo]
    problems = [p for p in last.found.problems if p.filename in stats and p.filename not in redo]
    for name in redo:
        row = conn.execute(_FILE_SQL, (name,)).fetchone()
        if row is None or row[9:] != stats[name]:
            return None  # another process synced since: read it all
        if row[8] is not None:
            problems.append(UnusableFile(row[0], row[8]))
        else:
            entries.append(entry_of(row[:8], trusted))
    # The rows' order (SQLite's BINARY on UTF-8 is code point order, as Python's).
    entries.sort(key=lambda e: e.filename)
    problems.sort(key=lambda p: p.filename)
    return TierScan(tuple(entries), tuple(problems)), stats


_FILE_SQL = (
    f"SELECT {ROW_COLUMNS}, error, ino, size, mtime_ns FROM files"  # noqa: S608
    " WHERE filename = ?"
)


def _read_rows(conn: sqlite3.Connection, trusted: bool) -> tuple[TierScan, dict[str, Stat]]:
    entries: list[Entry] = []
    stats: dict[str, Stat] = {}
    for row in conn.execute(
        f"SELECT {ROW_COLUMNS}, ino, size, mtime_ns FROM files"  # noqa: S608
        " WHERE error IS NULL ORDER BY filename"
    ):
        entries.append(entry_of(row[:8], trusted))
        stats[row[0]] = row[8:]
    problems = []
    for row in conn.execute(
        "SELECT filename, error, ino, size, mtime_ns FROM files"
        " WHERE error IS NOT NULL ORDER BY filename"
    ):
        problems.append(UnusableFile(row[0], row[1]))
        stats[row[0]] = row[2:]
    return TierScan(tuple(entries), tuple(problems)), stats
