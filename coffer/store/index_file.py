"""Keeping a tier's ``MEMORY.md`` in step with its entries (the Store's index writes)."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence

from coffer.base import fsutil
from coffer.base.errors import StoreError
from coffer.secrets import find_secrets
from coffer.store import index
from coffer.store.entry import MAX_SHOWN_NAME, Entry, shown_field, withheld
from coffer.store.search_cache import TierScan, UnusableFile
from coffer.store.tier import Tier

# What MEMORY.md should hold, and what it holds (None: no such file).
Expected = tuple[index.RenderedIndex, bytes | None]


def placeholders(problems: Iterable[UnusableFile]) -> list[Entry]:
    """The index's lines for unparsable files: hiding them would hide memory. One whose
    file name the secret gate flags gets none (`coffer doctor` names it)."""
    return [
        Entry(
            shown_field(p.filename.removesuffix(".md"), MAX_SHOWN_NAME),
            "(unreadable entry: see `coffer doctor`)",
            "",
            {},
            p.filename,
        )
        for p in problems
        if p.filename.endswith(".md") and not find_secrets(p.filename)
    ]


def expected(tier: Tier, scan: TierScan) -> tuple[index.RenderedIndex, bytes | None]:
    """What MEMORY.md should hold now (from ``scan``, the tier's files), and what it holds."""
    # Entries the secret gate flags (in any field, or in their file name) are not listed:
    # the index is a rendered file agents load, and `coffer doctor` names them.
    listed = [e for e in scan.entries if not withheld(e)] + placeholders(scan.problems)
    every_file = [e.filename for e in scan.entries] + [p.filename for p in scan.problems]
    return rendered(tier, listed, every_file)


def rendered(
    tier: Tier,
    listed: Sequence[Entry],
    every_file: Iterable[str] | Container[str],
    *,
    ordered: bool = False,
) -> tuple[index.RenderedIndex, bytes | None]:
    """The index of ``listed`` with the lines of MEMORY.md no file of ``every_file``
    explains, and what MEMORY.md holds (``ordered``: as ``index.render`` takes it)."""
    current = fsutil.read_bytes_or_none(tier.dir / index.INDEX_NAME)
    text = current.decode("utf-8", errors="surrogateescape") if current else ""
    kept = index.preserved_lines(text, every_file, index.load_generated(tier.base))
    return index.render(listed, kept, ordered=ordered), current


def write_if_stale(tier: Tier, scan: Callable[[Tier], TierScan]) -> bool:
    """Rewrite MEMORY.md when it differs from what ``scan(tier)`` gives (under the tier's
    lock, taken by the caller); return whether it did."""
    return write_expected(tier, lambda t: expected(t, scan(t)))


def write_expected(tier: Tier, expect: Callable[[Tier], Expected]) -> bool:
    """Rewrite MEMORY.md when it differs from what ``expect(tier)`` says it should hold
    (under the tier's lock, taken by the caller); return whether it did."""
    path = tier.dir / index.INDEX_NAME
    for _ in range(3):
        rendered, current = expect(tier)
        data = rendered.text.encode("utf-8", errors="surrogateescape")
        if current == data:
            index.save_generated(tier.base, rendered.generated)
            return False
        # Agents write MEMORY.md without coffer's lock (Claude edits it in place): if it
        # changed while we rendered, render again rather than drop what was added.
        if fsutil.read_bytes_or_none(path) != current:
            continue
        fsutil.atomic_write_bytes(path, data)
        index.save_generated(tier.base, rendered.generated)
        return True
    raise StoreError(f"{path} keeps changing while coffer regenerates it; try again")
