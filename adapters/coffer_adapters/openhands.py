"""OpenHands (CLI, local GUI and OpenHands Cloud): the project tier is the shared block in
``AGENTS.md``; OpenHands has no user-level instruction file, so the global tier is NONE.

Facts, from OpenHands' documentation (docs.openhands.dev "Skills overview" and
"Organization and user skills", read 2026-12-01; no client was run): the root ``AGENTS.md``
is always-on context, injected into the system prompt at conversation start; ``CLAUDE.md``
and ``GEMINI.md`` are read as model-specific variants; legacy skills without triggers in
``.openhands/microagents/`` (``repo.md``) or ``.agents/skills/`` load in full, the others on
demand. User skills in ``~/.agents/skills/`` are read by the CLI and headless modes only
(not a docker run), and that folder is shared with every Agent Skills client, so coffer
does not write there. OpenHands Cloud reads the repository as pushed: it sees the block
only with ``coffer project --git-block commit``.

Setup (docs/adr/0033): the CLI (1.0.0 and later) reads its MCP servers from
``~/.openhands/mcp.json`` (``mcpServers``, keyed by name, ``command``/``args``/``env``;
docs.openhands.dev "CLI settings" and "MCP servers": the format moved from the TOML
``[mcp]`` section to this JSON file in 1.0.0); coffer's server goes there. The local GUI and
Cloud keep theirs in Settings > MCP, which coffer does not touch.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = "docs.openhands.dev/overview/skills, /overview/skills/org"
_MCP = "docs.openhands.dev/openhands/usage/run-openhands/cli-settings, /usage/cli/mcp-servers"

SPEC = AgentSpec(
    name="openhands",
    config=Place("~/.openhands"),
    executables=("openhands",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="OpenHands Cloud sees the block only with `coffer project --git-block commit`",
    ),
    global_=Nothing(
        "OpenHands reads user skills (~/.agents/skills, CLI only), not an instruction file"
    ),
    setup=Wire(
        mcp=McpServer(
            "{config}/mcp.json",
            "json",
            ("mcpServers",),
            note="the OpenHands CLI (1.0.0 and later); the GUI keeps its servers in Settings",
        )
    ),
    facts=AgentFacts(
        title="OpenHands",
        loads=(
            Load("{root}/AGENTS.md", "project", how="Docs"),
            Load("{root}/CLAUDE.md", "project", when="Claude models", how="Docs"),
            Load("{root}/GEMINI.md", "project", when="Gemini models", how="Docs"),
            Load("{root}/.openhands/microagents/*.md", "project", when="no triggers", how="Docs"),
            Load("{root}/.agents/skills/*", "project", when="on demand or triggers", how="Docs"),
            Load("~/.agents/skills/*", "global", when="CLI and headless", how="Docs"),
        ),
        mcp=McpFacts(
            "{config}/mcp.json",
            "json",
            ("mcpServers",),
            "CLI 1.0.0 and later (before: [mcp] in config.toml); the GUI: Settings > MCP",
        ),
        checked=(
            Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),
            Checked("CLI documentation (1.x), 2026-12-01", ("Docs",), _MCP, "2026-12-01"),
        ),
        notes=("OpenHands Cloud: only what is pushed reaches it",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
