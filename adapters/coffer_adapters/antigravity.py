"""Google Antigravity (IDE and ``agy`` CLI): the project tier is the shared block in
``AGENTS.md``, the global tier the block in ``~/.gemini/GEMINI.md`` that Gemini CLI reads
too (one block, two readers).

Facts, from Antigravity's documentation (antigravity.google/docs "Rules & Workflows", read
through copies on 2026-12-01) and Google's forum (discuss.ai.google.dev "New folder for
rules", 1.18.4 to 1.19.5); no client was run: global rules are ``~/.gemini/GEMINI.md``;
workspace rules are ``GEMINI.md`` and, since 1.20.3 (March 2026), ``AGENTS.md`` at the
workspace root, plus ``.agents/rules/*.md`` (``.agent/rules/`` when ``.agents`` is absent),
each by its activation mode; a rule file is limited to 12,000 characters. MCP servers:
``~/.gemini/antigravity/mcp_config.json``.

Not wired by ``coffer setup`` (docs/adr/0033): the sources disagree on the file. Server
vendors' Antigravity IDE instructions name ``~/.gemini/antigravity/mcp_config.json``; those
for Antigravity 2.0 and the ``agy`` CLI name ``~/.gemini/config/mcp_config.json``
(MESCIUS' Antigravity CLI page; jgravelle/jcodemunch-mcp v1.108.89, which reverted an
installer that wrote the first). Antigravity's own MCP page was not in reach, so coffer
writes neither until one is checked against a release.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Cap, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render

_DOCS = "antigravity.google/docs/rules-workflows; discuss.ai.google.dev/t/126165"
_CAP = (Cap(12_000, "chars"),)

SPEC = AgentSpec(
    name="antigravity",
    config=Place("~/.gemini/antigravity"),
    executables=("antigravity", "agy"),
    project=Render(
        ("{root}/AGENTS.md",),
        note="Antigravity releases before 1.20.3 read GEMINI.md and .agent/rules/ only",
    ),
    global_=Render(("~/.gemini/GEMINI.md",), max_bytes=12_000),
    facts=AgentFacts(
        title="Antigravity",
        loads=(
            Load("~/.gemini/GEMINI.md", "global", caps=_CAP, how="Docs"),
            Load("{root}/GEMINI.md", "project", caps=_CAP, how="Docs"),
            Load("{root}/AGENTS.md", "project", caps=_CAP, when="1.20.3 and later", how="Docs"),
            Load(
                "{root}/.agents/rules/*.md", "project", caps=_CAP, when="by activation", how="Docs"
            ),
            Load(
                "{root}/.agent/rules/*.md",
                "project",
                caps=_CAP,
                shadowed_by=("{root}/.agents",),
                how="Docs",
            ),
        ),
        mcp=McpFacts(
            "{config}/mcp_config.json",
            "json",
            ("mcpServers",),
            "the IDE; Antigravity 2.0 and agy are reported to read "
            "~/.gemini/config/mcp_config.json instead: not wired until checked",
        ),
        checked=(Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),),
        notes=("~/.gemini/GEMINI.md is Gemini CLI's global file too",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
