"""The ranking query sums each term's re-weighted bm25() in SQLite; these tests hold it to
the definition it replaced, term by term in Python (coffer.store.ranking, docs/adr/0014)."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from coffer.store import ranking, search_cache

WORDS = ("deploy", "staging", "rollback", "queue", "cache", "redis", "schema", "owner", "cron")
ENTRY = "---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n---\n{body}\n"


def _oracle(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[tuple[int, float]]:
    """Per term, every matching row's bm25() scaled by the IDF swap, summed in Python."""
    total = conn.execute("SELECT count(*) FROM files WHERE error IS NULL").fetchone()[0]
    scores: Counter[int] = Counter()
    for term in terms:
        rows = conn.execute(
            "SELECT rowid, bm25(fts, 8.0, 3.0, 1.0) FROM fts WHERE fts MATCH ?", (f'"{term}"',)
        ).fetchall()
        if rows:
            scale = -ranking.idf(total, len(rows)) / ranking.fts_idf(total, len(rows))
            scores.update({rowid: bm25 * scale for rowid, bm25 in rows})
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def _store(tmp_path: Path, seed: int, size: int) -> sqlite3.Connection:
    rng = random.Random(seed)
    tier = tmp_path / "memory"
    tier.mkdir()
    for i in range(size):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
        (tier / f"e{i:04}.md").write_text(
            ENTRY.format(name=f"e{i:04}", description=" ".join(words[:3]), body=" ".join(words))
        )
    conn = search_cache.open_cache(tmp_path / "cache.sqlite")
    search_cache.sync(conn, tier)
    return conn


@pytest.mark.parametrize(("seed", "size"), [(1, 3), (2, 30), (3, 300), (4, 1000)])
def test_the_query_ranks_as_the_per_term_sum(tmp_path: Path, seed: int, size: int) -> None:
    conn = _store(tmp_path, seed, size)
    rng = random.Random(seed)
    for _ in range(20):
        terms = list(dict.fromkeys(rng.choice(WORDS) for _ in range(rng.randint(1, 4))))
        limit = rng.choice((1, 5, 10, 50))
        got = ranking.rank(conn, terms, limit)
        want = _oracle(conn, terms, limit)
        assert [r for r, _ in got] == [r for r, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)


def test_terms_that_match_nothing_rank_nothing(tmp_path: Path) -> None:
    conn = _store(tmp_path, 5, 20)
    assert ranking.rank(conn, ["absent"], 10) == []
    assert [r for r, _ in ranking.rank(conn, ["absent", "deploy"], 3)] == [
        r for r, _ in _oracle(conn, ["deploy"], 3)
    ]


def test_the_row_count_kept_with_the_listing_follows_every_change(tmp_path: Path) -> None:
    # The IDF's N is kept in the state table by each sync, not counted by every recall: it
    # must follow entries added, deleted and made unparsable, and an old cache without it
    # is counted.
    conn = _store(tmp_path, 6, 40)
    tier = tmp_path / "memory"

    def kept() -> int:
        return int(conn.execute("SELECT value FROM state WHERE key = 'rows'").fetchone()[0])

    def counted() -> int:
        return int(conn.execute("SELECT count(*) FROM files WHERE error IS NULL").fetchone()[0])

    assert kept() == counted() == 40
    (tier / "e0000.md").unlink()
    (tier / "e0001.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (tier / "new.md").write_text(ENTRY.format(name="new", description="deploy", body="deploy"))
    search_cache.sync(conn, tier)
    assert kept() == counted() == 39
    got = ranking.rank(conn, ["deploy"], 50)
    assert [r for r, _ in got] == [r for r, _ in _oracle(conn, ["deploy"], 50)]
    conn.execute("DELETE FROM state WHERE key = 'rows'")
    assert ranking.rank(conn, ["deploy"], 50) == got
