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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from coffer import fsutil
from coffer.errors import JournalError

Record = dict[str, Any]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Journal:
    """Records under ``<store>/journal/``, backups under ``<store>/backups/``."""

    def __init__(self, store_root: Path) -> None:
        self.dir = store_root / "journal"
        self.backups = store_root / "backups"

    def _file(self, path: Path | str) -> Path:
        return self.dir / f"{sha256(str(path).encode('utf-8', 'surrogateescape'))[:32]}.json"

    def get(self, path: Path | str) -> Record | None:
        data = fsutil.read_bytes_or_none(self._file(path))
        if data is None:
            return None
        try:
            record: Record = json.loads(data)
        except ValueError as exc:
            raise JournalError(f"journal record for {path} is corrupt: {self._file(path)}") from exc
        return record

    def put(self, record: Record) -> None:
        fsutil.ensure_dir(self.dir)
        text = json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        key = record.get("key") or record["path"]
        fsutil.write_if_changed(self._file(key), text.encode("utf-8"))

    def drop(self, path: Path | str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._file(path))

    def records(self) -> Iterator[Record]:
        """Every record, in path order; unreadable ones raise (never silently skipped)."""
        if not self.dir.is_dir():
            return
        loaded = []
        for name in sorted(os.listdir(self.dir)):
            if not name.endswith(".json"):
                continue
            data = fsutil.read_bytes_or_none(self.dir / name)
            try:
                loaded.append(json.loads(data or b""))
            except ValueError as exc:
                raise JournalError(f"journal record {self.dir / name} is corrupt") from exc
        yield from sorted(loaded, key=lambda r: str(r.get("path")))

    def backup_bytes(self, data: bytes) -> Path:
        """Keep a copy of ``data`` (content-addressed, so repeated backups cost nothing)."""
        fsutil.ensure_dir(self.backups)
        path = self.backups / f"{sha256(data)}.bak"
        if not path.exists():
            fsutil.atomic_write_bytes(path, data)
        return path

    def read_backup(self, digest: str) -> bytes:
        data = fsutil.read_bytes_or_none(self.backups / f"{digest}.bak")
        if data is None or sha256(data) != digest:
            raise JournalError(f"the backup {self.backups / digest}.bak is missing or damaged")
        return data
