"""The journal: one record per path outside the store that coffer changed.

A record says what the path held before coffer touched it (absent, or a content-addressed
backup of its bytes), what coffer last wrote (a hash), and which adapters and tier it serves.
It is written *before* the change it describes and deleted only after an undo succeeded, so
an interrupted or refused undo never forgets what is left to undo (docs/adr/0007-journal.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from coffer.base import fsutil
from coffer.base.errors import CofferError, JournalError
from coffer.projection.journal.records import JournalRecord, parse, validate
from coffer.store.paths import ledger_dir

Record = dict[str, Any]


# What a damaged record still says of itself; compiled (and cached by re) only when a
# record is damaged: every command that opens the journal imports this module.
_PATH = r'"path":\s*"((?:[^"\\]|\\.)*)"'
_KIND = r'"kind":\s*"([a-z_]+)"'
_KEY = r'"key":\s*"((?:[^"\\]|\\.)*)"'
_KEYED = ("native", "setup", "service")  # kinds whose key is "<kind>:<name>:<path>"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Damage(NamedTuple):
    """A record file coffer cannot use: why, and what can still be read of it."""

    file: Path
    reason: str
    path: str | None  # the path it describes, when that much is legible
    kind: str | None
    adapters: tuple[str, ...] = ()
    tier: str | None = None
    project_id: str | None = None

    @property
    def target(self) -> str:
        return self.path or f"the path recorded in {self.file}"

    def advice(self, backups: Path) -> str:
        """What undo could not restore and how to restore it by hand."""
        what = {
            "block": "the coffer block was not removed: delete the lines from "
            "`<!-- coffer:memory:start` to `<!-- coffer:memory:end -->` by hand",
            "symlink": "coffer's link was not replaced: remove the link and put back a "
            f"directory (the agent's original directory is under {backups / 'dirs'}; the "
            "current memories are in the store directory the link points to)",
            "native": "the agent's own memory was not switched back on: set it back in "
            "this config file by hand (coffer changed only its memory switch)",
            "setup": "coffer's entries were not removed from this config: remove the "
            "`coffer` MCP server and the `coffer project --hook` hook by hand",
            "git-lines": "the lines coffer added to this git file were not removed: "
            "remove the lines naming coffer's blocks by hand",
            "git-config": "the git filter coffer added was not removed: remove the "
            "`filter.coffer` section from this git config by hand",
        }.get(
            self.kind or "",
            "coffer cannot tell which change it records, so it was not undone: check by hand "
            "for a block from `<!-- coffer:memory:start` to `<!-- coffer:memory:end -->`, "
            "a link into coffer's store, an agent memory switched off, or coffer's MCP "
            "server and hook in an agent's config",
        )
        return (
            f"its journal record {self.file} is damaged ({self.reason}), so {what}. "
            f"Earlier contents coffer backed up are in {backups} (named by their sha256); "
            "coffer does not guess which one. Then delete the record file"
        )


def _damage(file: Path, data: bytes | None, reason: str) -> Damage:
    text = (data or b"").decode("utf-8", "replace")
    try:
        partial = json.loads(text)
    except ValueError:
        partial = None
    if isinstance(partial, dict):

        def get(name: str) -> Any:
            value = partial.get(name)
            return value if isinstance(value, str) else None

        adapters = partial.get("adapters")
        names = (
            tuple(a for a in adapters if isinstance(a, str)) if isinstance(adapters, list) else ()
        )
        return Damage(file, reason, get("path"), get("kind"), names, get("tier"), get("project_id"))
    path = _legible(re.compile(_PATH), text)
    key = _legible(re.compile(_KEY), text)
    found = re.search(_KIND, text)
    kind = found.group(1) if found else None
    if key is not None:
        # A truncated record may still hold its key, which names the path.
        prefix, _, rest = key.partition(":")
        if prefix in _KEYED and ":" in rest:
            kind = kind or prefix
            path = path or rest.partition(":")[2]
        elif path is None and (key.startswith(("/", "\\")) or key[1:3] == ":\\"):
            path = key
    return Damage(file, reason, path, kind)


def _legible(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    if found:
        with contextlib.suppress(ValueError):
            value = json.loads(f'"{found.group(1)}"')
            return value if isinstance(value, str) else None
    return None


class Journal:
    """Records under ``<store>/journal/``, backups under ``<store>/backups/``; both copied
    to the ledger outside the store (paths.ledger_dir), which undo falls back on when the
    store's copy is gone: a user may delete the store, never what undo needs (ADR 0021)."""

    def __init__(self, store_root: Path, ledger: Path | None = None) -> None:
        self.dir = store_root / "journal"
        self.backups = store_root / "backups"
        # os.environ here rather than from every caller: the ledger must follow the store
        # whoever opens the journal (project, setup, the service, the watcher).
        self.ledger = ledger if ledger is not None else ledger_dir(os.environ, store_root)

    def exists(self) -> bool:
        """False when neither the store's journal nor the ledger's copy is there at all
        (both deleted by hand), as opposed to there and empty (everything undone)."""
        return self.dir.is_dir() or (self.ledger / "journal").is_dir()

    def _file(self, path: Path | str) -> Path:
        return self.dir / f"{sha256(str(path).encode('utf-8', 'surrogateescape'))[:32]}.json"

    def _copy(self, path: Path | str) -> Path:
        return self.ledger / "journal" / self._file(path).name

    def _load(self, file: Path) -> Record | Damage | None:
        try:
            data = fsutil.read_bytes_or_none(file)
        except CofferError as exc:  # a link in place of a record: never followed
            return Damage(file, f"unreadable: {exc}", None, None)
        if data is None:
            return None
        try:
            record = json.loads(data)
        except ValueError:
            return _damage(file, data, "not valid JSON; truncated or overwritten")
        reason = validate(record)
        if reason is not None:
            return _damage(file, data, reason)
        loaded: Record = record
        return loaded

    def get(self, path: Path | str) -> Record | None:
        """The record for ``path``; a damaged one raises, so no caller writes over it."""
        found = self._load(self._file(path))
        if found is None:
            found = self._load(self._copy(path))
        if isinstance(found, Damage):
            raise JournalError(
                f"{path}: its journal record {found.file} is damaged ({found.reason}); "
                "coffer leaves this path alone until it is repaired (see `coffer doctor`)"
            )
        return found

    def load(self, path: Path | str) -> JournalRecord | None:
        """The typed record for ``path``, read as its own kind; a damaged one raises."""
        raw = self.get(path)
        return None if raw is None else parse(raw)

    def load_all(self) -> list[JournalRecord]:
        """Every usable record, typed, in path order (see :meth:`records`)."""
        return [parse(raw) for raw in self.records()]

    def save(self, record: JournalRecord) -> None:
        self.put(record.to_json())

    def put(self, record: Record) -> None:
        fsutil.ensure_dir(self.dir)
        text = json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        key = record.get("key") or record["path"]
        fsutil.write_if_changed(self._file(key), text.encode("utf-8"))
        fsutil.ensure_dir(self.ledger / "journal")
        fsutil.write_if_changed(self._copy(key), text.encode("utf-8"))

    def drop(self, path: Path | str) -> None:
        # The ledger's copy first: a crash in between leaves the store's, which is current.
        for copy in (self._copy(path), self._file(path)):
            with contextlib.suppress(FileNotFoundError):
                fsutil.unlink(copy)
        copies = self.ledger / "journal"
        if copies.is_dir() and not any(n.endswith(".json") for n in os.listdir(copies)):
            # Nothing left to undo: the pre-images serve no record, and undo leaves nothing
            # behind outside the store.
            import shutil  # its compression modules cost more than most runs (ADR 0023)

            shutil.rmtree(self.ledger, ignore_errors=True)
            with contextlib.suppress(OSError):
                os.rmdir(self.ledger.parent)

    def _scan(self) -> tuple[list[Record], list[Damage]]:
        loaded: list[Record] = []
        damaged: list[Damage] = []
        files: dict[str, Path] = {}
        for where in (self.ledger / "journal", self.dir):  # the store's copy wins
            if where.is_dir():
                files.update((n, where / n) for n in os.listdir(where) if n.endswith(".json"))
        for name in sorted(files):
            found = self._load(files[name])
            if isinstance(found, Damage):
                damaged.append(found)
            elif found is not None:
                loaded.append(found)
        return sorted(loaded, key=lambda r: str(r.get("path"))), damaged

    def records(self) -> Iterator[Record]:
        """Every usable record, in path order. A damaged one is left out here, so it
        cannot stop the undo of the others; :meth:`damaged` lists it, and undo and
        ``coffer doctor`` report it."""
        yield from self._scan()[0]

    def damaged(self) -> list[Damage]:
        """The record files that cannot be used (unreadable, not JSON, fields missing or
        of the wrong type)."""
        return self._scan()[1]

    def sweep_tmp(self) -> None:
        """Remove the temp files a killed run left among the records and backups (here and
        in the ledger): a retry that finds its files already written writes no record, so
        no write would sweep them."""
        for where in (self.dir, self.backups, self.ledger / "journal", self.ledger / "backups"):
            fsutil.sweep_stale_tmp(where)

    def sync_ledger(self) -> None:
        """Copy into the ledger the records and file backups it lacks (a journal written
        before the ledger existed, or a ledger deleted by hand)."""
        for src, dst, suffix in (
            (self.dir, self.ledger / "journal", ".json"),
            (self.backups, self.ledger / "backups", ".bak"),
        ):
            if not src.is_dir():
                continue
            have = set(os.listdir(dst)) if dst.is_dir() else set()
            for name in os.listdir(src):
                if name.endswith(suffix) and name not in have:
                    data = fsutil.read_bytes_or_none(src / name)
                    if data is not None:
                        fsutil.ensure_dir(dst)
                        fsutil.atomic_write_bytes(dst / name, data)

    def backup_bytes(self, data: bytes) -> Path:
        """Keep a copy of ``data`` (content-addressed, so repeated backups cost nothing)."""
        name = f"{sha256(data)}.bak"
        for where in (self.ledger / "backups", self.backups):
            fsutil.ensure_dir(where)
            if not (where / name).exists():
                fsutil.atomic_write_bytes(where / name, data)
        return self.backups / name

    def read_backup(self, digest: str) -> bytes:
        data = fsutil.read_bytes_or_none(self.backups / f"{digest}.bak")
        if data is None or sha256(data) != digest:
            data = fsutil.read_bytes_or_none(self.ledger / "backups" / f"{digest}.bak")
        if data is None or sha256(data) != digest:
            raise JournalError(f"the backup {self.backups / digest}.bak is missing or damaged")
        return data
