"""A scan after a few files changed reads only their rows (coffer.store.tier_scan), and
gives what reading every row gives."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from coffer.store import search_cache, tier_scan

ENTRY = "---\nname: {name}\ndescription: about {name}\nmetadata:\n  type: project\n---\n{body}\n"


def _write(tier: Path, name: str, body: str, *, bump: int = 0) -> None:
    path = tier / name
    path.write_text(ENTRY.format(name=name.removesuffix(".md"), body=body), encoding="utf-8")
    if bump:  # an edit in the same clock tick still changes what the row is keyed on
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + bump))


def _full(conn: sqlite3.Connection, tier: Path) -> search_cache.TierScan:
    tier_scan._SCANS.clear()
    return tier_scan.scan(conn, tier)


def _rows_read(conn: sqlite3.Connection, tier: Path) -> tuple[search_cache.TierScan, int]:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    found = tier_scan.scan(conn, tier)
    conn.set_trace_callback(None)
    return found, sum("ORDER BY filename" in q for q in seen)


@pytest.fixture
def tier(tmp_path: Path) -> Path:
    tier = tmp_path / "memory"
    tier.mkdir()
    for i in range(20):
        _write(tier, f"n-{i:02}.md", f"note {i}")
    return tier


def test_a_few_changes_read_only_their_rows(tmp_path: Path, tier: Path) -> None:
    conn = search_cache.open_cache(tmp_path / "cache.sqlite")
    _full(conn, tier)
    _write(tier, "a-new.md", "added")  # sorts first
    _write(tier, "n-05.md", "changed text", bump=1_000_000)
    (tier / "n-07.md").unlink()
    (tier / "n-09.md").write_text("---\nname: [broken\n---\n", encoding="utf-8")
    (tier / "notes.txt").write_text("not an entry\n", encoding="utf-8")
    patched, full_reads = _rows_read(conn, tier)
    assert full_reads == 0
    assert patched == _full(conn, tier)
    # ...and back: the broken file mended, the problem file gone.
    _write(tier, "n-09.md", "mended")
    (tier / "notes.txt").unlink()
    patched, full_reads = _rows_read(conn, tier)
    assert full_reads == 0 and patched == _full(conn, tier)
    assert "n-05" in [e.name for e in patched.entries]


def test_many_changes_read_every_row(tmp_path: Path, tier: Path) -> None:
    conn = search_cache.open_cache(tmp_path / "cache.sqlite")
    _full(conn, tier)
    for i in range(tier_scan._PATCH_MAX + 1):
        _write(tier, f"m-{i:03}.md", f"more {i}")
    found, full_reads = _rows_read(conn, tier)
    assert full_reads == 2 and found == _full(conn, tier)


def test_a_long_lived_process_keeps_a_few_tiers_scans(tmp_path: Path) -> None:
    """The watcher, the MCP server and the page visit every project for as long as they
    run: the process keeps the entries of the tiers it read last, a bounded few."""
    conn = search_cache.open_cache(tmp_path / "cache.sqlite")
    tier_scan._SCANS.clear()
    tiers = []
    for n in range(tier_scan.KEPT_SCANS + 3):
        tier = tmp_path / f"project-{n}" / "memory"
        tier.mkdir(parents=True)
        _write(tier, "deploy.md", f"make release {n}")
        tiers.append(tier)
        tier_scan.scan(conn, tier)
    kept = {Path(key[0]) for key in tier_scan._SCANS}
    assert len(kept) == tier_scan.KEPT_SCANS
    assert kept == set(tiers[-tier_scan.KEPT_SCANS :])  # the oldest went first
    again = tier_scan.scan(conn, tiers[-1])
    assert again is tier_scan.scan(conn, tiers[-1])  # kept: the same entries, not rebuilt
    first = tier_scan.scan(conn, tiers[0])  # read again, once it went out
    assert [e.body.strip() for e in first.entries] == ["make release 0"]
    assert Path(next(reversed(tier_scan._SCANS))[0]) == tiers[0]  # now the newest
