"""`coffer edit NAME`: the entry's file as the user's editor left it becomes the entry,
through the checks every write passes (docs/adr/0046).

The text is parsed as an entry file (frontmatter that loads, a body), keeps its name and
file, passes the secret gate whole (every byte is stored and synced), and is written as any
write is: serialized, ``updated_at`` and the writer stamped, the text digest sealed,
MEMORY.md regenerated, under the tier's lock. A file that changed since the edit began is
not overwritten. A bad edit raises; the entry stays as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.base import fsutil
from coffer.base.errors import InvalidInputError, StoreError
from coffer.store import drafts, index_file, projects, provenance
from coffer.store.entry import Entry, EntryParseError, check_type, parse
from coffer.store.tier import Found, Saved

if TYPE_CHECKING:
    from coffer.store.store import Store


def checked(old: Entry, text: str) -> Entry:
    """``text`` as the entry ``old`` becomes, or InvalidInputError saying what is wrong."""
    try:
        entry = parse(text, old.filename)
    except EntryParseError as exc:
        raise InvalidInputError(f"the edited entry cannot be read: {exc}") from None
    if entry.name != old.name:
        raise InvalidInputError(
            f"the edit renames {old.name!r} to {entry.name!r}; an entry keeps its name "
            "(`coffer remember --name new-name TEXT`, then `coffer forget` the old one)"
        )
    if not entry.body.strip():
        raise InvalidInputError("the edited entry is empty; `coffer forget` deletes one")
    kind = entry.metadata.get("type")
    check_type(kind if isinstance(kind, str) or kind is None else str(kind))
    drafts.check_secrets(text)
    return entry


def edit(store: Store, found: Found, text: str, *, base: str) -> Saved:
    """Write ``text`` as ``found``'s entry; ``base`` is the file as the edit began."""
    entry, tier = checked(found.entry, text), found.tier
    path = fsutil.safe_child(tier.dir, found.entry.filename)
    with store.lock(tier):
        kept = store.kept(tier)
        if path.read_text(encoding="utf-8", errors="surrogateescape") != base:
            raise StoreError(f"{path} changed while it was being edited; edit it again")
        if entry == found.entry._replace(stale="", recalled=0):  # what the file holds
            return Saved(tier, found.entry, "unchanged")
        # Stamped and sealed as Store.update stamps them, so the change is the writer's: a
        # file that no longer matches its digest reads as the linked agent's (ADR 0051).
        came = provenance.carried(found.entry, provenance.merged(tier.base))
        meta = {k: came[k] for k in ("origin", "origin_machine", "origin_at") if came.get(k)}
        meta = {**meta, **entry.metadata, "updated_at": projects.now_iso()}
        meta = provenance.stamped(meta, "updated", store.writer, store.root)
        entry = entry._replace(metadata=meta)
        fsutil.atomic_write_text(path, drafts.file_text(entry))
        kept.wrote(entry.filename)
        index_file.write_if_stale(tier, store.scan)
    return Saved(tier, entry, "updated")
