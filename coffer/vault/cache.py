"""A parse cache for the vault scan, kept outside the vault (docs/adr/0011).

The vault itself has no database, index or cache (docs/vault-format.md §1.1), so nothing is
ever written into it. This cache lives in coffer's own state directory,
``<store>/state/vault-cache/<key of scope and root>.bin``, one file per scanned scope root.
It maps a candidate's absolute path and ``lstat`` identity (device, inode, size, mtime_ns,
ctime_ns) to what §7.1 steps 3 and 6–8 made of that file: the decoded byte length *n* (the
``scannedBytes`` budget counts it whether or not the file is read again), the outcome
(entry, invalid, location mismatch, quarantined) and, for entries only, the normalized
memory. Quarantined documents are stored as an outcome only: secret-shaped content is never
copied out of the vault.

It must be invisible: the walk, the budgets, truncation and every diagnostic are computed
exactly as without it, and any doubt means "read the file for real":

* the file's identity differs, it is no longer a regular file, or ``lstat`` fails;
* it changed less than ``RACY_NS`` before the scan started (a same-size edit within one
  timestamp tick would keep every field equal; git calls this "racily clean"), so it is
  re-read and not cached until it has aged;
* the cache file is missing, unreadable, truncated, fails its checksum, was written by other
  code (the header holds the sizes and mtimes of the modules that define the outcome) or for
  another scope or root;
* a read error (§6.5) is never cached: it is retried every time, as the reference does.

Writes go through :func:`coffer.base.fsutil.atomic_write_bytes`, only when something changed, and
never in dry-run mode (``ECC_DRY_RUN=1``); ``COFFER_VAULT_CACHE=0`` turns the cache off. A
cache problem is never an error: it costs a re-parse at most.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time
import zlib
from collections.abc import Mapping
from typing import Any

from coffer.base.locations import store_root
from coffer.vault.validate import MEMORY_KEYS

# (dev, ino, size, mtime_ns, ctime_ns, decoded bytes, outcome, memory or None)
Record = tuple[int, int, int, int, int, int, int, dict[str, Any] | None]

_FORMAT = 1
_MAGIC = b"coffer-vault-cache\n"
# Two seconds covers the coarsest common timestamp granularity (FAT's 2 s; 1 s on HFS+ and
# some network file systems) plus a little clock skew between a file server and us.
RACY_NS = 2_000_000_000
# The modules whose code decides an outcome; their identity is part of the cache header so
# an upgrade (or an edit in a development tree) invalidates every cached result.
_CODE = (
    "coffer.secrets",
    "coffer.secrets.patterns",
    "coffer.vault.document",
    "coffer.vault.ids",
    "coffer.vault.jscompat",
    "coffer.vault.scan",
    "coffer.vault.secret_policy",
    "coffer.vault.validate",
    "coffer.vault.cache",
)

# Outcomes, in §7.1 precedence order after a successful read.
ENTRY = 0
INVALID = 1
MISPLACED = 2
QUARANTINED = 3

Key = tuple[int, int, int, int, int]


def enabled(env: Mapping[str, str]) -> bool:
    return env.get("COFFER_VAULT_CACHE", "") != "0"


def _code_stamp() -> tuple[object, ...]:
    stamp: list[object] = [_FORMAT, sys.version_info[:2]]
    for name in _CODE:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if not path:
            raise OSError("no source file")
        st = os.stat(path)
        stamp += [path, st.st_size, st.st_mtime_ns]
    return tuple(stamp)


def cache_path(env: Mapping[str, str], scope: str, root: str) -> str:
    """Where the cache of scope ``scope`` at ``root`` lives (one file per scope root)."""
    name = f"{scope}\0{root}".encode("utf-8", "surrogateescape")
    digest = f"{zlib.crc32(name):08x}{zlib.adler32(name):08x}"
    return os.path.join(store_root(env), "state", "vault-cache", f"{digest}.bin")


class ScanCache:
    """The cache of one scope root, for one scan. Never raises out of its methods."""

    __slots__ = ("_dirty", "_header", "_now", "_old", "_path", "_writable", "records")

    def __init__(self, path: str, header: tuple[object, ...], writable: bool) -> None:
        self._path = path
        self._header = header
        self._writable = writable
        self._old: dict[str, Record] = {}
        self.records: dict[str, Record] = {}
        self._dirty = False
        # Taken before any file of this scan is stat-ed: see RACY_NS.
        self._now = time.time_ns()

    @classmethod
    def open(
        cls, env: Mapping[str, str], scope: str, root: str, *, writable: bool = True
    ) -> ScanCache | None:
        """The cache for ``scope`` at ``root``; None when it is off or cannot work at all.

        ``writable=False`` (and dry-run mode) uses the cache without ever writing it.
        """
        if not enabled(env):
            return None
        try:
            header = (_code_stamp(), scope, root)
            writable = writable and env.get("ECC_DRY_RUN") != "1"
            cache = cls(cache_path(env, scope, root), header, writable)
        except Exception:
            return None
        cache._old = cache._load()
        return cache

    def _load(self) -> dict[str, Record]:
        try:
            with open(self._path, "rb") as fh:
                data = fh.read()
            if not data.startswith(_MAGIC):
                return {}
            start = len(_MAGIC) + 8
            body = memoryview(data)[start:]
            if f"{zlib.crc32(body):08x}".encode() != data[len(_MAGIC) : start]:
                return {}
            # Our own private file (0600 in coffer's state directory), checksummed, and only
            # ever holding tuples, dicts, lists, strings and ints.
            payload = marshal.loads(body)  # noqa: S302
            header, records = payload
            if header != self._header or type(records) is not dict:
                return {}
            return records
        except Exception:
            return {}

    def key(self, path: str) -> Key | None:
        """The identity of ``path`` now; None when it cannot be cached (not a file, racy)."""
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or max(st.st_mtime_ns, st.st_ctime_ns) > (
            self._now - RACY_NS
        ):
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def get(self, path: str, key: Key) -> tuple[int, int, dict[str, Any] | None] | None:
        """``(decoded bytes, outcome, memory)`` cached for ``path`` with identity ``key``."""
        record = self._old.get(path)
        if record is None:
            return None
        try:
            if record[:5] != key:
                return None
            size, outcome, memory = record[5], record[6], record[7]
            if type(size) is not int or outcome not in (ENTRY, INVALID, MISPLACED, QUARANTINED):
                return None
            if outcome == ENTRY and (type(memory) is not dict or tuple(memory) != MEMORY_KEYS):
                return None
            if outcome != ENTRY and memory is not None:
                return None
        except (TypeError, IndexError):
            return None
        self.records[path] = record
        return size, outcome, memory

    def put(
        self, path: str, key: Key, size: int, outcome: int, memory: dict[str, Any] | None
    ) -> None:
        self.records[path] = (*key, size, outcome, memory if outcome == ENTRY else None)
        self._dirty = True

    def save(self) -> None:
        """Write the records seen in this scan, when they differ from what was loaded."""
        if not self._writable or not (self._dirty or len(self.records) != len(self._old)):
            return
        try:
            content: Any = (self._header, self.records)  # marshal-able by construction
            payload = marshal.dumps(content)
            data = _MAGIC + f"{zlib.crc32(payload):08x}".encode() + payload
            from pathlib import Path

            from coffer.base import fsutil

            target = Path(self._path)
            fsutil.ensure_dir(target.parent)
            fsutil.atomic_write_bytes(target, data)
        except Exception:
            return  # a cache that cannot be written only costs the next scan a re-parse
