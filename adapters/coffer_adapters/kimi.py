"""Kimi CLI: the project tier is the shared block in ``AGENTS.md``; Kimi loads no global file,
so the global tier is NONE.

Facts, as observed with Kimi CLI 1.51.0 (1.52.0 is a tombstone that only says the package is
no longer maintained): for every directory from the project root down to the start directory,
``.kimi/AGENTS.md`` then ``AGENTS.md`` (else ``agents.md``); all of them share one 32 KiB
budget, allocated leaf first, so the root file is cut first: coffer keeps the root
``AGENTS.md`` within 32 KiB. ``~/.kimi/AGENTS.md`` is not loaded. No memory of its own; its
SessionStart hook runs but its output is not used for the prompt.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Cap, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run

_RUN = "capture run of kimi-cli (PyPI): one offline request to a local recording server"
_BUDGET = 32 * 1024
_CAP = Cap(
    _BUDGET,
    "bytes",
    "total",
    keeps="leaf files first: the root file is cut first",
    fills="last-first",
)

SPEC = AgentSpec(
    name="kimi",
    config=Place("~/.kimi", env="KIMI_SHARE_DIR"),
    executables=("kimi",),
    project=Render(("{root}/AGENTS.md",), max_bytes=_BUDGET),
    global_=Nothing("Kimi CLI loads no global instruction file (~/.kimi/AGENTS.md is not read)"),
    setup=Wire(
        mcp=McpServer("{config}/mcp.json", "json", ("mcpServers",)),
        no_hook="no session-start hook: Kimi CLI does not give a SessionStart hook's output "
        "to the model",
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="Kimi CLI",
        order="by-directory",  # .kimi/AGENTS.md then AGENTS.md, directory by directory
        loads=(
            Load("{cwd}/.kimi/AGENTS.md", "project", "root-down-to-cwd", (_CAP,)),
            Load("{cwd}/AGENTS.md", "project", "root-down-to-cwd", (_CAP,)),
            Load(
                "{cwd}/agents.md",
                "project",
                "root-down-to-cwd",
                (_CAP,),
                shadowed_by=("AGENTS.md",),
            ),
        ),
        mcp=McpFacts("{config}/mcp.json", "json", ("mcpServers",), "code only"),
        hook=HookFacts(
            "{config}/config.toml",
            "SessionStart",
            False,
            "hooks = [{event, command, matcher, timeout}]; output not used",
        ),
        checked=(
            Checked("1.51.0", ("Run", "Code"), _RUN, "2026-11"),
            suite_run("1.51.0"),
        ),
        notes=("the successor, Kimi Code CLI, installs from a script and was not checked",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
