"""OpenCode: both tiers are managed blocks in the instruction files OpenCode loads.

Facts, as observed with OpenCode 1.18.33: project instructions come from
``AGENTS.md`` (then ``CLAUDE.md``, ``CONTEXT.md``) walking up to the worktree root; global
instructions from the *first existing* of ``~/.config/opencode/AGENTS.md`` and
``~/.claude/CLAUDE.md``. Creating the former would silently hide the latter, so coffer renders
into whichever OpenCode already reads, sharing the block with the Claude Code adapter when
that is ``~/.claude/CLAUDE.md``. OpenCode has no memory of its own to switch off.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Context, Mode, Target, no_native_memory
from coffer.adapter_helpers import detected_by, per_tier, xdg_config

NAME = "opencode"
native_memory = no_native_memory
_NO_CLAUDE = ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")


def config_dir(ctx: Context) -> Path:
    return xdg_config(ctx) / "opencode"


detect = detected_by(config_dir, "opencode")


def _global_file(ctx: Context) -> Path:
    own = config_dir(ctx) / "AGENTS.md"
    if own.exists() or any(ctx.environ.get(v) for v in _NO_CLAUDE):
        return own
    return ctx.home / ".claude" / "CLAUDE.md"


def _project(root: Path) -> Target:
    note = ""
    if not (root / "AGENTS.md").exists() and (root / "CLAUDE.md").exists():
        note = (
            "once AGENTS.md exists OpenCode reads it instead of this project's "
            "CLAUDE.md; move shared instructions into AGENTS.md"
        )
    return Target("project", Mode.RENDER, root / "AGENTS.md", note=note)


def targets(ctx: Context) -> Sequence[Target]:
    return per_tier(ctx, _project, Target("global", Mode.RENDER, _global_file(ctx)))


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    return ("XDG_CONFIG_HOME", *_NO_CLAUDE), [config_dir(ctx) / "AGENTS.md"]
