"""The review queue: everything in the memory that needs a person, one item at a time
(issue 25.4, docs/adr/0054).

An item is a conflict copy from sync, an import collision (``<name>-imported-<n>``), an exact
or near duplicate, a contradiction (coffer.store.contradictions) or a stale entry
(coffer.store.freshness), across the project and global tiers. Each has a stable id: the
digest of its kind and its entries' names and text, so an item a person kept ("leave it as
it is") stays out of the queue until one of its entries changes. What resolving an item
does (keep one, merge, forget, verify) is coffer.projection.review: those are writes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from coffer.base import fsutil
from coffer.store import contradictions
from coffer.store.conflict_copies import CONFLICT_OF, is_conflict_copy
from coffer.store.health import duplicates
from coffer.store.pending import is_pending
from coffer.store.store import Store
from coffer.store.tier import Found, Tier
from coffer.store.views import entries_json

KINDS = (
    "conflict", "collision", "duplicate", "near-duplicate", "contradiction", "stale", "pending"
)  # fmt: skip
# What a person can do with each kind: ``keep`` leaves every entry as it is; ``keep:N``
# keeps entry N alone (a conflict's original takes the copy's text when N is the copy);
# ``merge`` edits the entries into the first; ``forget:N``; ``verify`` (stale entries);
# ``accept`` (an agent's pending entry: every agent may load it now, coffer.store.pending).
ACTIONS = {
    "conflict": ("keep:1", "keep:2", "merge"),
    "collision": ("keep", "keep:1", "keep:2", "merge"),
    "duplicate": ("keep:1", "keep:2", "keep"),
    "near-duplicate": ("keep", "keep:1", "keep:2", "merge"),
    "contradiction": ("keep", "keep:1", "keep:2", "merge"),
    "stale": ("verify", "keep", "forget:1"),
    "pending": ("accept", "forget:1"),
}
_IMPORTED = re.compile(r"(.+)-imported-\d+")
KEPT = "review-kept.json"


class Item(NamedTuple):
    """One thing to review: its kind, the entries it is about, and why."""

    id: str
    kind: str
    entries: tuple[Found, ...]
    why: str

    @property
    def actions(self) -> tuple[str, ...]:
        return ACTIONS[self.kind]

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "why": self.why,
            "actions": list(self.actions),
            "entries": entries_json(self.entries, body=True),
        }


def _item(kind: str, entries: Sequence[Found], why: str) -> Item:
    digest = hashlib.sha256(kind.encode())
    for f in entries:
        digest.update(f"\0{f.tier.scope}\0{f.entry.name}\0{f.entry.body}".encode())
    return Item(digest.hexdigest()[:12], kind, tuple(entries), why)


def _kept_path(store: Store) -> Path:
    return store.root / "state" / KEPT


def kept(store: Store) -> set[str]:
    """Ids of items a person chose to leave as they are."""
    data = fsutil.read_bytes_or_none(_kept_path(store))
    try:
        ids = json.loads(data) if data else []
    except ValueError:
        return set()  # a damaged list only brings items back; it loses nothing
    return {str(i) for i in ids} if isinstance(ids, list) else set()


def keep(store: Store, item: Item) -> None:
    """Leave ``item`` as it is: it stays out of the queue until one of its entries changes."""
    with store.store_lock():
        ids = sorted(kept(store) | {item.id})
        fsutil.ensure_dir(_kept_path(store).parent)
        fsutil.atomic_write_text(_kept_path(store), json.dumps(ids) + "\n")


def queue(store: Store, tiers: Sequence[Tier]) -> list[Item]:
    """Every item of ``tiers`` that needs a person, conflicts first, stale entries last."""
    found = [Found(t, e) for t in tiers for e in store.scan(t).entries]
    by_entry = {(f.tier.scope, f.entry.name): f for f in found}
    by_entry |= {(f.tier.scope, f.entry.filename): f for f in found}  # what conflict_of names
    items: list[Item] = []
    for f in found:
        scope = f.tier.scope
        if is_conflict_copy(f.entry):
            original = by_entry.get((scope, str(f.entry.metadata[CONFLICT_OF])))
            if original is not None:
                why = f"another machine changed {original.entry.name} at the same time"
                items.append(_item("conflict", [original, f], why))
            continue
        match = _IMPORTED.fullmatch(f.entry.name)
        base = by_entry.get((scope, match.group(1))) if match else None
        if base is not None:
            why = f"an agent's memory held another {base.entry.name} when it was imported"
            items.append(_item("collision", [base, f], why))
    plain = [f for f in found if not is_conflict_copy(f.entry)]
    index = {id(f.entry): f for f in plain}
    exact, near = duplicates([f.entry for f in plain])
    items += [_item("duplicate", [index[id(a)], index[id(b)]], "the same text") for a, b in exact]
    items += [
        _item("near-duplicate", [index[id(a)], index[id(b)]], f"{similar:.0%} the same words")
        for a, b, similar in near
    ]
    items += [
        _item("contradiction", [index[id(c.first)], index[id(c.second)]], c.summary())
        for c in contradictions.find([f.entry for f in plain])
    ]
    items += [_item("stale", [f], f.entry.stale) for f in plain if f.entry.stale]
    items += [
        _item(
            "pending",
            [f],
            f"written by {f.entry.metadata.get('origin')}; no other agent loads it yet",
        )
        for f in plain
        if is_pending(f.entry)
    ]
    done = kept(store)
    return [i for i in items if i.id not in done]
