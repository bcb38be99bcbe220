"""A project's sync key: computed in one place, :mod:`coffer.store.sync_keys` (the store
needs it when a project is first registered); sync's modules name it from here."""

from __future__ import annotations

from coffer.store.sync_keys import (
    GLOBAL_KEY,
    MAX_SEGMENTS,
    normalise_remote,
    project_key,
    root_key,
    valid_key,
)

__all__ = ["GLOBAL_KEY", "MAX_SEGMENTS", "normalise_remote", "project_key", "root_key", "valid_key"]
