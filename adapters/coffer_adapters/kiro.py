"""Kiro (IDE and CLI): the project tier is the shared block in ``AGENTS.md``, the global tier
a block in ``~/.kiro/steering/AGENTS.md``.

Facts, from Kiro's documentation (kiro.dev/docs/steering, read 2026-12-01; no client was
run): steering files are ``.kiro/steering/*.md`` (workspace) and ``~/.kiro/steering/*.md``
(global); ``AGENTS.md`` is supported in the workspace root and in the global steering
directory and is always included. Open reports say some IDE releases do not load global
steering (kirodotdev/Kiro#6171, #9117).
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = "kiro.dev/docs/steering (AGENTS.md support, global steering)"

SPEC = AgentSpec(
    name="kiro",
    config=Place("~/.kiro"),
    executables=("kiro", "kiro-cli"),
    project=Render(("{root}/AGENTS.md",)),
    global_=Render(
        ("{config}/steering/AGENTS.md",),
        note="some Kiro IDE releases do not load global steering (kirodotdev/Kiro#6171)",
    ),
    setup=Wire(mcp=McpServer("{config}/settings/mcp.json", "json", ("mcpServers",))),
    facts=AgentFacts(
        title="Kiro",
        loads=(
            Load("{config}/steering/*.md", "global", when="inclusion: always", how="Docs"),
            Load("{config}/steering/AGENTS.md", "global", how="Docs"),
            Load("{root}/.kiro/steering/*.md", "project", when="by inclusion mode", how="Docs"),
            Load("{root}/AGENTS.md", "project", how="Docs"),
        ),
        mcp=McpFacts("{config}/settings/mcp.json", "json", ("mcpServers",)),
        checked=(Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),),
        notes=("workspace steering wins over global steering on conflict",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
