"""``MEMORY.md``: the index Claude Code loads at session start, regenerated from the entries.

Claude loads only the first 200 lines and 25,000 UTF-16 code units of it, so
entries are ordered most useful first (feedback, user, project, reference; newest first
within a type) and whatever does not fit is counted in a final line that says how to
recall it. Lines an agent or a person wrote by hand that no entry explains are kept,
verbatim, right under the title: regeneration never drops them (docs/adr/0002).
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from coffer.base import fsutil
from coffer.store.entry import Entry, one_line

INDEX_NAME = "MEMORY.md"
TITLE = "# Memory"
MAX_LINES = 200
MAX_UNITS = 25_000
MAX_LINE_CHARS = 200
_TYPE_RANK = {"feedback": 0, "user": 1, "project": 2, "reference": 3}
_LINK_RE = re.compile(r"\]\(<?([^()<>]+?\.md)>?\)")
_FOOTER_PREFIX = "- …and "


def utf16_units(text: str) -> int:
    """Length as JavaScript counts it (what Claude's cap measures)."""
    return len(text.encode("utf-16-le")) // 2


_INVERTED_ASCII = {c: chr(0x10FFFF - c) for c in range(128)}


def priority(entry: Entry) -> tuple[int, int, int, str, str]:
    """Sort key: most useful first. By type; a stale entry after the fresh ones; then the
    often recalled (in doublings: one more recall rarely reorders a file agents load);
    newest first; name breaks ties."""
    recalled = -entry.recalled.bit_length()
    inverted = _newest_first(entry.updated_at)
    return (type_rank(entry), bool(entry.stale), recalled, inverted, entry.name)


def type_rank(entry: Entry) -> int:
    """The first part of :func:`priority`: the entry's type."""
    return _TYPE_RANK.get(entry.type or "", 4)


def _newest_first(updated: str) -> str:
    # Invert the ISO timestamp so a plain ascending sort puts the newest first.
    if not updated:
        return "\U0010ffff"
    if updated.isascii():  # every timestamp coffer writes: one C call per entry
        return updated.translate(_INVERTED_ASCII)
    return "".join(chr(0x10FFFF - ord(c)) for c in updated)


def newest_first(entry: Entry) -> bytes:
    """:func:`priority`'s date part as bytes that order as it does under a byte compare
    (SQLite's for a BLOB): UTF-32-BE keeps code point order, a prefix first; an inverted
    lone surrogate (a hand-written date may hold one) passes through."""
    return _newest_first(entry.updated_at).encode("utf-32-be", "surrogatepass")


def _link_target(filename: str) -> str:
    # A file name may hold a line break or "<>": percent-encode those, so one index line
    # stays one line and the link stays a link.
    safe = "".join(quote(c) if not c.isprintable() or c in "<>" else c for c in filename)
    return f"<{safe}>" if any(c in safe for c in " ()") else safe


def stale_mark(entry: Entry) -> str:
    """What an index line or a block says of a stale entry (docs/adr/0053), or nothing."""
    return f"[stale: {one_line(entry.stale, 100)}]" if entry.stale else ""


def entry_line(entry: Entry) -> str:
    head = f"- [{entry.name}]({_link_target(entry.filename)})"
    if entry.metadata.get("pending") is True:  # an agent's, not yet accepted (ADR 0054)
        head = f"{head} [pending]"
    if entry.stale:  # before the description, so a long one is cut, never the mark
        head = f"{head} {stale_mark(entry)}"
    if not entry.description:
        return head
    room = MAX_LINE_CHARS - len(head) - 3
    return f"{head} — {one_line(entry.description, max(room, 20))}"


class RenderedIndex(NamedTuple):
    """The index text and what it left out."""

    text: str
    generated: tuple[str, ...]
    omitted: int


def _target(line: str) -> str | None:
    match = _LINK_RE.search(line)
    if match is None:
        return None
    target = match.group(1).strip()
    return target[2:] if target.startswith("./") else target


def links_to(line: str, files: Iterable[str]) -> bool:
    """Whether ``line`` is an index line pointing at one of ``files``."""
    target = _target(line)
    return target is not None and target in set(files)


def preserved_lines(
    current: str,
    entry_files: Iterable[str] | Container[str],
    previously_generated: Iterable[str],
) -> list[str]:
    """Lines of the current ``MEMORY.md`` that no entry explains: kept verbatim.
    ``entry_files``: the tier's files; one that cannot be listed is asked for each line's
    (coffer.store.index_rows looks a few up rather than read 10,000 names)."""
    files = set(entry_files) if isinstance(entry_files, Iterable) else entry_files
    generated = set(previously_generated)
    kept: list[str] = []
    for i, line in enumerate(current.splitlines()):
        stripped = line.strip()
        if i == 0 and stripped.startswith("# "):
            continue  # the title: always regenerated
        if stripped.startswith(_FOOTER_PREFIX) and "more entr" in stripped:
            continue
        if line in generated:
            continue
        if _target(line) in files:
            continue  # an index line for an existing entry: derivable
        if not stripped and (not kept or not kept[-1].strip()):
            continue  # collapse blank runs
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


def render(
    entries: Sequence[Entry], kept: Sequence[str], *, ordered: bool = False
) -> RenderedIndex:
    """Build the index within Claude's line and size caps; ``ordered``: ``entries`` come
    sorted by :func:`priority` already (coffer.store.index_rows builds them as needed)."""
    head = [TITLE, ""]
    if kept:
        head += [*kept, ""]
    ordered_entries = entries if ordered else sorted(entries, key=priority)
    lines = list(head)
    units = sum(utf16_units(x) + 1 for x in lines)
    generated: list[str] = []
    # Reserve room for the footer so it always fits.
    footer_units = 160
    for n, entry in enumerate(ordered_entries):
        line = entry_line(entry)
        cost = utf16_units(line) + 1
        remaining = len(ordered_entries) - n - 1
        need_footer = remaining > 0
        if (
            len(lines) + 1 + (1 if need_footer else 0) > MAX_LINES
            or units + cost + (footer_units if need_footer else 0) > MAX_UNITS
        ):
            break
        lines.append(line)
        generated.append(line)
        units += cost
    omitted = len(ordered_entries) - len(generated)
    if omitted:
        noun = "entry" if omitted == 1 else "entries"
        footer = (
            f"{_FOOTER_PREFIX}{omitted} more {noun} not listed here: run "
            "`coffer recall <words>` or read the files in this directory."
        )
        lines.append(footer)
        generated.append(footer)
    if lines[-1] == "":
        lines.pop()
    return RenderedIndex("\n".join(lines) + "\n", tuple(generated), omitted)


def _state_path(base: Path) -> Path:
    return base / "index-state.json"


def load_generated(base: Path) -> list[str]:
    data = fsutil.read_bytes_or_none(_state_path(base))
    if not data:
        return []
    try:
        lines = json.loads(data).get("generated", [])
    except (ValueError, AttributeError):
        return []
    return [str(x) for x in lines] if isinstance(lines, list) else []


def save_generated(base: Path, generated: Sequence[str]) -> None:
    text = json.dumps({"generated": list(generated)}, ensure_ascii=False, indent=1) + "\n"
    fsutil.write_if_changed(_state_path(base), text.encode("utf-8"))
