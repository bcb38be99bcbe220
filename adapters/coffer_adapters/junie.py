"""JetBrains Junie (IDE plugin and CLI): the project tier is the shared block in
``AGENTS.md`` (or ``.junie/AGENTS.md`` when the project has one), the global tier a block in
``~/.junie/AGENTS.md``.

Facts, from Junie's documentation: junie.jetbrains.com/docs/guidelines-and-memory.html and
junie-ide-plugin.html (2026-08), as quoted in Chemaclass/agnostic-ai#552 and checked on Junie
26.7.13 in Gentleman-Programming/gentle-ai#591; the 2025 pages (jetbrains.com/help/junie)
knew only ``.junie/guidelines.md``. No client was run. Junie adds its guidelines to every
task and takes the first of: a custom guidelines path (Settings | Tools | Junie, which
coffer cannot see), ``.junie/AGENTS.md`` ("the most preferred standard location"), the root
``AGENTS.md`` when the ``.junie`` folder has none, then the legacy ``.junie/guidelines.md``
or ``.junie/guidelines/``. User-level guidelines are ``~/.junie/AGENTS.md``. MCP servers
(stdio) are configured in ``~/.junie/mcp/mcp.json`` or the project's
``.junie/mcp/mcp.json``. No session-start hook.

Setup (docs/adr/0033): coffer's server goes into ``~/.junie/mcp/mcp.json`` (``mcpServers``,
keyed by name, ``command``/``args``/``env``), the file Junie's MCP Settings page saves
(jetbrains.com/help/junie "Model Context Protocol (MCP)"; Vaadin's Junie setup page).
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = (
    "junie.jetbrains.com/docs/guidelines-and-memory.html (2026-08, quoted in "
    "Chemaclass/agnostic-ai#552, Gentleman-Programming/gentle-ai#591)"
)
_OLD = "jetbrains.com/help/junie/customize-guidelines.html (November 2025)"
_MCP = (
    "jetbrains.com/help/junie/model-context-protocol-mcp.html; "
    "vaadin.com/docs agentic-development/mcp/supported-tools/junie"
)
_DOT = ("{root}/.junie/AGENTS.md",)

SPEC = AgentSpec(
    name="junie",
    config=Place("~/.junie"),
    executables=("junie",),
    project=Render(
        (*_DOT, "{root}/AGENTS.md"),
        create="{root}/AGENTS.md",
        note="unless a custom guidelines path is set in Junie's settings",
        displaces=(".junie/guidelines.md", ".junie/guidelines"),
    ),
    global_=Render(("{config}/AGENTS.md",)),
    setup=Wire(
        mcp=McpServer(
            "{config}/mcp/mcp.json",
            "json",
            ("mcpServers",),
            note="Junie reads it when a task starts; see Settings | Tools | Junie | MCP Settings",
        )
    ),
    facts=AgentFacts(
        title="Junie",
        loads=(
            Load("{config}/AGENTS.md", "global", how="Docs"),
            Load("{root}/<guidelines path>", "project", when="when the setting is set", how="Docs"),
            Load("{root}/.junie/AGENTS.md", "project", how="Docs"),
            Load("{root}/AGENTS.md", "project", shadowed_by=_DOT, how="Docs"),
            Load(
                "{root}/.junie/guidelines.md",
                "project",
                shadowed_by=(*_DOT, "{root}/AGENTS.md"),
                when="legacy",
                how="Docs",
            ),
        ),
        mcp=McpFacts(
            "{config}/mcp/mcp.json",
            "json",
            ("mcpServers",),
            "stdio servers only; also .junie/mcp/mcp.json in the project",
        ),
        hook=HookFacts("", "", False, "no hooks"),
        checked=(
            Checked("documentation of 2026-08 (Junie 26.7)", ("Docs",), _DOCS, "2026-12-01"),
            Checked("documentation of November 2025", ("Docs",), _OLD, "2026-12-01"),
            Checked("MCP documentation, 2026-12-01", ("Docs",), _MCP, "2026-12-01"),
        ),
        notes=(
            "any AGENTS.md at the root hides the legacy .junie/guidelines.md",
            "a custom guidelines path in Junie's settings replaces all of these",
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
