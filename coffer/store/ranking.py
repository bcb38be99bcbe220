"""BM25 ranking over a tier's FTS5 table (docs/adr/0014-writes-blocks-ranking.md): FTS5's own
term scores, re-weighted with an IDF that stays positive for terms common in a small store."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

# Column weights for bm25(): a hit in the name or description says more than one in the body.
_WEIGHTS = "8.0, 3.0, 1.0"
# Per query term: every matching row's FTS5 bm25() for that term alone. FTS5 clamps its
# inverse document frequency to 1e-6 for a term in half the rows or more, so the term's
# weighted, length-normalised frequency is recovered by dividing that clamp back out and
# re-weighted with an IDF that is always positive (docs/adr/0014-writes-blocks-ranking.md).
# The only interpolation is the constant weights.
_SCALED_SQL = f"SELECT rowid, bm25(fts, {_WEIGHTS}) * ? AS s FROM fts WHERE fts MATCH ?"  # noqa: S608
_COUNT_SQL = "SELECT count(*) FROM fts WHERE fts MATCH ?"
_ONE_SQL = _SCALED_SQL + " ORDER BY s DESC, rowid LIMIT ?"
# The per-term parts are only ever _SCALED_SQL: no text from a query is interpolated.
_SUM_SQL = (
    "SELECT rowid, sum(s) AS score FROM ({}) GROUP BY rowid ORDER BY score DESC, rowid LIMIT ?"
)


def fts_idf(rows: int, hits: int) -> float:
    """The IDF FTS5's bm25() uses (fts5_aux.c): clamped to 1e-6 when not positive."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0.0 else 1e-6


def idf(rows: int, hits: int) -> float:
    """Lucene's BM25 IDF, log(1 + (N - n + 0.5) / (n + 0.5)): positive for any n <= N, so a
    term found in most of a small store still counts, and rarer terms still count more."""
    return math.log(1.0 + (rows - hits + 0.5) / (hits + 0.5))


def _rows(conn: sqlite3.Connection) -> int:
    """The parsed rows: kept in the state table by each sync (a cache from before that
    change has none, and is counted)."""
    kept = conn.execute("SELECT value FROM state WHERE key = 'rows'").fetchone()
    if kept is not None and str(kept[0]).isdigit():
        return int(kept[0])
    return int(conn.execute("SELECT count(*) FROM files WHERE error IS NULL").fetchone()[0])


def rank(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[tuple[int, float]]:
    """The ``limit`` best (rowid, BM25 score) pairs of rows matching any of ``terms``.

    Each term's IDF needs only its count of matching rows; the sum over terms, the order and
    the cut are one query, so SQLite adds up thousands of rows, not Python (a word common to
    most of 10,000 entries matches thousands). Equal scores keep rowid order; the store then
    orders them by name.
    """
    total = _rows(conn)
    parts: list[str] = []
    params: list[object] = []
    for term in terms:
        phrase = '"' + term.replace('"', '""') + '"'
        hits = conn.execute(_COUNT_SQL, (phrase,)).fetchone()[0]
        if hits:
            # -bm25 = fts_idf * (weighted, saturated term frequency): swap the IDF.
            parts.append(_SCALED_SQL)
            params += [-idf(total, hits) / fts_idf(total, hits), phrase]
    if not parts:
        return []
    # One term is ordered as it is: SQLite would flatten a lone subquery into the sum, and
    # bm25() may not run inside an aggregate. Two or more stay a compound, never flattened.
    query = _ONE_SQL if len(parts) == 1 else _SUM_SQL.format(" UNION ALL ".join(parts))
    rows = conn.execute(query, (*params, limit)).fetchall()
    return [(int(rowid), float(score)) for rowid, score in rows]
