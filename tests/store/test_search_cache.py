"""The search cache skips reading its rows when the tier's listing is the one it recorded
after its last complete sync (coffer.store.search_cache; docs/adr/0023)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from coffer.store import search_cache, tier_scan

ENTRY = "---\nname: {name}\ndescription: about {name}\nmetadata:\n  type: project\n---\n{body}\n"


def _write(tier: Path, name: str, body: str) -> Path:
    path = tier / f"{name}.md"
    path.write_text(ENTRY.format(name=name, body=body))
    return path


def _reads_rows(conn: sqlite3.Connection, tier: Path) -> tuple[bool, bool]:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    changed = search_cache.sync(conn, tier)
    conn.set_trace_callback(None)
    return changed, any("FROM files" in q and "ino" in q for q in seen)


def test_an_unchanged_listing_reads_no_row(tmp_path: Path) -> None:
    tier = tmp_path / "memory"
    tier.mkdir()
    for i in range(5):
        _write(tier, f"n-{i}", f"deploy note {i}")
    conn = search_cache.open_cache(tmp_path / "cache.sqlite")
    assert _reads_rows(conn, tier) == (True, True)
    assert _reads_rows(conn, tier) == (False, False)  # digest matches: no row read

    # An edit in place (same size, new mtime) changes the digest: compared and re-read.
    path = tier / "n-2.md"
    path.write_text(path.read_text().replace("note 2", "memo 2"))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert _reads_rows(conn, tier) == (True, True)
    hits = search_cache.search(conn, tier, "memo", 5)
    assert [h.entry.name for h in hits] == ["n-2"]
    assert _reads_rows(conn, tier) == (False, False)

    # A removed file, and a recorded digest that went missing: both fall back to comparing.
    (tier / "n-0.md").unlink()
    assert _reads_rows(conn, tier) == (True, True)
    conn.execute("DELETE FROM state")
    assert _reads_rows(conn, tier) == (False, True)
    assert _reads_rows(conn, tier) == (False, False)
    names = sorted(e.name for e in tier_scan.scan(conn, tier).entries)
    assert names == ["n-1", "n-2", "n-3", "n-4"]
