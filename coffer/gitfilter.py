"""git's filter for files holding a coffer block (docs/adr/0015, 0040).

``<common git dir>/config`` names it for the files ``info/attributes`` marks
``filter=coffer``:

- ``clean`` (``<python> -I -m coffer.gitfilter``): stdin without the block, on stdout, so git
  stores, diffs and commits those files as if coffer had never written there;
- ``smudge`` (``… --smudge %f <dir>``): when git writes such a file (checkout, stash,
  apply), the blob on stdin with the block coffer last wrote there put back (``<dir>`` holds
  each file's block, named by ``block_format.block_key`` of its path), so a git command never strips
  the personal block from the work tree, nor leaves the index believing a file of another
  size is there (git removes the old file before it runs the smudge command).

It must never lose a byte: anything it cannot parse (malformed markers, no block) goes
through unchanged, and it writes nothing before it has the whole answer. Imports nothing but
:mod:`coffer.projection.managed_block`.
"""

from __future__ import annotations

import os
import sys


def _smudged(data: bytes, path: str, blocks: str) -> bytes:
    from coffer.projection.managed_block import block_key, find, upsert

    if find(data) is not None:
        return data  # the blob carries a block of its own (committed): left as it is
    try:
        with open(os.path.join(blocks, block_key(path)), encoding="utf-8") as fh:
            body = fh.read()
    except (OSError, UnicodeError):
        return data  # no block coffer wrote there (a clone, an unprojected file)
    return upsert(data, body)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    data = sys.stdin.buffer.read()
    try:
        if len(args) == 3 and args[0] == "--smudge":
            out = _smudged(data, args[1], args[2])
        else:
            from coffer.projection.managed_block import remove

            out = remove(data)
    except Exception:
        out = data  # a block coffer cannot read is the user's to fix; git gets the file
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
