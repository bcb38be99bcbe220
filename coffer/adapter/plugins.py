"""The ``coffer.adapters`` entry points, and the state file that keeps them between runs.

Reading the entry points costs ``importlib.metadata`` (with ``email``, ``zipfile`` and more)
and a walk over every installed distribution: about four times a bare Python start. The
group's entries are kept in the store's state directory, keyed by the modification time of
every directory on the import path (installing or removing a distribution changes its
``site-packages``), and read from there while that key holds (docs/adr/0023). The same file
keeps what coffer.adapter.deferred needs to leave an adapter unimported.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from coffer.base import platform

if TYPE_CHECKING:
    from typing import Any

GROUP = "coffer.adapters"
_CACHE_NAME = "adapters.json"
_CACHE_VERSION = 3  # 2: the deferred adapters' presence (coffer.adapter.deferred); 3: BySystem
# A file changed this recently may change again within its timestamp's granularity
# (2 s on FAT, 1 s on HFS+): a key taken now could miss that change, so none is kept.
RACY_SECONDS = 2.0


class Plugin:
    """One entry point of the group: what ``importlib.metadata.EntryPoint`` offers coffer."""

    def __init__(self, name: str, value: str, dist: str) -> None:
        self.name, self.value, self.dist_name = name, value, dist

    @property
    def module(self) -> str:
        """The module the entry point names (``module`` or ``module:attr``)."""
        return self.value.partition("[")[0].partition(":")[0].strip()

    def load(self) -> Any:
        # The entry-point value syntax: ``module`` or ``module:attr.attr`` (extras ignored).
        attrs = self.value.partition("[")[0].partition(":")[2]
        obj: Any = importlib.import_module(self.module)
        for attr in filter(None, attrs.strip().split(".")):
            obj = getattr(obj, attr)
        return obj


class Kept:
    """What the state file holds for this import path, and whether it may be rewritten."""

    def __init__(self, where: str | None, data: dict[str, Any], moved: bool = False) -> None:
        self.where = where  # None: no store, or the key is too fresh to keep
        self.data = data
        # The import path changed since the deferred presences in ``data`` were kept: each
        # must be found where its module is found now before it is used.
        self.moved = moved

    def save(self) -> None:
        # A cache, not a change coffer makes: written beside itself and renamed, without the
        # fsync and fault steps of coffer's journaled writes; a torn file just reads as stale.
        if self.where is None:
            return
        tmp = f"{self.where}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.where), mode=0o700, exist_ok=True)
            with open(tmp, "w", encoding="utf-8", opener=_private) as f:
                f.write(json.dumps(self.data))
            platform.replace(tmp, self.where)  # retried while Windows' indexer holds it
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)  # a read-only store: no cache, the next run scans again


def _private(path: str, flags: int) -> int:
    return os.open(path, flags | platform.BINARY, 0o600)


def _path_key() -> tuple[list[list[Any]], float]:
    """Every import-path directory with its mtime, and the newest of those mtimes."""
    # sys.prefix, not sys.executable: a venv's python and python3 are one interpreter.
    key: list[list[Any]] = [[sys.version, sys.prefix]]
    newest = 0.0
    # `python -m coffer` / `-c` put the working directory first: no plugin is installed
    # there, and coffer itself writes into it (AGENTS.md), which would change the key.
    paths = sys.path[1:] if sys.path and sys.path[0] in ("", os.getcwd()) else sys.path
    for path in paths:
        try:
            st = os.stat(path or ".")
        except OSError:
            continue
        key.append([path, st.st_mtime_ns])
        newest = max(newest, st.st_mtime)
    return key, newest


def _cache_file(environ: Mapping[str, str]) -> str | None:
    from coffer.base.locations import store_root

    root = store_root(environ)
    # Only a store that exists gets a cache: listing adapters must not create one.
    return os.path.join(root, "state", _CACHE_NAME) if root and os.path.isdir(root) else None


def lookup(group: str, environ: Mapping[str, str] | None = None) -> tuple[list[Plugin], Kept]:
    """The group's entry points, from the state file while the import path is unchanged."""
    where = _cache_file(os.environ if environ is None else environ)
    key, newest = _path_key()
    data = _read(where) if where else None
    if data is not None and data.get("key") == key:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            found = [Plugin(str(n), str(v), str(d)) for n, v, d in data["groups"][group]]
            return found, Kept(where, data)
    from importlib.metadata import entry_points as scan

    found = [
        Plugin(ep.name, ep.value, ep.dist.name if ep.dist is not None else "?")
        for ep in scan(group=group)
    ]
    entries = [[p.name, p.value, p.dist_name] for p in found]
    fresh: dict[str, Any] = {"version": _CACHE_VERSION, "key": key, "groups": {group: entries}}
    # The deferred presences survive a new key: each is keyed by its own module's files
    # (coffer.adapter.deferred), and the import path changes for reasons that leave them
    # valid, above all this very program's first imports, which write ``__pycache__`` into
    # an import-path directory and so change its mtime. Dropping them made the run after
    # every such change import every adapter again (issue 23).
    carried = data.get("deferred") if data is not None else None
    if isinstance(carried, dict):
        fresh["deferred"] = carried
    kept = Kept(where if time.time() - newest > RACY_SECONDS else None, fresh, moved=bool(carried))
    kept.save()
    return found, kept


def entry_points(group: str, environ: Mapping[str, str] | None = None) -> list[Plugin]:
    """The group's entry points (see :func:`lookup`)."""
    return lookup(group, environ)[0]


def _read(where: str) -> dict[str, Any] | None:
    """The state file's data, whatever its key (None: absent, damaged or another version)."""
    try:
        with open(where, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None  # absent or damaged: scan again
    if not isinstance(data, dict) or data.get("version") != _CACHE_VERSION:
        return None
    return data
