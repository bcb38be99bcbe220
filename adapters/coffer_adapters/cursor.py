"""Cursor: the project tier is the managed block in ``AGENTS.md``, which Cursor reads as a
"simple alternative" to ``.cursor/rules/*.mdc`` (Cursor's rules documentation; no Cursor client
was run to confirm it). Cursor's global "User Rules" live in the app's
settings, not in a file, so the global tier is not projected (NONE). Cursor has no memory
of its own left to switch off.
"""

from __future__ import annotations

from collections.abc import Sequence

from coffer.adapter import Context, Mode, Target, no_inputs, no_native_memory
from coffer.adapter_helpers import detected_by, per_tier

NAME = "cursor"
native_memory = no_native_memory
inputs = no_inputs
detect = detected_by(lambda ctx: ctx.home / ".cursor", "cursor")


def targets(ctx: Context) -> Sequence[Target]:
    return per_tier(
        ctx,
        project=lambda root: Target("project", Mode.RENDER, root / "AGENTS.md"),
        global_=Target(
            "global",
            Mode.NONE,
            ctx.home / ".cursor",
            note="Cursor keeps global User Rules in its settings, not in a file",
        ),
    )
