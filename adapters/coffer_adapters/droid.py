"""Factory Droid: the project tier is the shared block in ``AGENTS.md``, the global tier a
block in ``~/.factory/AGENTS.md``.

Facts, from Factory's documentation (docs.factory.ai, AGENTS.md and configuration pages, as of
CLI 1.21; read 2026-12-01): project instructions are ``AGENTS.md`` at the root, in nested
directories and in ``.factory/``; personal ones ``~/.factory/AGENTS.md``. MCP servers are in
``~/.factory/mcp.json``. The CLI needs a Factory login and its Linux package was missing on
the registry, so it was not run.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = "docs.factory.ai: AGENTS.md, settings and MCP pages (CLI 1.21)"

SPEC = AgentSpec(
    name="droid",
    config=Place("~/.factory"),
    executables=("droid",),
    project=Render(("{root}/AGENTS.md",)),
    global_=Render(("{config}/AGENTS.md",)),
    setup=Wire(
        mcp=McpServer("{config}/mcp.json", "json", ("mcpServers",), extra={"type": "stdio"}),
        # personal skills: ~/.factory/skills/<name>/SKILL.md, one level deep (docs.factory.ai,
        # CLI "Skills" page, read 2026-12-03)
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="Factory Droid",
        loads=(
            Load("{config}/AGENTS.md", "global", how="Docs"),
            Load("{root}/AGENTS.md", "project", how="Docs"),
            Load("{root}/.factory/AGENTS.md", "project", how="Docs"),
        ),
        mcp=McpFacts("{config}/mcp.json", "json", ("mcpServers",)),
        checked=(Checked("1.21 (documentation)", ("Docs",), _DOCS, "2026-12-01"),),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
