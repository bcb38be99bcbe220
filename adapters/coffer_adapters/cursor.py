"""Cursor: the project tier is the managed block in ``AGENTS.md``, which Cursor reads as a
"simple alternative" to ``.cursor/rules/*.mdc`` (Cursor's rules documentation; no Cursor client
was run to confirm it). Cursor's global "User Rules" live in the app's settings, not in a
file, so the global tier is not projected (NONE). Cursor has no memory of its own left to
switch off.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = "https://www.cursor.com/docs/rules"

SPEC = AgentSpec(
    name="cursor",
    config=Place("~/.cursor"),
    executables=("cursor",),
    project=Render(("{root}/AGENTS.md",)),
    global_=Nothing("Cursor keeps global User Rules in its settings, not in a file"),
    setup=Wire(mcp=McpServer("{config}/mcp.json", "json", ("mcpServers",))),
    facts=AgentFacts(
        title="Cursor",
        loads=(
            Load("{root}/.cursor/rules/*.mdc", "project", "cwd-up-to-root", how="Docs"),
            Load("{root}/AGENTS.md", "project", "cwd-up-to-root", how="Docs"),
        ),
        mcp=McpFacts("{config}/mcp.json", "json", ("mcpServers",), "also .cursor/mcp.json"),
        checked=(Checked("documentation, November 2026", ("Docs",), _DOCS, "2026-11"),),
        notes=("a plain .md file (not .mdc) in .cursor/rules is ignored",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
