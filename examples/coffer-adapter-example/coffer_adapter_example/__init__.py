"""A complete third-party coffer adapter: an agent that reads nothing coffer could write.

Copy this package to support a new agent: set NAME, choose a Mode per tier, and describe the
files the agent reads in ``targets``; coffer's engine does every write, journals it and can
undo it. Test it with ``coffer.testing.AdapterContract`` (see tests/ beside this package).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from coffer.adapter import Context, Mode, Target, never_detected, no_inputs, no_native_memory

NAME = "example"
MODES: Mapping[str, Mode] = {"project": Mode.NONE, "global": Mode.NONE}
detect = never_detected
native_memory = no_native_memory
inputs = no_inputs


def targets(ctx: Context) -> Sequence[Target]:
    # NONE targets are reported by `coffer adapter list` but never written.
    return [
        Target(
            "global",
            Mode.NONE,
            ctx.home / ".example-agent",
            note="the example agent has no instruction file",
        )
    ]


__all__ = ["MODES", "NAME", "detect", "inputs", "native_memory", "targets"]
