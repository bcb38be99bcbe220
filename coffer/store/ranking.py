"""BM25 ranking over a tier's FTS5 table (docs/adr/0014-writes-blocks-ranking.md): FTS5's own
term scores, re-weighted with an IDF that stays positive for terms common in a small store."""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections import Counter
from operator import itemgetter

# Column weights for bm25(): a hit in the name or description says more than one in the body.
_WEIGHTS = "8.0, 3.0, 1.0"
# Per query term: every matching row's FTS5 bm25() for that term alone. FTS5 clamps its
# inverse document frequency to 1e-6 for a term in half the rows or more, so the term's
# weighted, length-normalised frequency is recovered by dividing that clamp back out and
# re-weighted with an IDF that is always positive (docs/adr/0014-writes-blocks-ranking.md).
# The only interpolation is the constant weights.
_TERM_SQL = f"SELECT rowid, bm25(fts, {_WEIGHTS}) FROM fts WHERE fts MATCH ?"  # noqa: S608


def fts_idf(rows: int, hits: int) -> float:
    """The IDF FTS5's bm25() uses (fts5_aux.c): clamped to 1e-6 when not positive."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0.0 else 1e-6


def idf(rows: int, hits: int) -> float:
    """Lucene's BM25 IDF, log(1 + (N - n + 0.5) / (n + 0.5)): positive for any n <= N, so a
    term found in most of a small store still counts, and rarer terms still count more."""
    return math.log(1.0 + (rows - hits + 0.5) / (hits + 0.5))


def rank(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[tuple[int, float]]:
    """The ``limit`` best (rowid, BM25 score) pairs of rows matching any of ``terms``.

    Equal scores keep FTS5's row order; the store then orders them by name.
    """
    total = conn.execute("SELECT count(*) FROM files WHERE error IS NULL").fetchone()[0]
    scores: Counter[int] = Counter()
    for term in terms:
        rows = conn.execute(_TERM_SQL, ('"' + term.replace('"', '""') + '"',)).fetchall()
        if rows:
            # -bm25 = fts_idf * (weighted, saturated term frequency): swap the IDF.
            scale = -idf(total, len(rows)) / fts_idf(total, len(rows))
            scores.update({rowid: bm25 * scale for rowid, bm25 in rows})
    return heapq.nlargest(limit, scores.items(), key=itemgetter(1))
