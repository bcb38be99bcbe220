"""Sync's own files in the store: ``$COFFER_HOME/sync/`` (docs/adr/0034).

``config.json`` (the remote, this machine's name, explicit project links) exists once
``coffer sync init`` ran: :func:`configured` is one ``stat``, which the watcher does every
tick. ``state.json`` is this machine's memory of the last round: which entry files the store
and the repository agreed on (so a file gone from the store is a deletion, while a file the
store never had is one still to import), and when. ``repo.git`` is the bare repository.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base import fsutil
from coffer.sync.errors import SyncError

if TYPE_CHECKING:
    from typing import Any

BRANCH = "main"
REF = f"refs/heads/{BRANCH}"
REMOTE_REF = f"refs/remotes/origin/{BRANCH}"


class SyncPaths(NamedTuple):
    root: Path

    @classmethod
    def of(cls, store_root: Path) -> SyncPaths:
        return cls(store_root / "sync")

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def repo(self) -> Path:
        return self.root / "repo.git"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"


class SyncConfig(NamedTuple):
    remote: str
    host: str
    links: dict[str, str]  # project id -> key named by `coffer sync link`


class SyncState(NamedTuple):
    synced: dict[str, str]  # repository path -> blob id the store and the repository shared
    last_round: str = ""
    last_summary: str = ""


def configured(store_root: Path) -> bool:
    return os.path.isfile(store_root / "sync" / "config.json")


def _load_json(path: Path) -> dict[str, Any] | None:
    data = fsutil.read_bytes_or_none(path)
    if data is None:
        return None
    try:
        raw = json.loads(data)
    except ValueError as exc:
        raise SyncError(f"{path} is not valid JSON; fix or remove it") from exc
    if not isinstance(raw, dict):
        raise SyncError(f"{path} is not a JSON object; fix or remove it")
    return raw


def load_config(paths: SyncPaths) -> SyncConfig:
    raw = _load_json(paths.config)
    if raw is None:
        raise SyncError("sync is not set up here; run `coffer sync init REMOTE` first")
    links = raw.get("links") or {}
    if not isinstance(raw.get("remote"), str) or not isinstance(links, dict):
        raise SyncError(f"{paths.config} lacks a remote; run `coffer sync init REMOTE` again")
    return SyncConfig(
        str(raw["remote"]),
        str(raw.get("host") or "machine"),
        {str(k): str(v) for k, v in links.items()},
    )


def save_config(paths: SyncPaths, config: SyncConfig) -> None:
    fsutil.ensure_dir(paths.root)
    payload = {"version": 1, **config._asdict()}
    text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
    fsutil.write_if_changed(paths.config, text.encode("utf-8"))


def load_state(paths: SyncPaths) -> SyncState:
    try:
        raw = _load_json(paths.state)
    except SyncError:
        raw = None  # a damaged memory of the last round only means no deletion travels
    if raw is None:
        return SyncState({})
    synced = raw.get("synced")
    return SyncState(
        {str(k): str(v) for k, v in synced.items()} if isinstance(synced, dict) else {},
        str(raw.get("last_round", "")),
        str(raw.get("last_summary", "")),
    )


def save_state(paths: SyncPaths, state: SyncState) -> None:
    text = json.dumps({"version": 1, **state._asdict()}, indent=1, sort_keys=True) + "\n"
    fsutil.write_if_changed(paths.state, text.encode("utf-8"))
