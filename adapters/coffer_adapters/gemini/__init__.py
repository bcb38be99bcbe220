"""Gemini CLI: both tiers are managed blocks in the context files Gemini loads, and the
project's private memory directory is a link to the project tier (gemini/memory.py).

Facts, as observed with Gemini CLI 0.61.0: global context is
``~/.gemini/GEMINI.md`` (``GEMINI_CLI_HOME`` replaces ``~``); project context is every
``GEMINI.md`` from the working directory up to the git root, so the root's file is seen
from any subdirectory. ``context.fileName`` in ``~/.gemini/settings.json`` adds names (it
never removes ``GEMINI.md``); when it already names ``AGENTS.md`` coffer renders there, sharing
the block other agents read, instead of creating a ``GEMINI.md``. Project context loads only
in trusted folders. Gemini 0.61 has no memory tool left to switch off; it keeps private
project notes in ``~/.gemini/tmp/<slug>/memory/`` (slug from its ``projects.json``), which
coffer links to the project tier beside the block (docs/adr/0032).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import ConfigEdit, Context, Launch, Mode, Target, no_native_memory
from coffer.adapter.helpers import detected_by, env_dir, per_tier, read_json
from coffer_adapters.gemini import memory
from coffer_adapters.gemini.facts import FACTS as FACTS

NAME = "gemini"
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
    # Gemini takes GEMINI_CLI_HOME as it is: no ~ expansion.
    return env_dir(ctx, "GEMINI_CLI_HOME", ctx.home, expand=False) / ".gemini"


detect = detected_by(gemini_dir, "gemini")
config_dir = gemini_dir  # what {config} means in FACTS (coffer explain)


def _file_names(ctx: Context) -> list[str]:
    context = read_json(gemini_dir(ctx) / "settings.json").get("context")
    names = context.get("fileName", []) if isinstance(context, dict) else []
    if isinstance(names, str):
        names = [names]
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def targets(ctx: Context) -> Sequence[Target]:
    """The project's private memory directories (the root's, a link to the project tier or
    a NONE target while Gemini has not registered the root, then those of subdirectories
    Gemini registered: gemini/memory.py), the project's block and the global block. The
    block comes after the links, so it is the tier's mode."""
    name = "AGENTS.md" if ctx.project is not None and "AGENTS.md" in _file_names(ctx) else ""
    out: list[Target] = []
    if ctx.project is not None:
        out.append(memory.target(gemini_dir(ctx), ctx.project))
        out += [
            t
            for t in memory.subdirectory_targets(gemini_dir(ctx), ctx.project)
            if t.path != out[0].path
        ]
    out += per_tier(
        ctx,
        lambda root: Target(
            "project",
            Mode.RENDER,
            root / (name or "GEMINI.md"),
            note="Gemini loads project context only in trusted folders",
        ),
        Target("global", Mode.RENDER, gemini_dir(ctx) / "GEMINI.md"),
    )
    return out


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    files = [gemini_dir(ctx) / "settings.json"]
    if ctx.project is not None:
        files += memory.inputs(gemini_dir(ctx), ctx.project)
    return ("GEMINI_CLI_HOME",), files


def wiring(ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
    """`coffer setup`: the MCP server and a SessionStart hook (gemini/setup.py)."""
    from coffer_adapters.gemini import setup

    return setup.edits(gemini_dir(ctx) / "settings.json", launch)
