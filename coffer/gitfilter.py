"""git's clean filter for files holding a coffer block: stdin without the block, on stdout.

``<common git dir>/config`` names it as ``filter.coffer.clean`` (``<python> -I -m
coffer.gitfilter``) for the files ``info/attributes`` marks ``filter=coffer``, so git stores,
diffs and commits those files as if coffer had never written there. It must never lose a
byte: anything it cannot parse (malformed markers, no block) goes through unchanged, and it
writes nothing before it has the whole answer. Imports nothing but
:mod:`coffer.projection.block_format`.
"""

from __future__ import annotations

import sys


def main() -> int:
    data = sys.stdin.buffer.read()
    try:
        from coffer.projection.block_format import remove

        out = remove(data)
    except Exception:
        out = data  # a block coffer cannot read is the user's to fix; git gets the file
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
