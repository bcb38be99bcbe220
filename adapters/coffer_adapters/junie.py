"""JetBrains Junie (IDE plugin and CLI): the project tier is a block in
``.junie/guidelines.md``, the file Junie reads unless told otherwise; Junie has no user-level
guidelines file, so the global tier is NONE.

Facts, from JetBrains' documentation (jetbrains.com/help/junie "Guidelines", "Project
Settings" and "Model Context Protocol", pages of November 2025, read 2026-12-01; no client
was run): Junie adds its guidelines to every task; by default it reads
``.junie/guidelines.md`` in the project root, and Settings | Tools | Junie | Project
Settings | Guidelines path can name another file instead (an ``AGENTS.md``, say), which
coffer cannot see (agentsmd/agents.md#145 lists AGENTS.md support in the IDE and the CLI).
MCP servers (stdio only) are configured in ``~/.junie/mcp/mcp.json`` or the project's
``.junie/mcp/mcp.json``. No session-start hook; no memory of its own.
"""

from __future__ import annotations

from coffer.agent_facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.agent_spec import AgentSpec, Nothing, Place, Render

_DOCS = "jetbrains.com/help/junie/customize-guidelines.html, project-settings.html"

SPEC = AgentSpec(
    name="junie",
    config=Place("~/.junie"),
    executables=("junie",),
    project=Render(
        ("{root}/.junie/guidelines.md",),
        note="unless Junie's Guidelines path setting names another file",
    ),
    global_=Nothing("Junie reads guidelines per project only; it has no user-level file"),
    facts=AgentFacts(
        title="Junie",
        loads=(
            Load(
                "{root}/.junie/guidelines.md", "project", when="default Guidelines path", how="Docs"
            ),
            Load("{root}/<Guidelines path>", "project", when="when the setting is set", how="Docs"),
        ),
        mcp=McpFacts(
            "{config}/mcp/mcp.json",
            "json",
            ("mcpServers",),
            "stdio servers only; also .junie/mcp/mcp.json in the project",
        ),
        hook=HookFacts("", "", False, "no hooks"),
        checked=(Checked("documentation of November 2025", ("Docs",), _DOCS, "2026-12-01"),),
        notes=("a Guidelines path setting replaces .junie/guidelines.md entirely",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
