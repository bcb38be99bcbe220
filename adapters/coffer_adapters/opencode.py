"""OpenCode: both tiers are managed blocks in the instruction files OpenCode loads.

Facts, as observed with OpenCode 1.18.33: project instructions come from
``AGENTS.md`` (then ``CLAUDE.md``, ``CONTEXT.md``) walking up to the worktree root; global
instructions from the *first existing* of ``~/.config/opencode/AGENTS.md`` and
``~/.claude/CLAUDE.md``. Creating the former would silently hide the latter, so coffer renders
into whichever OpenCode already reads, sharing the block with the Claude Code adapter when
that is ``~/.claude/CLAUDE.md``. OpenCode has no memory of its own to switch off.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from coffer.adapter import Context, Mode, Target, no_native_memory

NAME = "opencode"
MODES: Mapping[str, Mode] = {"project": Mode.RENDER, "global": Mode.RENDER}
native_memory = no_native_memory
_NO_CLAUDE = ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")


def config_dir(ctx: Context) -> Path:
    xdg = ctx.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(xdg) if xdg else ctx.home / ".config") / "opencode"


def detect(ctx: Context) -> bool:
    if config_dir(ctx).is_dir():
        return True
    return shutil.which("opencode", path=ctx.environ.get("PATH", "")) is not None


def _global_file(ctx: Context) -> Path:
    own = config_dir(ctx) / "AGENTS.md"
    if own.exists() or any(ctx.environ.get(v) for v in _NO_CLAUDE):
        return own
    return ctx.home / ".claude" / "CLAUDE.md"


def targets(ctx: Context) -> Sequence[Target]:
    out = []
    if ctx.project is not None:
        agents = ctx.project / "AGENTS.md"
        note = ""
        if not agents.exists() and (ctx.project / "CLAUDE.md").exists():
            note = (
                "once AGENTS.md exists OpenCode reads it instead of this project's "
                "CLAUDE.md; move shared instructions into AGENTS.md"
            )
        out.append(Target("project", Mode.RENDER, agents, note=note))
    out.append(Target("global", Mode.RENDER, _global_file(ctx)))
    return out


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    return ("XDG_CONFIG_HOME", *_NO_CLAUDE), [config_dir(ctx) / "AGENTS.md"]
