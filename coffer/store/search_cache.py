"""A rebuildable SQLite cache of one tier's entries, with FTS5 (BM25) search.

The markdown files are the truth; this cache only saves re-parsing unchanged files
(keyed by inode, size and mtime) and gives ranked search over 10,000 entries in
milliseconds. It lives beside the tier directory, never inside it, and a damaged cache
is deleted and rebuilt (docs/adr/0005-search-cache.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import stat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base import fsutil
from coffer.base.text import check_utf8
from coffer.store import cache_gate, index, tier_listing
from coffer.store.entry import Entry, EntryParseError, Verdict, known_secrets, parse, verdict
from coffer.store.incoming import MAX_ENTRY_FILE, too_large
from coffer.store.provenance import digest, known_digest

if TYPE_CHECKING:
    from typing import Any

# 6: what the index's order reads, as columns (docs/adr/0055); 7: each entry's provenance
# digest, which a stamp of a linked tier reads of every entry (docs/adr/0051)
_SCHEMA_VERSION = 7
SYNC_BATCH = 1000  # files parsed per committed transaction
# ... and bytes read: 300 entries at the size limit are 19 MiB to parse and gate, more than a
# hook's deadline may allow; a batch this size is well under a second (docs/adr/0043).
SYNC_BATCH_BYTES = 2 * 1024 * 1024
# Entries are short notes (coffer writes at most 32 KiB of body); a bigger file is reported,
# not read, so one hostile file cannot make every command read and index megabytes.
MAX_ENTRY_BYTES = MAX_ENTRY_FILE  # docs/adr/0043
# rank, newest and judged are what the index's order reads of an entry (index.type_rank,
# index.newest_first, an anchor or a review date): files_order hands every row over in
# that order without reading the rows' JSON (coffer.store.index_rows), files_problems the
# unreadable files without reading every row. digest is coffer.store.provenance.digest of
# the entry, taken with the verdict when the file changed (entry_of hands both back).
_SCHEMA = """
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  filename TEXT UNIQUE NOT NULL,
  ino INTEGER, size INTEGER, mtime_ns INTEGER,
  error TEXT,
  name TEXT, description TEXT, metadata TEXT, body TEXT,
  secrets TEXT, withheld TEXT, digest TEXT,
  rank INTEGER, newest BLOB, judged INTEGER
);
CREATE INDEX files_order ON files (rank, newest, name, filename, withheld, judged)
  WHERE error IS NULL;
CREATE INDEX files_problems ON files (filename, error) WHERE error IS NOT NULL;
CREATE VIRTUAL TABLE fts USING fts5(
  name, description, body, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_WORDS = re.compile(r"\w+")
# What entry_of builds an entry of, as every reader of rows selects it; ROW_SQL: one row.
ROW_COLUMNS = "filename, name, description, metadata, body, secrets, withheld, digest"
ROW_SQL = f"SELECT {ROW_COLUMNS} FROM files WHERE id = ?"  # noqa: S608


class UnusableFile(NamedTuple):
    """A file in the tier directory that is not a usable entry."""

    filename: str
    message: str


class TierScan(NamedTuple):
    """One tier's entries, and the files in it that are not entries."""

    entries: tuple[Entry, ...]
    problems: tuple[UnusableFile, ...]


class Hit(NamedTuple):
    score: float
    entry: Entry


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != _SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("DROP TABLE IF EXISTS files")
            conn.execute("DROP TABLE IF EXISTS fts")
            conn.execute("DROP TABLE IF EXISTS state")
            for stmt in _SCHEMA.strip().split(";\n"):
                if stmt.strip():
                    conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            conn.close()
            raise
    return conn


def _rollback(conn: sqlite3.Connection) -> None:
    # SQLite ends the transaction itself on some errors (SQLITE_FULL: a full disk); a
    # ROLLBACK then fails with "no transaction is active", and that error would replace
    # the one that says what went wrong.
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


_SIDE_FILES = ("", "-journal", "-wal", "-shm")


def _private(path: Path) -> None:
    """Make the cache and its side files 0600 like the rest of the store.

    SQLite creates a missing database with the umask's mode (0644) and gives its journal,
    WAL and shm files the database file's mode, so the file is created 0600 first; caches
    made by older versions are tightened in place. The cache holds every entry's text.
    """
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, fsutil.PRIVATE_FILE_MODE))
    for suffix in _SIDE_FILES:
        side = f"{path}{suffix}"
        with contextlib.suppress(OSError):
            st = os.lstat(side)
            if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077:
                os.chmod(side, fsutil.PRIVATE_FILE_MODE)


def open_cache(path: Path) -> sqlite3.Connection:
    """Open (creating or rebuilding) the cache; a corrupt file is discarded."""
    _private(path)
    try:
        return _connect(path)
    except sqlite3.DatabaseError:
        for suffix in _SIDE_FILES:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
        _private(path)
        return _connect(path)


