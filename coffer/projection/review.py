"""Resolving a review item (coffer.store.review): each choice is made of the writes every
front end uses (:class:`~coffer.projection.writes.Writer`), so the secret gate applies and
every block showing the tier is refreshed (docs/adr/0054)."""

from __future__ import annotations

import re
from pathlib import Path

from coffer.base.errors import InvalidInputError
from coffer.projection.writes import Writer
from coffer.store import Revision
from coffer.store.review import Item, keep
from coffer.store.tier import Found

_FROM = "<!-- from {} ({}): edit into one text; this line is dropped -->"
_COPY_OF = re.compile(r"^Conflict copy from [^:]*: ")  # what sync puts before it (sync.merge)
_FROM_LINE = re.compile(r"^<!-- from .* this line is dropped -->\n?", re.M)


def _others_after(text: str, item: Item) -> str:
    for other in item.entries[1:]:
        text = text.rstrip("\n") + f"\n\n{_FROM.format(other.entry.name, other.tier.label)}\n"
        text += other.entry.body.strip() + "\n"
    return text


def merge_draft(item: Item) -> str:
    """The text a merge starts from: the first entry's file, the others' text after it."""
    first = item.entries[0]
    return _others_after(
        (first.tier.dir / first.entry.filename).read_text("utf-8", "surrogateescape"), item
    )


def merge_body(item: Item) -> str:
    """:func:`merge_draft` without the first entry's frontmatter: its text, the others'
    after it (what a page shows; :func:`merged_file` puts the frontmatter back)."""
    return _others_after(item.entries[0].entry.body, item)


def merged_file(item: Item, body: str, description: str | None = None) -> str:
    """The file a merge writes from an edited :func:`merge_body`: the first entry's
    frontmatter (with ``description`` when one is given) over ``body``."""
    from coffer.store.entry import serialize

    first = item.entries[0].entry
    return serialize(first._replace(body=body, description=description or first.description))


def resolve(writer: Writer, item: Item, action: str, merged: str | None = None) -> list[Path]:
    """Do ``action`` (one of ``item.actions``); ``merged`` is the edited :func:`merge_draft`
    for ``merge``. Returns the files outside the store that the writes refreshed."""
    if action not in item.actions:
        raise InvalidInputError(
            f"{action!r} is not a choice for a {item.kind}: choose one of {', '.join(item.actions)}"
        )
    verb, _, which = action.partition(":")
    updated: list[Path] = []
    if verb == "keep" and not which:
        keep(writer.store, item)
    elif verb in ("verify", "accept"):
        f = item.entries[0]
        change = Revision(verified=True) if verb == "verify" else Revision(accepted=True)
        updated += writer.update(f.tier, f.entry.name, change)[1].updated
    elif verb == "forget":
        updated += _forget(writer, [item.entries[int(which) - 1]])
    elif verb == "keep":
        chosen = item.entries[int(which) - 1]
        first = item.entries[0]
        if item.kind == "conflict" and chosen is not first:
            # The copy's text wins, under the original's name; the copy goes.
            description = _COPY_OF.sub("", chosen.entry.description) or None
            change = Revision(chosen.entry.body, description)
            updated += writer.update(first.tier, first.entry.name, change)[1].updated
            chosen = first
        updated += _forget(writer, [f for f in item.entries if f is not chosen])
    else:  # merge
        if merged is None:
            raise InvalidInputError("a merge needs the merged text")
        first = item.entries[0]
        base = (first.tier.dir / first.entry.filename).read_text("utf-8", "surrogateescape")
        updated += writer.edit(first, _FROM_LINE.sub("", merged), base=base)[1].updated
        updated += _forget(writer, list(item.entries[1:]))
    return list(dict.fromkeys(updated))


def _forget(writer: Writer, entries: list[Found]) -> list[Path]:
    out: list[Path] = []
    for f in entries:
        out += writer.forget(f.tier, f.entry.name)[1].updated
    return out
