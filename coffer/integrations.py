"""Optional links between coffer's parts that the projection engine should not import
directly (keeps the engine free of the vault)."""

from __future__ import annotations

from coffer.projection.engine import HandoffSource


def handoff_source() -> HandoffSource | None:
    """The vault's handoff lister for managed blocks, when the vault supports it."""
    return None
