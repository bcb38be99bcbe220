"""Gemini CLI: both tiers are managed blocks in the context files Gemini loads.

Facts, as observed with Gemini CLI 0.61.0: global context is
``~/.gemini/GEMINI.md`` (``GEMINI_CLI_HOME`` replaces ``~``); project context is every
``GEMINI.md`` from the working directory up to the git root, so the root's file is seen
from any subdirectory. ``context.fileName`` in ``~/.gemini/settings.json`` adds names (it
never removes ``GEMINI.md``); when it already names ``AGENTS.md`` coffer renders there, sharing
the block other agents read, instead of creating a ``GEMINI.md``. Project context loads only
in trusted folders. Gemini 0.61 has no memory tool left to switch off.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from coffer.adapter import ConfigEdit, Context, Launch, Mode, Target, no_native_memory

NAME = "gemini"
MODES: Mapping[str, Mode] = {"project": Mode.RENDER, "global": Mode.RENDER}
native_memory = no_native_memory
HARNESSES = ("gemini", "gemini-cli")  # vault handoff targets that address Gemini CLI
# Gemini shows a hook's plain stdout to the user only (as a system message); the model gets
# ``hookSpecificOutput.additionalContext`` of JSON stdout (packages/core/src/hooks/
# hookRunner.ts, docs/hooks/reference.md; docs/adr/0012). No size cap found; coffer keeps
# to the size the other agents accept.
SESSION_CONTEXT_LIMIT = 10_000


def session_context(text: str) -> str:
    """The SessionStart hook output that puts ``text`` in the model's context."""
    output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return json.dumps(output, ensure_ascii=False) + "\n"


def gemini_dir(ctx: Context) -> Path:
    base = ctx.environ.get("GEMINI_CLI_HOME", "").strip()
    return (Path(base) if base else ctx.home) / ".gemini"


def _file_names(ctx: Context) -> list[str]:
    try:
        data = json.loads((gemini_dir(ctx) / "settings.json").read_text(encoding="utf-8"))
        names = data.get("context", {}).get("fileName", [])
    except (OSError, ValueError, AttributeError):
        return []
    if isinstance(names, str):
        names = [names]
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def detect(ctx: Context) -> bool:
    if gemini_dir(ctx).is_dir():
        return True
    return shutil.which("gemini", path=ctx.environ.get("PATH", "")) is not None


def targets(ctx: Context) -> Sequence[Target]:
    out = []
    if ctx.project is not None:
        name = "AGENTS.md" if "AGENTS.md" in _file_names(ctx) else "GEMINI.md"
        out.append(
            Target(
                "project",
                Mode.RENDER,
                ctx.project / name,
                note="Gemini loads project context only in trusted folders",
            )
        )
    out.append(Target("global", Mode.RENDER, gemini_dir(ctx) / "GEMINI.md"))
    return out


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    return ("GEMINI_CLI_HOME",), [gemini_dir(ctx) / "settings.json"]


def wiring(ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
    """`coffer setup`: the MCP server and a SessionStart hook (_setup_gemini)."""
    from coffer_adapters import _setup_gemini

    return _setup_gemini.wiring(ctx, launch)
