"""Trae (ByteDance's IDE): the project tier is the shared block in ``AGENTS.md``; Trae's user
rules are edited in its settings, so the global tier is NONE.

Facts, from Trae's documentation (docs.trae.ai "Rules" and TRAE's announcement of multiple
rules, read through copies on 2026-12-01; no client was run): project rules are Markdown
files in ``.trae/rules/`` (formerly one ``.trae/rules/project_rules.md``), each applied by
its frontmatter (``alwaysApply``, ``globs``, a description for agent-requested rules, or
manual ``#Rule`` mentions); Trae can also read ``AGENTS.md`` and ``CLAUDE.md`` from the
project when that is switched on in its Rules settings. User rules (formerly
``user_rules.md``) are now edited in the settings panel. MCP servers: ``.trae/mcp.json`` in
the project and Trae's MCP settings. No memory of its own.

Not wired by ``coffer setup`` (docs/adr/0033): Trae's user-level MCP servers are added in
its MCP settings panel, not a file coffer can edit; ``.trae/mcp.json`` belongs to one
project and its repository.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render

_DOCS = "docs.trae.ai Rules; TRAE blog on multiple rules and AGENTS.md/CLAUDE.md import"

SPEC = AgentSpec(
    name="trae",
    config=Place("~/.trae"),
    executables=("trae",),
    installed=("~/.trae-cn",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="read when Trae's Rules settings include AGENTS.md",
    ),
    global_=Nothing("Trae's user rules are edited in its settings panel, not in a file"),
    facts=AgentFacts(
        title="Trae",
        loads=(
            Load("{root}/.trae/rules/*.md", "project", when="by frontmatter", how="Docs"),
            Load("{root}/AGENTS.md", "project", when="Rules setting on", how="Docs"),
            Load("{root}/CLAUDE.md", "project", when="Rules setting on", how="Docs"),
        ),
        mcp=McpFacts(
            "{root}/.trae/mcp.json",
            "json",
            ("mcpServers",),
            "project only; user-level servers are added in Trae's MCP settings (UI)",
        ),
        checked=(Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),),
        notes=("AGENTS.md is read only when its Rules setting is on",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