def _read_entry(path: Path, name: str, st: os.stat_result) -> tuple[Entry | None, str | None]:
    if stat.S_ISLNK(st.st_mode):
        return None, "is a symlink; coffer does not follow links out of the store"
    if not stat.S_ISREG(st.st_mode):
        return None, "is not a regular file"
    if not name.endswith(".md"):
        return None, "is not a .md file; the memory directory should hold only entries"
    if st.st_size > MAX_ENTRY_BYTES:
        return None, too_large(st.st_size)
    try:
        data = fsutil.read_bytes_or_none(path)
    except OSError as exc:
        return None, f"cannot be read: {exc}"
    if data is None:
        return None, "vanished while being read"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "is not valid UTF-8"
    try:
        return parse(text, name), None
    except EntryParseError as exc:
        return None, str(exc)


def sync(conn: sqlite3.Connection, tier_dir: Path) -> bool:
    """Bring the cache in line with the directory; return whether anything changed."""
    return synced(conn, tier_dir).changed


Stat = tuple[int, int, int]  # what a row is keyed on: inode, size, mtime_ns


class Synced(NamedTuple):
    """What a sync did (:func:`synced`)."""

    changed: bool
    digest: str  # of the listing the rows now match
    stats: dict[str, Stat] | None  # the rows' stats, when the listing was read by name


def synced(conn: sqlite3.Connection, tier_dir: Path) -> Synced:
    """Whether the sync changed anything, and the digest of the listing the rows now match.

    Each file's stat is compared with its row, unless the listing's digest is the one kept
    after the last complete sync: then no row is read (at 10,000 entries, most of a recall).
    """
    digest = tier_listing.directory_digest(tier_dir)
    if at_listing(conn, digest):
        return Synced(False, digest, None)
    # Something changed: list again, by name, and keep the digest of that listing.
    listing = tier_listing.listing(tier_dir)
    digest = tier_listing.digest(listing.items())
    known = {
        row[0]: (row[1], row[2], row[3])
        for row in conn.execute("SELECT filename, ino, size, mtime_ns FROM files")
    }
    stats = {n: (st.st_ino, st.st_size, st.st_mtime_ns) for n, st in listing.items()}
    stale = [n for n in known if n not in listing]
    fresh = [n for n, st in stats.items() if known.get(n) != st]
    if not stale and not fresh:
        _record(conn, digest)
        return Synced(False, digest, stats)
    conn.execute("BEGIN IMMEDIATE")
    try:
        # No listing until every row matches the new one: a run cut short between batches
        # leaves rows no listing names (at_listing).
        conn.execute("DELETE FROM state WHERE key = 'listing'")
        for name in stale:
            _delete(conn, name)
        size = 0
        for n, name in enumerate(fresh, 1):
            if n % SYNC_BATCH == 0 or size >= SYNC_BATCH_BYTES:
                # A run cut short (a session-start hook's deadline) keeps what it parsed,
                # so the next run continues instead of starting over.
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                size = 0
            st = listing[name]
            _insert(conn, tier_dir, name, st)
            size += min(st.st_size, MAX_ENTRY_BYTES)  # a bigger file is not read
        _write_state(conn, digest)
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise
    return Synced(True, digest, stats)  # a complete sync: every listed file has its row


def _insert(conn: sqlite3.Connection, tier_dir: Path, name: str, st: os.stat_result) -> None:
    """The file's row (parsed, or why it is not an entry) and its full-text row."""
    entry, error = _read_entry(tier_dir / name, name, st)
    found = verdict(entry) if entry else None
    metadata = json.dumps(dict(entry.metadata), default=str) if entry else None
    # What the index's order reads (coffer.store.index_rows), from the metadata as every
    # reader of the row gets it back (JSON may turn a value into another's text).
    stored = entry and entry._replace(metadata=json.loads(metadata or "{}"))
    _delete(conn, name)
    cur = conn.execute(
        "INSERT INTO files (filename, ino, size, mtime_ns, error, name, description,"
        " metadata, body, secrets, withheld, digest, rank, newest, judged)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            name,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
            error,
            entry.name if entry else None,
            entry.description if entry else None,
            metadata,
            entry.body if entry else None,
            json.dumps(found.content) if found else None,
            json.dumps(found.withheld) if found else None,
            digest(stored) if stored else None,
            index.type_rank(stored) if stored else None,
            index.newest_first(stored) if stored else None,
            stored and ("anchors" in stored.metadata or "review_after" in stored.metadata),
        ),
    )
    if entry is not None:
        conn.execute(
            "INSERT INTO fts (rowid, name, description, body) VALUES (?,?,?,?)",
            (cur.lastrowid, entry.name.replace("-", " "), entry.description, entry.body),
        )


