"""The search cache opened for one ``with`` body, SQLite's refusals said in coffer's words."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base.errors import StoreError
from coffer.store import search_cache

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextlib.contextmanager
def connected(path: Path) -> Iterator[sqlite3.Connection]:
    """The cache at ``path``, open for the ``with`` body, then closed. SQLite's operational
    errors (a full disk, a directory coffer may not write) become a :class:`StoreError`
    that names the file: the user reads `coffer: error: …`, not a traceback."""
    try:
        conn = search_cache.open_cache(path)
        try:
            yield conn
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        raise StoreError(
            f"cannot update the search cache {path}: {exc} (it holds nothing that is not in"
            " the entries; free some space or fix its permissions and run the command again)"
        ) from exc
