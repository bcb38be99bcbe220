"""Tiny: a new agent that reads one known file, TINY.md, in the project and in ~/.tiny."""

from __future__ import annotations

from collections.abc import Sequence

from coffer.adapter import Context, Mode, Target, no_inputs, no_native_memory
from coffer.adapter_helpers import detected_by, per_tier

NAME = "tiny"
detect = detected_by(lambda ctx: ctx.home / ".tiny", "tiny")
native_memory = no_native_memory
inputs = no_inputs


def targets(ctx: Context) -> Sequence[Target]:
    return per_tier(
        ctx,
        lambda root: Target("project", Mode.RENDER, root / "TINY.md"),
        Target("global", Mode.RENDER, ctx.home / ".tiny" / "TINY.md"),
    )
