"""Amp: the project tier is the shared block in ``AGENTS.md``, the global tier a block in
``~/.config/amp/AGENTS.md``.

Facts, from Amp's manual (ampcode.com/manual, read 2026-12-01; the CLI needs an ampcode.com
login, so it was not run): ``AGENTS.md`` in the working directory and its parents up to the
repository root is loaded (``AGENT.md`` and, when neither exists, ``CLAUDE.md`` are read
instead), and ``~/.config/amp/AGENTS.md`` is "always included if it exists".
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = "ampcode.com/manual (AGENTS.md; settings)"

SPEC = AgentSpec(
    name="amp",
    config=Place("~/.config/amp"),
    executables=("amp",),
    project=Render(
        ("{root}/AGENTS.md", "{root}/AGENT.md"),
        create="{root}/AGENTS.md",
        displaces=("CLAUDE.md",),
    ),
    global_=Render(("{config}/AGENTS.md",)),
    setup=Wire(mcp=McpServer("{config}/settings.json", "json", ("amp.mcpServers",))),
    facts=AgentFacts(
        title="Amp",
        loads=(
            Load("{config}/AGENTS.md", "global", how="Docs"),
            Load("{cwd}/AGENTS.md", "project", "cwd-up-to-root", how="Docs"),
            Load(
                "{cwd}/AGENT.md",
                "project",
                "cwd-up-to-root",
                shadowed_by=("AGENTS.md",),
                how="Docs",
            ),
            Load(
                "{cwd}/CLAUDE.md",
                "project",
                "cwd-up-to-root",
                shadowed_by=("AGENTS.md", "AGENT.md"),
                how="Docs",
            ),
        ),
        mcp=McpFacts("{config}/settings.json", "json", ("amp.mcpServers",)),
        checked=(Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
