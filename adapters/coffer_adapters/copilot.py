"""GitHub Copilot (CLI, VS Code, coding agent): the project tier is the shared block in
``AGENTS.md``, the global tier a block in ``~/.copilot/copilot-instructions.md`` (the CLI's
user-level instructions).

Facts, from GitHub's documentation ("Adding custom instructions for GitHub Copilot CLI" and
"Adding repository custom instructions", docs.github.com, read 2026-12-01; the CLI 1.0.102 was
run in its bring-your-own-model mode, which needs no GitHub login, by
tests/agents/test_every_agent.py: both files below marked Run reached the request): the CLI loads
``$HOME/.copilot/copilot-instructions.md`` and ``$HOME/.copilot/instructions/**/*.instructions
.md``, then ``.github/copilot-instructions.md``, ``.github/instructions/**/*.instructions.md``
and agent instruction files (``AGENTS.md``) from the repository root, the working directory
and the directories between. VS Code reads ``.github/copilot-instructions.md`` and
``AGENTS.md``; the cloud coding agent reads the repository as pushed, so it sees coffer's block
only with ``coffer project --git-block commit``; its hooks are the repository's
``.github/hooks/*.json``. A CLI report says the user-level file was
listed but not loaded (github/copilot-cli#2179, 1.0.9 on Windows).
"""

from __future__ import annotations

from coffer.agent_facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.agent_spec import AgentSpec, Place, Render
from coffer.agent_wiring import McpServer, Wire

_DOCS = "docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions"

SPEC = AgentSpec(
    name="copilot",
    config=Place("~/.copilot"),
    executables=("copilot",),
    installed=("~/.vscode/extensions/github.copilot-chat-*",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="the cloud coding agent sees the block only with `coffer project --git-block commit`",
    ),
    global_=Render(("{config}/copilot-instructions.md",), note="read by the Copilot CLI"),
    setup=Wire(
        mcp=McpServer(
            "{config}/mcp-config.json",
            "json",
            ("mcpServers",),
            extra={"type": "local", "tools": ["*"]},
            note="read by the Copilot CLI; VS Code keeps its MCP servers elsewhere",
        ),
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="GitHub Copilot",
        loads=(
            Load("{config}/copilot-instructions.md", "global", when="CLI", how="Run"),
            Load("{config}/instructions/**/*.instructions.md", "global", when="CLI", how="Docs"),
            Load("{cwd}/.github/copilot-instructions.md", "project", "cwd-up-to-root", how="Docs"),
            Load(
                "{cwd}/.github/instructions/**/*.instructions.md",
                "project",
                "cwd-up-to-root",
                when="path-specific (applyTo)",
                how="Docs",
            ),
            Load("{cwd}/AGENTS.md", "project", "cwd-up-to-root", how="Run"),
        ),
        mcp=McpFacts("{config}/mcp-config.json", "json", ("mcpServers",), "Copilot CLI"),
        hook=HookFacts(
            "{config}/hooks/*.json",
            "sessionStart",
            False,
            "CLI; the CLI and the cloud agent also run .github/hooks/*.json; the documentation "
            "does not say the output reaches the model (docs.github.com, About hooks)",
        ),
        checked=(
            Checked("CLI 1.0 (documentation)", ("Docs",), _DOCS, "2026-12-01"),
            Checked(
                "CLI 1.0.102",
                ("Run",),
                "tests/agents/test_every_agent.py: projected tiers sent, nothing after unproject",
                "2026-12-01",
            ),
        ),
        notes=("VS Code reads AGENTS.md when chat.useAgentsMdFile is on",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
