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
``.github/hooks/*.json``. ``coffer setup`` registers coffer's MCP server with the CLI
(``~/.copilot/mcp-config.json``) and with Copilot in VS Code (the user profile's
``mcp.json``, JSONC, where VS Code's user directory exists). A CLI report says the
user-level file was listed but not loaded (github/copilot-cli#2179, 1.0.9 on Windows).
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run, vscode_user

_DOCS = "docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions"
_MCP_DOCS = (
    "code.visualstudio.com/docs/copilot/reference/mcp-configuration (servers, stdio: type, "
    "command, args, env); VS Code's user data directory: getDefaultUserDataPath "
    "(userDataPath.js: VSCODE_APPDATA, else Linux $XDG_CONFIG_HOME or ~/.config, macOS "
    "~/Library/Application Support)"
)
# VS Code's user-profile mcp.json (JSONC; "MCP: Open User Configuration"): in the user data
# directory's User/, which is ~/.config/Code on Linux, ~/Library/Application Support/Code on
# macOS and %APPDATA%\Code on Windows; only where that directory exists (VS Code is
# installed), so coffer never makes one
_VSCODE_MCP = McpServer(
    vscode_user("mcp.json"),
    "jsonc",
    ("servers",),
    extra={"type": "stdio"},
    existing_dir=True,
    note="read by Copilot in VS Code (its default profile)",
)

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
            note="read by the Copilot CLI",
        ),
        also=(_VSCODE_MCP,),
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
        mcp=McpFacts(
            "{config}/mcp-config.json",
            "json",
            ("mcpServers",),
            "Copilot CLI; Copilot in VS Code reads the user profile's mcp.json (JSONC, "
            "servers.<name> {type: stdio, command, args, env}: "
            "$XDG_CONFIG_HOME/Code/User/mcp.json on Linux, ~/Library/Application Support/"
            "Code/User/mcp.json on macOS, %APPDATA%\\Code\\User\\mcp.json on Windows; "
            "VSCODE_APPDATA (not followed) moves them; a profile "
            "other than the default keeps its own under User/profiles/) and .vscode/mcp.json",
        ),
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
                "VS Code MCP (documentation, source)", ("Docs", "Code"), _MCP_DOCS, "2026-12-01"
            ),
            suite_run("CLI 1.0.102"),
        ),
        notes=("VS Code reads AGENTS.md when chat.useAgentsMdFile is on",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
