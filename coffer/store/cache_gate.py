"""Which secret gate the search cache's verdicts came from (docs/adr/0043).

Each row of the cache keeps the gate's verdict on its entry's text, taken when the file
changed; a verdict is only as good as the rules that took it. The cache's state holds the
fingerprint of the gate that filled it: another gate (new rules, another coffer) empties the
cache once, and the next scan reads every file again.
"""

from __future__ import annotations

import functools
import sqlite3
import zlib


@functools.cache
def gate_key() -> str:
    """Which secret gate the rows' verdicts came from: its rules and coffer's version."""
    from coffer import __version__
    from coffer.secrets import STORE_PATTERNS
    from coffer.secrets.gitleaks import RULES_FILE

    rules = "\n".join(
        f"{label}\t{getattr(p, 'pattern', p)}\t{getattr(p, 'flags', '')}"
        for label, p in STORE_PATTERNS
    )
    crc = zlib.crc32(rules.encode("utf-8", "surrogateescape"))
    # gitleaks' rules are the gate's too (docs/adr/0042): a new rule set is another gate.
    crc = zlib.crc32(RULES_FILE.read_bytes(), crc)
    return f"{__version__}:{crc:08x}"


def check(conn: sqlite3.Connection) -> bool:
    """Whether the rows' verdicts are this gate's. One another gate took is no verdict:
    the rows are dropped, to be read again; when they cannot be (the cache busy or
    read-only), False: the verdicts are not used this time."""
    gate = gate_key()
    if conn.execute("SELECT value FROM state WHERE key = 'gate'").fetchone() == (gate,):
        return True
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("DELETE FROM fts")
            conn.execute("DELETE FROM files")
            conn.execute("DELETE FROM state")
            conn.execute("INSERT INTO state (key, value) VALUES ('gate', ?)", (gate,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError:
        return False
    return True
