"""What a write will store, decided before the file is touched (``Store.remember`` and
``Store.update``): the checks on the text, the name, and whether it is a new entry, a
replacement or the same memory again. Pure apart from the clock and new ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple, TypedDict

from coffer.base.errors import EntryExistsError, InvalidInputError, SecretRefusedError
from coffer.base.identity import MAX_SESSION_ID, is_session_id
from coffer.base.text import check_utf8
from coffer.secrets import find_secrets, redact
from coffer.store import projects
from coffer.store.entry import (
    MAX_BODY_BYTES,
    Entry,
    check_not_reserved,
    check_type,
    derived_name,
    first_line,
    one_line,
    same_text_key,
    slugify,
    unreserved,
)
from coffer.store.incoming import MAX_ENTRY_FILE, too_large
from coffer.store.tier import Scope
from coffer.store.ulid import new_id

Action = Literal["created", "updated", "unchanged"]


class RememberOptions(NamedTuple):
    """What ``remember`` is told besides the text, name, description and type."""

    replace_existing: bool = False  # overwrite an entry of the same explicit name
    origin_session_id: str | None = None
    extra: Mapping[str, str] | None = None  # metadata keys (provenance of imported memories)
    # What the entry is about (PATH or PATH#SYMBOL) and when to look again (a date or an
    # age): coffer.store.freshness. Paths quoted in the text are anchored too.
    anchors: Sequence[str] = ()
    review_after: str | None = None


class RememberFields(TypedDict, total=False):
    """The keywords of ``remember``, declared once: :meth:`Store.remember` takes them, and
    the writes that refresh the agents' files after it (coffer.projection.writes) pass
    them on unchanged."""

    name: str | None
    description: str | None
    type: str | None
    options: RememberOptions | None


class Revision(NamedTuple):
    """What ``update`` changes in an entry; None (or no anchors) leaves a part as it is."""

    text: str | None = None
    description: str | None = None
    type: str | None = None
    anchors: Sequence[str] = ()  # PATH or PATH#SYMBOL, added to those the entry has
    review_after: str | None = None  # a date or an age (coffer.store.freshness)
    verified: bool = False  # a person checked the entry now: its anchors' contents are true
    accepted: bool = False  # a person accepted an agent's pending entry (coffer.store.pending)

    @property
    def empty(self) -> bool:
        return self == Revision()


class Draft(NamedTuple):
    """The checked text of a new entry and the name it asks for."""

    body: str
    description: str
    base_name: str
    explicit: bool  # the name was given, not derived from the text
    type: str | None
    kind: str  # the type it gets when none is given


def check_secrets(*texts: str) -> None:
    labels = find_secrets("\n".join(texts))
    if labels:
        raise SecretRefusedError(
            f"refusing to store text that looks like a secret ({', '.join(labels)}); "
            "remove the credential and try again"
        )


def check_session_id(value: str | None) -> str | None:
    """``value`` when it is a usable session id (or None); refuses anything else."""
    if value is None or is_session_id(value):
        return value
    raise InvalidInputError(
        f"{value[:40]!r} is not a session id: use 1 to {MAX_SESSION_ID} letters, digits, "
        "'.', '_', ':' or '-', starting with a letter or digit"
    )


def draft(
    text: str, name: str | None, description: str | None, type: str | None, scope: Scope
) -> Draft:
    """Check ``text`` for ``remember``: not empty, not too large, no secret, a usable name."""
    check_utf8(text, name or "", description or "")
    body = text.strip()
    if not body:
        raise InvalidInputError("nothing to remember: the text is empty")
    check_body_size(body)
    check_type(type)
    desc = one_line(description) if description else first_line(body)
    check_secrets(body, desc, name or "")
    explicit = name is not None
    base_name = slugify(name) if name is not None else unreserved(derived_name(desc or body))
    if explicit:  # `con` asked for by name is refused, as `--name con` is
        check_not_reserved(base_name)
    if not base_name:
        raise InvalidInputError(
            f"cannot make an entry name from {name!r}: use letters or digits"
            if explicit
            else "cannot derive a name from the text; pass --name"
        )
    kind = type or ("project" if scope == "project" else "user")
    return Draft(body, desc, base_name, explicit, type, kind)


def place(
    d: Draft, current: Sequence[Entry], files: set[str], options: RememberOptions, label: str
) -> tuple[Entry, Action]:
    """The entry ``d`` becomes among the tier's ``current`` entries and ``files``; never
    silently overwrites (``label`` names the tier in the refusal)."""
    check_session_id(options.origin_session_id)
    by_name = {e.name: e for e in current}
    now = projects.now_iso()
    existing = by_name.get(d.base_name) if d.explicit else None
    if existing is not None:
        if existing.body.strip() == d.body and existing.description == d.description:
            return existing, "unchanged"
        if not options.replace_existing:
            raise EntryExistsError(
                f"an entry named {d.base_name!r} already exists in {label}; "
                "pass --replace to overwrite it, or choose another --name"
            )
        meta = dict(existing.metadata)
        # a replacement keeps the entry's origin (docs/adr/0051)
        meta.update({k: v for k, v in (options.extra or {}).items() if k != "origin"})
        if options.origin_session_id:  # the text now comes from this session
            meta["origin_session_id"] = options.origin_session_id
        meta.update({"type": d.type or meta.get("type") or d.kind, "updated_at": now})
        return existing._replace(description=d.description, body=d.body, metadata=meta), "updated"
    # The same text again is the same memory, whatever name it would get.
    key = same_text_key(d.body)
    same = next((e for e in current if same_text_key(e.body) == key), None)
    if same is not None:
        return same, "unchanged"
    final = d.base_name
    n = 2
    while final in by_name or f"{final}.md" in files:
        final = f"{d.base_name[:60]}-{n}"
        n += 1
    meta = {"type": d.kind, "id": new_id(), "created_at": now, "updated_at": now}
    if options.origin_session_id:
        meta["origin_session_id"] = options.origin_session_id
    meta.update(options.extra or {})
    return Entry(final, d.description, d.body, meta, f"{final}.md"), "created"


def check_body_size(body: str) -> None:
    size = len(body.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        raise InvalidInputError(
            f"the text is {size} bytes; entries hold at most "
            f"{MAX_BODY_BYTES} (split it, or keep the detail in the repository)"
        )


def check_file_size(text: str, filename: str) -> None:
    """Refuse to write an entry file the store would not read back (docs/adr/0043): the
    body is capped, but kept frontmatter (an entry that came in by another way) is not."""
    size = len(text.encode("utf-8", "surrogateescape"))
    if size > MAX_ENTRY_FILE:
        raise InvalidInputError(f"{redact(filename)} {too_large(size)}")


def file_text(entry: Entry) -> str:
    """The file ``entry`` is written as, once checked within the size limit."""
    from coffer.store.entry import serialize
    from coffer.store.provenance import sealed

    entry = sealed(entry)  # what coffer wrote, so a change nobody told it about shows
    text = serialize(entry)
    check_file_size(text, entry.filename)
    return text


def revised_text(old: Entry, text: str | None, description: str | None) -> tuple[str, str]:
    """(body, description) for ``update``: a description derived from the old text is
    derived again from the new one; one given by hand is kept."""
    check_utf8(text or "", description or "")
    body = text.strip() if text is not None else old.body.strip()
    if not body:
        raise InvalidInputError("the new text is empty; use forget to delete an entry")
    if text is not None:
        check_body_size(body)
    desc = old.description
    if description:
        desc = one_line(description)
    elif desc == first_line(old.body.strip()):
        desc = first_line(body)
    check_secrets(body, desc)
    return body, desc
