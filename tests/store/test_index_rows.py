"""MEMORY.md rendered from the cache's rows (coffer.store.index_rows), the path of a recall
that moves an entry, is byte for byte the one a scan renders (coffer.store.index_file)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from unittest import mock

import pytest

from coffer.store import (
    Store,
    cache_gate,
    index_file,
    index_rows,
    recall,
    search_cache,
    settings,
    tier_listing,
)
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


def _listings(monkeypatch: pytest.MonkeyPatch) -> mock.Mock:
    """Counts the tier directories this process lists from now on."""
    spy = mock.Mock(wraps=tier_listing.directory_digest)
    monkeypatch.setattr(tier_listing, "directory_digest", spy)
    return spy


def _full_render_kept(store: Store, tier: Tier) -> None:
    with store.lock(tier):
        assert not index_file.write_if_stale(tier, lambda t: store.shown(t, with_pending=True))


def test_a_recall_holding_the_lock_renders_from_its_search_rows(
    store: Store, tier: Tier, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        store.remember(tier, f"deploy step {i}", name=f"step-{i:02}")
    seen = _listings(monkeypatch)
    store.recall([tier], "deploy step 17")  # a first count: the entry moves
    assert seen.call_args_list == [mock.call(tier.dir)]  # the search's listing only
    assert json.loads((tier.base / "recalls.json").read_text())
    _full_render_kept(store, tier)


def test_a_busy_lock_is_waited_for_at_the_count_and_listed_again(
    store: Store, tier: Tier, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        store.remember(tier, f"deploy step {i}", name=f"step-{i:02}")
    # Busy at the search (another writer), free at the count: counted, from a new listing.
    monkeypatch.setattr(recall, "lock_if_free", lambda held, path: False)
    seen = _listings(monkeypatch)
    store.recall([tier], "deploy step 17")
    assert seen.call_args_list == [mock.call(tier.dir)] * 2
    assert json.loads((tier.base / "recalls.json").read_text())
    _full_render_kept(store, tier)


def test_the_lock_is_taken_only_when_free(store: Store, tier: Tier) -> None:
    store.remember(tier, "deploy step", name="step")
    with contextlib.ExitStack() as held:
        assert recall.lock_if_free(held, tier.lock_file)
        with contextlib.ExitStack() as other:
            assert not recall.lock_if_free(other, tier.lock_file)
    with contextlib.ExitStack() as held:
        assert recall.lock_if_free(held, tier.lock_file)  # released with the stack
    assert not recall.lock_if_free(contextlib.ExitStack(), tier.base / "gone" / ".lock")


def test_rows_another_sync_changed_are_listed_again(store: Store, tier: Tier) -> None:
    for i in range(5):
        store.remember(tier, f"rule number {i}", name=f"rule-{i}")
    with connected(tier.base / "cache.sqlite") as conn:
        listed = search_cache.synced(conn, tier.dir).digest
    # An agent's file, synced by another reader before the count: the listing kept moves.
    _entry(tier, "agent-wrote", type_="feedback")
    with connected(tier.base / "cache.sqlite") as conn:
        search_cache.sync(conn, tier.dir)
        assert not search_cache.at_listing(conn, listed)
    with store.lock(tier):
        index_rows.regenerate(tier, store.root, store.shown, listed)
    assert "agent-wrote" in (tier.dir / "MEMORY.md").read_text(encoding="utf-8")
    _full_render_kept(store, tier)


def test_a_sync_cut_short_leaves_no_listing(
    store: Store, tier: Tier, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(4):
        _entry(tier, f"e-{i}")
    with connected(tier.base / "cache.sqlite") as conn:
        before = search_cache.synced(conn, tier.dir).digest
        for i in range(4):
            _entry(tier, f"e-{i}", desc="changed")
        monkeypatch.setattr(search_cache, "SYNC_BATCH", 2)
        real = search_cache._insert
        done: list[str] = []

        def cut(*args: object) -> None:
            if len(done) == 2:
                raise KeyboardInterrupt  # a deadline's signal, after one committed batch
            done.append("x")
            real(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(search_cache, "_insert", cut)
        with pytest.raises(KeyboardInterrupt):
            search_cache.sync(conn, tier.dir)
        assert not search_cache.at_listing(conn, before)
        assert conn.execute("SELECT value FROM state WHERE key = 'listing'").fetchone() is None


@pytest.mark.parametrize("left_to_recall", [False, True])
def test_moved_rows_past_the_caps_and_lines_naming_them(
    store: Store, tier: Tier, left_to_recall: bool
) -> None:
    # Rows the columns order far down (old, of the last type), moved up by a count or down
    # by staleness, across the caps; hand lines naming a stale file, a gone one, odd text.
    for i in range(230):
        _entry(tier, f"e-{i:03}", type_=("user", "reference", "other")[i % 3],
               updated=f"2026-02-{1 + i % 28:02}T00:00:00+00:00")  # fmt: skip
    for name in ("e-002", "e-005", "e-100"):
        _write(tier, f"{name}.md", f"name: {name}\nmetadata:\n  review_after: '2020-01-01'\n")
    _write(tier, "leak-due.md", f"name: leak-due\ndescription: {GHP}\nmetadata:\n"
           "  review_after: '2020-01-01'\n")  # fmt: skip
    _write(tier, "leak-used.md", f"name: leak-used\ndescription: {GHP}\n")
    for name in ("x", "e-229"):  # placeholders of the last type, tying with moved rows
        (tier.dir / f"{name}.md").write_text("---\nname: [x\n---\n", encoding="utf-8")
    _write(tier, "e-229b.md", "name: e-229\nmetadata:\n  review_after: '2020-01-01'\n")
    _write(tier, "e-229c.md", "name: e-229\n")
    counts = {"e-002": 40, "e-227": 3, "e-226": 1, "leak-used": 8, "e-229": 2, "e-100": 2}
    (tier.base / "recalls.json").write_text(json.dumps(counts))
    (tier.dir / "MEMORY.md").write_text(
        "# Memory\n\n- [e-005](e-005.md) — by hand\n- [gone](gone.md)\n"
        "- [odd](ü.md)\n- [e-228](./e-228.md)\n",
        encoding="utf-8",
    )
    if left_to_recall:
        settings.choose(store.root, "stale_recall", tier.key, True)
    text = _same(store, tier)
    assert "more entries not listed here" in text
    assert ("e-005.md) — by hand" in text) is left_to_recall
