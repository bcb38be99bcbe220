"""Cline (the CLI): the project tier is the shared block in ``AGENTS.md``, the global tier a
block in ``~/.agents/AGENTS.md`` ("Global AGENTS.md").

Facts, as observed with Cline CLI 3.0.65: only the start directory is read, no parent, so a
session started in a subdirectory misses the root's ``AGENTS.md``; ``CLAUDE.md``,
``.cursorrules`` and ``.windsurfrules`` are not read. The VS Code extension's instruction
files were not checked; its MCP servers are the CLI's file: Cline 4.x for VS Code keeps them
in ``~/.cline/data/settings/cline_mcp_settings.json``, "shared across VSCode, CLI, and
JetBrains clients", and copies those of the old globalStorage file
(``saoudrizwan.claude-dev/settings/``) into it once (cline/cline ``apps/vscode/src/sdk/
SdkController.ts``, ``apps/vscode/src/hosts/vscode/mcp-settings-legacy-migration.ts``,
4.1.13), so the one entry ``coffer setup`` writes reaches both. No memory of its own; its
TaskStart hook runs but its output did not reach the prompt.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run

_RUN = "capture run of cline (npm): one offline request to a local recording server"
_VSCODE = (
    "cline/cline apps/vscode/src/sdk/SdkController.ts, "
    "apps/vscode/src/hosts/vscode/mcp-settings-legacy-migration.ts (4.1.13, 21cb8d25)"
)

SPEC = AgentSpec(
    name="cline",
    config=Place("~/.cline", env="CLINE_DIR"),
    executables=("cline",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="Cline reads AGENTS.md only in the directory a session starts in",
    ),
    global_=Render(("~/.agents/AGENTS.md",)),
    setup=Wire(
        mcp=McpServer(
            "{config}/data/settings/cline_mcp_settings.json",
            "json",
            ("mcpServers",),
            env="CLINE_MCP_SETTINGS_PATH",
        ),
        no_hook="no session-start hook: the output of Cline's TaskStart hook does not reach "
        "the model",
    ),
    facts=AgentFacts(
        title="Cline",
        loads=(
            Load("{config}/rules/*.md", "global"),
            Load("~/Cline/Rules/*.md", "global"),
            Load("~/Documents/Cline/Rules/*.md", "global"),
            Load("~/.agents/AGENTS.md", "global"),
            Load("{cwd}/.clinerules/*.md", "project", "cwd"),
            Load("{cwd}/.cline/rules/*.md", "project", "cwd"),
            Load("{cwd}/AGENTS.md", "project", "cwd"),
        ),
        mcp=McpFacts(
            "{config}/data/settings/cline_mcp_settings.json",
            "json",
            ("mcpServers",),
            "CLINE_MCP_SETTINGS_PATH moves it; the VS Code extension (4.x) reads the same file",
        ),
        hook=HookFacts(
            "{config}/hooks/TaskStart",
            "TaskStart",
            False,
            "an executable named after the event; its output did not reach the prompt",
        ),
        checked=(
            Checked("3.0.65", ("Run", "Code"), _RUN, "2026-11"),
            Checked("VS Code extension 4.1.13 (MCP file)", ("Code",), _VSCODE, "2026-12-01"),
            suite_run("3.0.65"),
        ),
        notes=("rules are keyed by file name: same-named rule files collapse into one",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