_RECORD_SQL = "INSERT OR REPLACE INTO state (key, value) VALUES ('listing', ?)"
# Kept with the listing, in the same transaction: the row count ranking's IDF needs, which a
# count over 10,000 rows would otherwise cost every recall (coffer/store/ranking.py).
_ROWS_SQL_STATE = (
    "INSERT OR REPLACE INTO state (key, value)"
    " SELECT 'rows', count(*) FROM files WHERE error IS NULL"
)


def _write_state(conn: sqlite3.Connection, digest: str) -> None:
    conn.execute(_RECORD_SQL, (digest,))
    conn.execute(_ROWS_SQL_STATE)


def _record(conn: sqlite3.Connection, digest: str) -> None:
    with contextlib.suppress(sqlite3.OperationalError):  # busy or read-only: next time
        _write_state(conn, digest)


def _delete(conn: sqlite3.Connection, name: str) -> None:
    row = conn.execute("SELECT id FROM files WHERE filename = ?", (name,)).fetchone()
    if row is not None:
        conn.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
        conn.execute("DELETE FROM files WHERE id = ?", (row[0],))


def entry_of(row: Any, trusted: bool = True) -> Entry:
    """The entry of a row read as ``ROW_COLUMNS`` name it (coffer.store.index_rows too)."""
    filename, name, description, metadata, body, secrets, withheld, said = row
    entry = Entry(
        name=name,
        description=description,
        body=body,
        metadata=json.loads(metadata),
        filename=filename,
    )
    if secrets is not None and withheld is not None and trusted:
        # The gate's verdict on this text, taken when the file last changed: every render
        # of this run reuses it, so a command costs what changed, not the tier's size
        # (docs/adr/0043).
        known_secrets(entry, Verdict(tuple(json.loads(secrets)), tuple(json.loads(withheld))))
    if said is not None and trusted:
        known_digest(entry, said)  # and the digest: a stamp hashes only what changed
    return entry


def named(conn: sqlite3.Connection, tier_dir: Path, name: str) -> Entry | None:
    """The first entry (by file name) named ``name`` or stored in ``name`` or ``name.md``,
    after syncing the cache, as a scan would find it."""
    trusted = cache_gate.check(conn)
    synced(conn, tier_dir)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # SQLite cannot bind it; no entry's name or file holds it
        return None
    row = conn.execute(_NAMED_SQL, {"n": name, "md": f"{name}.md"}).fetchone()
    return None if row is None else entry_of(row, trusted)


_NAMED_SQL = (
    f"SELECT {ROW_COLUMNS} FROM files"  # noqa: S608
    " WHERE error IS NULL AND (name = :n OR filename = :n OR filename = :md)"
    " ORDER BY filename LIMIT 1"
)


def search(conn: sqlite3.Connection, tier_dir: Path, query: str, limit: int) -> list[Hit]:
    """BM25-ranked entries matching any word of ``query``; substring match as a fallback
    for scripts FTS5 does not split into words (CJK)."""
    return searched(conn, tier_dir, query, limit)[0]


def searched(
    conn: sqlite3.Connection, tier_dir: Path, query: str, limit: int
) -> tuple[list[Hit], str]:
    """:func:`search`'s hits, and the digest of the listing its sync left the rows at
    (what `recall` checks before rendering MEMORY.md from the same rows, index_rows)."""
    check_utf8(query)  # SQLite cannot bind text that is not UTF-8
    trusted = cache_gate.check(conn)
    digest = synced(conn, tier_dir).digest
    tokens = [t for t in _WORDS.findall(query.lower()) if t]
    hits: list[Hit] = []
    if tokens:
        from coffer.store.ranking import rank  # searches only: scans never rank

        ranked = rank(conn, list(dict.fromkeys(tokens)), limit)
        for rowid, score in ranked:
            row = conn.execute(ROW_SQL, (rowid,)).fetchone()
            if row is not None:
                hits.append(Hit(round(score, 4), entry_of(row, trusted)))
    if not hits and query.strip():
        pattern = (
            "%" + query.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        rows = conn.execute(
            f"SELECT {ROW_COLUMNS}"  # noqa: S608
            " FROM files WHERE error IS NULL AND (name LIKE :p ESCAPE '\\' OR description LIKE :p"
            " ESCAPE '\\' OR body LIKE :p ESCAPE '\\') ORDER BY name LIMIT :limit",
            # Named, not numbered: Python 3.14's sqlite3 refuses ?1 with a sequence.
            {"p": pattern, "limit": limit},
        ).fetchall()
        hits = [Hit(0.0, entry_of(row, trusted)) for row in rows]
    return hits, digest


def at_listing(conn: sqlite3.Connection, digest: str) -> bool:
    """Whether the rows are still those of the listing ``digest`` names: no sync changed a
    row since one left them there (a sync clears the listing before it changes a row and
    keeps the new one only once every row matches it; a new gate clears it too)."""
    row = conn.execute("SELECT value FROM state WHERE key = 'listing'").fetchone()
    return row is not None and row[0] == digest
