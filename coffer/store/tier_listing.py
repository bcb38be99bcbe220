"""A tier directory as the search cache sees it: its files' stats, and one digest of them.

The cache (coffer.store.search_cache) keys each row on a file's inode, size and mtime, and
keeps a digest of the whole listing after each complete sync: while the directory still
gives that digest, no row needs reading. Listing 10,000 entries is most of a recall, so it
is done through a directory descriptor, in one pass, building nothing per file that the
digest does not need.
"""

from __future__ import annotations

import os
import zlib
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path

from coffer.store.index import INDEX_NAME

# Listed through a descriptor, each entry's stat is an fstatat relative to it rather than a
# walk of the whole path again: at 10,000 entries that is a sixth of a recall's lstats.
_BY_FD = os.scandir in os.supports_fd


def stats(tier_dir: Path) -> Iterator[tuple[str, os.stat_result]]:
    """(name, lstat) of every file that may be an entry, in directory order."""
    try:
        where: int | Path = os.open(tier_dir, os.O_RDONLY | os.O_DIRECTORY) if _BY_FD else tier_dir
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        try:
            it = os.scandir(where)
        except (FileNotFoundError, NotADirectoryError):
            return  # the path form: no directory there
        with it:
            for de in it:
                name = de.name
                # Hidden files are not entries; coffer's temp files (.coffer-tmp-*) are too.
                if name.startswith(".") or name == INDEX_NAME:
                    continue
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # removed since the directory was read (an agent's delete)
                yield name, st
    finally:
        if isinstance(where, int):
            os.close(where)


def listing(tier_dir: Path) -> dict[str, os.stat_result]:
    return dict(stats(tier_dir))


_INT63 = (1 << 63) - 1


def digest(listing: Iterable[tuple[str, os.stat_result]]) -> str:
    """One value for the listing, in directory order (another order only costs a full
    compare): every name with the stat fields the cache keys on, two checksums and sizes.
    Names and numbers are packed apart (C loops, no per-row formatting): at 10,000 entries
    this is under a millisecond, where a repr of the rows took twenty."""
    names: list[str] = []
    numbers = array("q")  # signed: an mtime may be negative; an inode number is folded in
    add, extend = names.append, numbers.extend
    for name, st in listing:
        add(name)
        extend((st.st_ino & _INT63, st.st_size, st.st_mtime_ns))
    return _packed(names, numbers)


def directory_digest(tier_dir: Path) -> str:
    """``digest(stats(tier_dir))``, in one loop with no generator or pair per file: taken
    at every recall while nothing changed, where the loop's own work was a sixth of the
    run after the stats themselves (docs/adr/0039)."""
    names: list[str] = []
    numbers = array("q")
    add, put = names.append, numbers.append
    try:
        where: int | Path = os.open(tier_dir, os.O_RDONLY | os.O_DIRECTORY) if _BY_FD else tier_dir
    except (FileNotFoundError, NotADirectoryError):
        return _packed(names, numbers)
    try:
        try:
            it = os.scandir(where)
        except (FileNotFoundError, NotADirectoryError):
            return _packed(names, numbers)
        with it:
            for de in it:
                name = de.name
                if name.startswith(".") or name == INDEX_NAME:  # as stats() skips them
                    continue
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # as stats() skips it
                add(name)
                put(st.st_ino & _INT63)
                put(st.st_size)
                put(st.st_mtime_ns)
    finally:
        if isinstance(where, int):
            os.close(where)
    return _packed(names, numbers)


def _packed(names: list[str], numbers: array[int]) -> str:
    joined = "\0".join(names).encode("utf-8", "surrogateescape")
    raw = numbers.tobytes()
    sums = (zlib.crc32(joined), zlib.adler32(joined), zlib.crc32(raw), zlib.adler32(raw))
    return f"{len(names)}:{len(joined)}:" + "".join(f"{v:08x}" for v in sums)
