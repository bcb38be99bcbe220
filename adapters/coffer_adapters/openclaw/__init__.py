"""OpenClaw: the project tier is the shared block in ``AGENTS.md`` (read by ``openclaw agent
exec`` started in the project), the global tier a block in the workspace's ``AGENTS.md``
(read by ``openclaw agent --local`` and the assistant's other sessions).

Facts, as observed with OpenClaw 2026.9.6: the workspace's bootstrap files ``AGENTS.md``,
``SOUL.md``, ``IDENTITY.md``, ``USER.md`` and ``MEMORY.md`` are injected in that order, from
the workspace directory only; ``agent exec`` makes the start directory the workspace, ``agent
--local`` uses ``~/.openclaw/workspace`` and ignores the repository. Each file is capped at
20,000 characters (60,000 in all; docs). OpenClaw's own memory (workspace ``MEMORY.md``) is
imported into the global tier at every run and left on (openclaw/native.py, docs/adr/0032).
A workspace moved by ``agents.defaults.workspace`` in openclaw.json is not followed.

``coffer setup`` writes ``mcp.servers.coffer`` {command, args, env} into ``openclaw.json``
(``$OPENCLAW_CONFIG_PATH`` when set; the legacy ``clawdbot.json`` when only it exists): the
shape of the config schema's ``McpServerSchema`` in the installed 2026.9.6 package and of its
docs (docs/tools/mcp.md, docs/cli/mcp/transports.md; ``transport`` is optional, stdio when
there is a command). The file is JSON5; coffer edits it as JSONC (comments and trailing
commas kept) and refuses one using JSON5-only syntax, writing nothing (docs/adr/0033).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Context, NativeMemory
from coffer.adapter.facts import (
    AgentFacts,
    Cap,
    Checked,
    HookFacts,
    Load,
    McpFacts,
    NativeFacts,
)
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run
from coffer_adapters.openclaw import native as openclaw_native

_RUN = "capture run of openclaw (npm): one offline request to a local recording server"
_DOCS = "docs.openclaw.ai (uninstall: ${OPENCLAW_STATE_DIR:-$HOME/.openclaw})"
_MCP = (
    "openclaw@2026.9.6 package: dist/zod-schema-*.mjs McpServerSchema, dist/paths-*.mjs "
    "resolveConfigPath, docs/tools/mcp.md; `openclaw mcp list`, `mcp probe coffer` (9 tools) "
    "after coffer setup"
)
_PER_FILE = 20_000  # characters; a byte budget of the same number is never more
_CAPS = (Cap(_PER_FILE, "chars"), Cap(60_000, "chars", "total"))
_BOOT = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md")

SPEC = AgentSpec(
    name="openclaw",
    config=Place("~/.openclaw", env="OPENCLAW_STATE_DIR"),
    executables=("openclaw",),
    project=Render(
        ("{root}/AGENTS.md",),
        max_bytes=_PER_FILE,
        note="read by `openclaw agent exec` started here, not by `agent --local`",
    ),
    global_=Render(("{config}/workspace/AGENTS.md",), max_bytes=_PER_FILE),
    setup=Wire(
        mcp=McpServer(
            "{config}/openclaw.json",
            "jsonc",
            ("mcp", "servers"),
            alternatives=("{config}/clawdbot.json",),
            env="OPENCLAW_CONFIG_PATH",
            note="openclaw.json is JSON5: coffer keeps its comments and trailing commas but "
            "does not edit JSON5-only syntax (unquoted keys, 'single quotes'); such a file is "
            "refused until those are double-quoted",
        ),
        no_hook="no session-start hook: OpenClaw's hooks (agent:bootstrap) are JS/TS handlers",
    ),
    facts=AgentFacts(
        title="OpenClaw",
        loads=(
            *(Load(f"{{cwd}}/{n}", "project", "cwd", _CAPS, when="agent exec") for n in _BOOT),
            *(
                Load(f"{{config}}/workspace/{n}", "global", caps=_CAPS, when="agent --local")
                for n in _BOOT
            ),
        ),
        native=NativeFacts(
            where=("{config}/workspace/MEMORY.md", "{config}/workspace/memory/"),
            format="agent-written Markdown: MEMORY.md, USER.md, daily memory/YYYY-MM-DD.md, "
            "DREAMS.md; a background sweep distils daily notes into MEMORY.md",
            loaded="MEMORY.md and USER.md; daily notes through memory_search / memory_get",
            switch="plugins.slots.memory chooses the memory plugin; "
            "agents.defaults.skipBootstrap turns injection off",
            on_by_default=True,
            coffer="MEMORY.md imported into the global tier at every coffer project (one "
            "entry, replaced when it changes) and left on: skipBootstrap would hide coffer's "
            "AGENTS.md block too; the daily notes and USER.md are not imported (ADR 0032)",
        ),
        mcp=McpFacts(
            "{config}/openclaw.json",
            "json5",
            ("mcp", "servers"),
            "{command, args, env} (stdio; transport optional); $OPENCLAW_CONFIG_PATH names "
            "the file instead; coffer edits it as JSONC and refuses JSON5-only syntax",
        ),
        hook=HookFacts(
            "{config}/hooks/",
            "agent:bootstrap",
            True,
            "internal hooks (HOOK.md + handler) can edit the injected files; not exercised",
        ),
        checked=(
            Checked("2026.9.6", ("Run",), _RUN, "2026-11"),
            Checked("2026.9.6", ("Docs",), _DOCS, "2026-12-01"),
            Checked("2026.9.6", ("Code", "Docs", "Run"), _MCP, "2026-12-01"),
            suite_run("2026.9.6"),
        ),
        notes=("needs Node >= 24.16",),
    ),
)
NAME, detect, targets, _spec_inputs, _ = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring


def native_memory(ctx: Context) -> NativeMemory:
    """The workspace's MEMORY.md, imported and left on (openclaw/native.py)."""
    return openclaw_native.native_memory(SPEC.config_dir(ctx) / "workspace")


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    env, files = _spec_inputs(ctx)
    return env, [*files, *openclaw_native.files(SPEC.config_dir(ctx) / "workspace")]
