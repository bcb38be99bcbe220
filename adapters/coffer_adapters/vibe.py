"""Mistral Vibe: both tiers are managed blocks in ``AGENTS.md`` files.

Facts, as observed with Mistral Vibe (``mistral-vibe``) 3.0.2: ``~/.vibe/AGENTS.md``
(``VIBE_HOME`` replaces ``~/.vibe``) first, then ``AGENTS.md`` in every directory from the
closest trusted ancestor down to the start directory. In a folder that is not trusted
(``~/.vibe/trusted_folders.toml``) no project file loads at all. No memory of its own and no
session-start hook.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run

_RUN = "capture run of mistral-vibe (PyPI): one offline request to a local recording server"

SPEC = AgentSpec(
    name="vibe",
    config=Place("~/.vibe", env="VIBE_HOME"),
    executables=("vibe",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="Mistral Vibe loads project files only in trusted folders",
    ),
    global_=Render(("{config}/AGENTS.md",)),
    setup=Wire(
        mcp=McpServer(
            "{config}/config.toml",
            "toml",
            ("mcp_servers",),
            named="name",
            extra={"transport": "stdio"},
        ),
        no_hook="no session-start hook: Mistral Vibe has none",
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="Mistral Vibe",
        loads=(
            Load("{config}/AGENTS.md", "global"),
            Load(
                "{cwd}/AGENTS.md",
                "project",
                "trusted-down-to-cwd",
                when="trusted folders only (~/.vibe/trusted_folders.toml)",
            ),
        ),
        mcp=McpFacts(
            "{config}/config.toml", "toml", ("mcp_servers",), "an array of tables: [[mcp_servers]]"
        ),
        hook=HookFacts(
            "{config}/hooks.toml",
            "",
            False,
            "hook types post_agent, pre_tool, post_tool; no session start",
        ),
        checked=(
            Checked("3.0.2", ("Run", "Code"), _RUN, "2026-11"),
            suite_run("3.0.2"),
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
