"""The three-way decision, file by file, that replaces git's textual merge (docs/adr/0034).

One entry is one file, so two machines adding or changing different entries merge with no
question. For each path, with ``base`` the version at the merge base: a side that did not
change it takes the other side's version (a deletion included); an edit beats a deletion;
two different edits keep ours at the path and theirs as a conflict copy, a separate entry
that ``coffer doctor`` reports. No file ever gets conflict markers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from coffer.store.conflict_copies import CONFLICT_AT, CONFLICT_FROM, CONFLICT_OF
from coffer.store.entry import EntryParseError, parse, serialize
from coffer.sync.tree import Obj

CONFLICT_TAG = ".conflict-"


class Decision(NamedTuple):
    merged: dict[str, Obj]
    conflicts: tuple[tuple[str, Obj], ...]  # (path, their version) where both sides changed


def decide(base: Mapping[str, Obj], ours: Mapping[str, Obj], theirs: Mapping[str, Obj]) -> Decision:
    merged: dict[str, Obj] = {}
    conflicts: list[tuple[str, Obj]] = []
    for path in sorted(set(base) | set(ours) | set(theirs)):
        b, o, t = base.get(path), ours.get(path), theirs.get(path)
        if o == t or t == b:
            chosen = o
        elif o == b:
            chosen = t
        elif o is None or t is None:
            chosen = o or t  # an edit against a deletion: the edit stays
        else:
            chosen = o
            conflicts.append((path, t))
        if chosen is not None:
            merged[path] = chosen
    return Decision(merged, tuple(conflicts))


def copy_name(path: str, host: str, day: str, taken: set[str]) -> str:
    """``<dir>/<stem>.conflict-<host>-<day>.md``, numbered when that is taken."""
    head, _, name = path.rpartition("/")
    stem = name.removesuffix(".md")
    candidate = f"{head}/{stem}{CONFLICT_TAG}{host}-{day}.md"
    n = 2
    while candidate in taken:
        candidate = f"{head}/{stem}{CONFLICT_TAG}{host}-{day}-{n}.md"
        n += 1
    return candidate


def conflict_copy(data: bytes, original: str, host: str, when: str) -> bytes | None:
    """Their version of ``original`` as an entry of its own, its frontmatter naming where it
    came from; None when their version is no entry (it is then refused like any bad file)."""
    try:
        entry = parse(data.decode("utf-8"), original)
    except (UnicodeDecodeError, EntryParseError):
        return None
    meta = dict(entry.metadata)
    meta.update({CONFLICT_OF: original, CONFLICT_FROM: host, CONFLICT_AT: when})
    name = f"{entry.name}-conflict-{host}"[:64].rstrip("-")
    description = f"Conflict copy from {host}: {entry.description}"[:200]
    copy = entry._replace(name=name, description=description, metadata=meta)
    if meta.get("origin"):
        from coffer.store.provenance import sealed

        copy = sealed(copy)  # renamed by coffer, not changed by an agent (docs/adr/0051)
    return serialize(copy).encode()
