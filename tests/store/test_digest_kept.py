"""The search cache keeps each entry's provenance digest (docs/adr/0043, 0051): a stamp of
an unchanged linked tier hashes nothing, and the kept digest is always the one
coffer.store.provenance.digest computes."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffer.store import agent_writes, provenance, search_cache, tier_scan
from coffer.store.cache_open import connected
from coffer.store.entry import TYPES, Entry, serialize
from coffer.store.store import Store
from coffer.store.tier import Tier

ENTRY = "---\nname: {name}\ndescription: about {name}\nmetadata:\n  type: project\n---\n{body}\n"


def _reference(entry: Entry) -> str:
    """The digest as ADR 0051 defines it: what provenance.json and ``text_digest`` hold."""
    text = "\x1f".join(
        (entry.name, entry.description, entry.type or "", " ".join(entry.body.split()))
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_SPACE = st.sampled_from([" ", "  ", "\t", "\n", "\n\n", "\r\n", "\u00a0", "\u2003", "\x0b"])
_WORD = st.text(st.characters(codec="utf-8", exclude_categories=("Zs", "Cc")), min_size=1)
_BODY = st.lists(st.tuples(_WORD, _SPACE), max_size=6).map(
    lambda parts: "".join(w + s for w, s in parts)
)
_TYPE = st.sampled_from([None, *TYPES, "other", 3, ["user"]])


@st.composite
def _entries(draw: st.DrawFn) -> Entry:
    meta: dict[str, Any] = {}
    kind = draw(_TYPE)
    if kind is not None:
        meta["type"] = kind
    return Entry(
        name=draw(st.text(max_size=20)),
        description=draw(st.text(max_size=30)),
        body=draw(_BODY),
        metadata=meta,
        filename=draw(st.sampled_from(["a.md", "b.md"])),
    )


@given(_entries(), _entries())
def test_the_memo_returns_what_a_fresh_digest_computes(one: Entry, other: Entry) -> None:
    provenance._DIGESTS.clear()
    for entry in (one, other, one, other):  # computed, then from the memo
        assert provenance.digest(entry) == _reference(entry)
    # The same text with other spacing (or in another file) is the same digest.
    spaced = one._replace(body="\n " + "\t\t".join(one.body.split()) + " \n", filename="c.md")
    assert provenance.digest(spaced) == _reference(spaced) == _reference(one)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_entries(), min_size=1, max_size=4))
def test_a_digest_kept_in_the_cache_is_the_one_digest_computes(entries: list[Entry]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tier = Path(tmp) / "memory"
        tier.mkdir()
        for n, e in enumerate(entries):
            name = f"e-{n}" if not e.name.strip() else e.name
            if isinstance(e.metadata.get("type"), list):
                continue  # YAML reads a list back, JSON keeps it: no entry's type either way
            text = serialize(e._replace(name=name))
            (tier / f"e-{n}.md").write_text(text, encoding="utf-8", errors="surrogatepass")
        with connected(Path(tmp) / "cache.sqlite") as conn:
            search_cache.sync(conn, tier)
            provenance._DIGESTS.clear()
            tier_scan._SCANS.clear()
            found = tier_scan.scan(conn, tier)
            kept = dict(conn.execute("SELECT filename, digest FROM files WHERE error IS NULL"))
        for e in found.entries:
            assert kept[e.filename] == provenance._DIGESTS[_key(e)] == _reference(e)
            assert provenance.digest(e) == _reference(e)


def _key(e: Entry) -> tuple[str, str, str, str]:
    return (e.name, e.description, e.type or "", e.body)


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Store, Tier]:
    """A store and the tier an agent's folder is linked to."""
    store = Store(tmp_path / "store", tmp_path)
    return store, store.global_tier(create=True)


def _hashes(monkeypatch: pytest.MonkeyPatch) -> mock.Mock:
    """Counts the texts provenance hashes from now on."""
    spy = mock.Mock(wraps=provenance._hashed)
    monkeypatch.setattr(provenance, "_hashed", spy)
    return spy


def _swept(store: Store, tier: Tier, files: int) -> None:
    """``files`` entries an agent left before provenance and three coffer wrote, past the
    tier's first sweep, seen as a new `coffer project` sees them: no digest, and no scan,
    known yet in this process."""
    for i in range(files):
        (tier.dir / f"n-{i:03}.md").write_text(ENTRY.format(name=f"n-{i:03}", body=f"note {i}"))
    for i in range(3):  # with origin and text_digest, as coffer writes them
        store.remember(tier, f"prefer small commits, take {i}", name=f"small-{i}")
    assert agent_writes.stamp_linked(store, tier, ["claude"])[0] == []  # the first sweep
    provenance._DIGESTS.clear()
    tier_scan._SCANS.clear()


def test_a_stamp_of_an_unchanged_tier_hashes_nothing(
    linked: tuple[Store, Tier], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, tier = linked
    _swept(store, tier, 300)
    seen = _hashes(monkeypatch)
    stamped, found = agent_writes.stamp_linked(store, tier, ["claude"])
    assert stamped == [] and found is not None and len(found.entries) == 303
    assert seen.call_count == 0
    assert all(provenance.digest(e) == _reference(e) for e in found.entries)
    assert seen.call_count == 0


def test_an_agents_edit_in_place_is_still_stamped(
    linked: tuple[Store, Tier], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, tier = linked
    _swept(store, tier, 5)
    agent_writes.stamp_linked(store, tier, ["claude"])  # the rows read, digests known
    # one predating provenance, one coffer wrote
    for name, old, new in (("n-002.md", "note 2", "note two"), ("small-1.md", "take 1", "one")):
        path = tier.dir / name
        path.write_text(path.read_text().replace(old, new))
        stamp = path.stat()
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    seen = _hashes(monkeypatch)
    stamped, _ = agent_writes.stamp_linked(store, tier, ["claude"])
    assert sorted(stamped) == ["n-002.md", "small-1.md"]
    by = {e.filename: e.metadata.get("updated_by") for e in store.scan(tier).entries}
    assert by["n-002.md"] == by["small-1.md"] == "agent:claude" and by["n-001.md"] is None
    # Only what changed was hashed: the two edits as read, and as each stamp wrote them.
    assert 0 < seen.call_count <= 6


def test_a_cache_of_schema_6_is_rebuilt_with_the_digests(linked: tuple[Store, Tier]) -> None:
    store, tier = linked
    _swept(store, tier, 2)
    with connected(tier.base / "cache.sqlite") as conn:
        conn.execute("PRAGMA user_version = 6")  # rows without their digest
    found = store.scan(tier).entries
    with connected(tier.base / "cache.sqlite") as conn:
        kept = dict(conn.execute("SELECT filename, digest FROM files"))
    assert kept == {e.filename: _reference(e) for e in found} and len(kept) == 5
    sealed = [e for e in found if "text_digest" in e.metadata]  # coffer's three
    assert len(sealed) == 3 and all(kept[e.filename] == e.metadata["text_digest"] for e in sealed)
