"""MEMORY.md rendered from the cache's rows (coffer.store.index_rows), the path of a recall
that moves an entry, is byte for byte the one a scan renders (coffer.store.index_file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.store import Store, cache_gate, index_file, index_rows, search_cache, settings
from coffer.store.cache_open import connected
from coffer.store.tier import Tier

GHP = "ghp_" + "a1" * 18


def _write(tier: Tier, filename: str, front: str, body: str = "a body") -> None:
    (tier.dir / filename).write_text(f"---\n{front}---\n\n{body}\n", encoding="utf-8")


def _entry(
    tier: Tier, name: str, *, type_: str = "project", updated: str = "", desc: str = ""
) -> None:
    meta = f"  type: {type_}\n" + (f"  updated_at: '{updated}'\n" if updated else "")
    _write(
        tier,
        f"{name}.md",
        f"name: {name}\ndescription: {desc or name + ' said'}\nmetadata:\n{meta}",
    )


def _same(store: Store, tier: Tier) -> str:
    """The two renders agree; the text."""
    with store.lock(tier):
        full = index_file.expected(tier, store.shown(tier, with_pending=True))
        with connected(tier.base / "cache.sqlite") as conn:
            trusted = cache_gate.check(conn)
            search_cache.sync(conn, tier.dir)
            fast = index_rows.expected(conn, tier, store.root, trusted)
    assert fast is not None
    assert fast[0].text == full[0].text
    assert fast == full
    return fast[0].text


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store", tmp_path)


@pytest.fixture
def tier(store: Store) -> Tier:
    return store.global_tier(create=True)


def test_an_empty_tier_and_one_entry(store: Store, tier: Tier) -> None:
    _same(store, tier)
    store.remember(tier, "prefer small commits", name="small-commits")
    assert "small-commits" in _same(store, tier)


def test_hand_lines_agent_edits_and_problem_files(store: Store, tier: Tier) -> None:
    for i in range(5):
        store.remember(tier, f"rule number {i}", name=f"rule-{i}")
    (tier.dir / "MEMORY.md").write_text(
        "# Memory\n\n- a line a person wrote\n- [gone](gone.md) — an entry no more\n\n"
        "- [rule-1](rule-1.md) — kept from before\n",
        encoding="utf-8",
    )
    # An agent changes an entry on disk and writes others coffer never saw.
    _entry(tier, "rule-2", type_="feedback", updated="2031-01-01T00:00:00+00:00")
    _entry(tier, "odd-dates", updated="")
    _write(tier, "numbers.md", "name: numbers\nmetadata:\n  type: user\n  updated_at: 7\n")
    _write(tier, "flags.md", "name: flags\nmetadata:\n  type: 5\n  modified: true\n")
    _write(tier, "listed.md", "name: listed\nmetadata:\n  updated_at: [1, 2]\n")
    # str(True) orders before "2", where SQLite's 1 would order after it.
    _write(tier, "two.md", "name: two\nmetadata:\n  updated_at: '2'\n")
    _write(tier, "pending.md", "name: pending\nmetadata:\n  type: user\n  pending: true\n")
    _write(tier, "leak.md", f"name: leak\ndescription: token {GHP}\n")
    (tier.dir / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n", encoding="utf-8")
    (tier.dir / "notes.txt").write_text("not an entry\n", encoding="utf-8")
    (tier.dir / f"{GHP}.md").write_text("---\nname: [x\n---\n", encoding="utf-8")
    text = _same(store, tier)
    assert "a line a person wrote" in text and "broken" in text and "leak" not in text


def test_ties_and_recall_counts(store: Store, tier: Tier) -> None:
    for name in ("b", "a", "c", "d"):
        _entry(tier, name, updated="2026-01-01T00:00:00+00:00")
    # Two files with one name, and counts in doublings: the order's ties stay the scan's.
    _write(tier, "z-twin.md", "name: a\nmetadata:\n  type: project\n")
    (tier.base / "recalls.json").write_text(json.dumps({"c": 3, "d": 2, "a": 9, "x": -1}))
    _same(store, tier)


@pytest.mark.parametrize("left_to_recall", [False, True])
def test_stale_entries(store: Store, tier: Tier, left_to_recall: bool) -> None:
    _entry(tier, "fresh", updated="2026-01-01T00:00:00+00:00")
    _write(tier, "due.md", "name: due\nmetadata:\n  type: project\n  review_after: '2020-01-01'\n")
    _write(tier, "later.md", "name: later\nmetadata:\n  review_after: '2999-01-01'\n")
    _write(tier, "says.md", 'name: says\ndescription: mentions "anchors" only\n')
    if left_to_recall:
        settings.choose(store.root, "stale_recall", tier.key, True)
    text = _same(store, tier)
    assert ("due" in text) is not left_to_recall


@pytest.mark.parametrize("long", [False, True])
def test_the_caps_cut_the_index(store: Store, tier: Tier, long: bool) -> None:
    desc = "word " * (40 if long else 2)
    for i in range(260):
        _entry(tier, f"e-{i:03}", updated=f"2026-01-{1 + i % 28:02}T00:00:00+00:00", desc=desc)
    text = _same(store, tier)
    assert "more entries not listed here" in text


def test_a_recall_that_moves_an_entry_writes_the_full_render(store: Store, tier: Tier) -> None:
    for i in range(30):
        store.remember(tier, f"deploy step {i}", name=f"step-{i:02}")
    (tier.dir / "MEMORY.md").write_text("# Memory\n\n- by hand\n", encoding="utf-8")
    store.recall([tier], "deploy step 17")
    with store.lock(tier):
        assert not index_file.write_if_stale(tier, lambda t: store.shown(t, with_pending=True))


def test_verdicts_of_another_gate_leave_it_to_the_scan(store: Store, tier: Tier) -> None:
    store.remember(tier, "prefer small commits", name="small-commits")
    with connected(tier.base / "cache.sqlite") as conn:
        search_cache.sync(conn, tier.dir)
        assert index_rows.expected(conn, tier, store.root, False) is None


def test_dates_the_columns_order_as_priority_does(store: Store, tier: Tier) -> None:
    # A date that is a prefix of another, non-ASCII and astral text, no date: the cache's
    # newest-first bytes order them as index.priority's inverted text does.
    dates = ["2026", "2026-01", "2026-01-01", "ü", "\U0001f600", "\U0010fffe", "", "~"]
    for i, updated in enumerate(dates):
        _entry(tier, f"d-{i}", updated=updated)
        _entry(tier, f"e-{i}", type_="user", updated=updated)
    _write(tier, "odd.md", "name: odd\nmetadata:\n  type: reference\n  modified: 2026-01-01\n")
    _write(tier, "map.md", "name: map\nmetadata:\n  updated_at: {1: 2}\n")
    _same(store, tier)


def test_unreadable_files_tie_with_rows(store: Store, tier: Tier) -> None:
    # A placeholder (no type, no date) ties with an entry of the same name and none either:
    # the entry first, as the scan's sort puts it; placeholders keep their files' order.
    _write(tier, "b.md", "name: a\n")
    _write(tier, "c.md", "name: a\nmetadata:\n  type: bogus\n")
    for name in ("a", "z", "m"):
        (tier.dir / f"{name}.md").write_text("---\nname: [x\n---\n", encoding="utf-8")
    _entry(tier, "n")
    (tier.base / "recalls.json").write_text(json.dumps({"a": 1, "n": 4}))
    _same(store, tier)
    (tier.base / "recalls.json").write_text(json.dumps({"m": 2}))
    _same(store, tier)


def test_stale_and_recalled_rows_reorder(store: Store, tier: Tier) -> None:
    for i in range(12):
        _entry(tier, f"r-{i:02}", updated=f"2026-01-{1 + i % 3:02}T00:00:00+00:00")
    for name in ("r-03", "r-07"):
        _write(
            tier,
            f"{name}.md",
            f"name: {name}\nmetadata:\n  type: project\n  review_after: '2020-01-01'\n",
        )
    (tier.base / "recalls.json").write_text(json.dumps({"r-01": 1, "r-05": 5, "r-07": 9}))
    _same(store, tier)


def test_a_cache_of_the_old_schema_is_rebuilt(store: Store, tier: Tier) -> None:
    store.remember(tier, "prefer small commits", name="small-commits")
    path = tier.base / "cache.sqlite"
    with connected(path) as conn:
        search_cache.sync(conn, tier.dir)
        conn.execute("PRAGMA user_version = 5")
    with connected(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(files)")}
        assert {"rank", "newest", "judged"} <= columns
        assert conn.execute("SELECT count(*) FROM files").fetchone() == (0,)
    _same(store, tier)
