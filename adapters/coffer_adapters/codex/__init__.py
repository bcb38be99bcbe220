"""Codex CLI: both tiers are managed blocks in ``AGENTS.md``; Codex's own memories are
imported into the global tier and then switched off, reversibly.

Facts, as observed with Codex CLI 0.171.0: ``AGENTS.override.md`` replaces
``AGENTS.md`` in the same directory (and in ``CODEX_HOME``); project docs share one
``project_doc_max_bytes`` budget (default 32,768 bytes); memories are on only with
``[features] memories = true`` and live in ``$CODEX_HOME/memories/``. The switch is in
codex/switch.py, the import of the memories in codex/memories.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import ConfigEdit, Context, HookTrust, Launch, Mode, NativeMemory, Target
from coffer.adapter.helpers import detected_by, env_dir, per_tier, read_toml
from coffer_adapters.codex import memories, switch
from coffer_adapters.codex.facts import FACTS as FACTS

NAME = "codex"
DEFAULT_PROJECT_DOC_MAX_BYTES = 32_768
# A SessionStart hook's plain stdout becomes model context; over ~2,500 tokens (counted as
# bytes / 4) Codex keeps a preview and spills the rest to a file (codex-rs/hooks
# output_spill.rs; docs/adr/0012).
SESSION_CONTEXT_LIMIT = 10_000


def codex_home(ctx: Context) -> Path:
    return env_dir(ctx, "CODEX_HOME", ctx.home / ".codex")


detect = detected_by(codex_home, "codex")
config_dir = codex_home  # what {config} means in FACTS (coffer explain)


def native_memory(ctx: Context) -> NativeMemory:
    home = codex_home(ctx)
    return NativeMemory(
        config=home / "config.toml",
        enabled=switch.enabled,
        disable=switch.disable,
        restore=switch.restore,
        imports=lambda: memories.imports(home),
        describe="[features] memories",
    )


def _project_doc_max_bytes(home: Path) -> int:
    key = "project_doc_max_bytes"
    value = read_toml(home / "config.toml", mentions=key.encode()).get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return DEFAULT_PROJECT_DOC_MAX_BYTES
    return value


def _instructions(directory: Path) -> Path:
    override = directory / "AGENTS.override.md"
    return override if override.exists() else directory / "AGENTS.md"


def _project(root: Path, home: Path) -> Target:
    path = _instructions(root)
    return Target(
        "project",
        Mode.RENDER,
        path,
        max_bytes=_project_doc_max_bytes(home),
        note="AGENTS.override.md exists, so Codex reads it instead of AGENTS.md"
        if path.name == "AGENTS.override.md"
        else "",
    )


def targets(ctx: Context) -> Sequence[Target]:
    home = codex_home(ctx)
    return per_tier(
        ctx,
        lambda root: _project(root, home),
        Target("global", Mode.RENDER, _instructions(home)),
    )


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    home = codex_home(ctx)
    files = [home / "config.toml", home / "AGENTS.override.md"]
    if ctx.project is not None:
        files.append(ctx.project / "AGENTS.override.md")
    return ("CODEX_HOME",), files


def wiring(ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
    """`coffer setup`: ``[mcp_servers.coffer]`` and a SessionStart hook (codex/setup.py)."""
    from coffer_adapters.codex import setup

    return setup.edits(codex_home(ctx), launch)


def hook_trust(ctx: Context) -> HookTrust | None:
    """Whether Codex runs coffer's SessionStart hook: trusted in /hooks (codex/trust.py)."""
    from coffer_adapters.codex import trust

    return trust.hook_trust(codex_home(ctx))
