"""Cursor: the project tier is the managed block in ``AGENTS.md``, which Cursor reads as a
"simple alternative" to ``.cursor/rules/*.mdc`` (Cursor's rules documentation; no Cursor client
was run to confirm it). Cursor's global "User Rules" live in the app's
settings, not in a file, so the global tier is not projected (NONE). Cursor has no memory
of its own left to switch off.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from coffer.adapter import Context, Mode, Target, no_native_memory

NAME = "cursor"
MODES: Mapping[str, Mode] = {"project": Mode.RENDER, "global": Mode.NONE}
native_memory = no_native_memory


def detect(ctx: Context) -> bool:
    if (ctx.home / ".cursor").is_dir():
        return True
    return shutil.which("cursor", path=ctx.environ.get("PATH", "")) is not None


def targets(ctx: Context) -> Sequence[Target]:
    out = []
    if ctx.project is not None:
        out.append(Target("project", Mode.RENDER, ctx.project / "AGENTS.md"))
    out.append(
        Target(
            "global",
            Mode.NONE,
            ctx.home / ".cursor",
            note="Cursor keeps global User Rules in its settings, not in a file",
        )
    )
    return out


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    return (), ()
