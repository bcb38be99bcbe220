"""Optional links between coffer's parts that the projection engine should not import
directly (keeps the engine free of the vault)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from coffer.projection.engine import HandoffSource

if TYPE_CHECKING:
    from coffer.adapter import Context
    from coffer.projection.blocks.content import Handoff


def _vault_handoffs(ctx: Context, agents: Sequence[str]) -> Sequence[Handoff]:
    """Active vault handoffs for ``agents`` (coffer.vault.handoffs); never raises.

    Without ``ECC_MEMORY_PROJECT_ROOT`` the project vault is ``<root>/.ecc/memory``
    (docs/vault-format.md §6.2), so one ``stat`` tells a project without a vault, which then
    costs no import of the vault package at all.
    """
    if ctx.project is None:
        return ()
    try:
        if not ctx.environ.get("ECC_MEMORY_PROJECT_ROOT") and not os.path.isdir(
            os.path.join(ctx.project, ".ecc", "memory")
        ):
            return ()
        from coffer.projection.blocks.content import Handoff
        from coffer.vault.handoffs import list_handoffs

        return [
            Handoff(id=mid, title=title, source=source, targets=targets)
            for mid, title, source, targets in list_handoffs(str(ctx.project), agents, ctx.environ)
        ]
    except Exception:
        return ()  # a courtesy list: a vault problem must never fail a projection


def handoff_source() -> HandoffSource | None:
    """The vault's handoff lister for managed blocks."""
    return _vault_handoffs
