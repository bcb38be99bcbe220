"""Roo Code (VS Code extension): the project tier is the shared block in ``AGENTS.md``; the
global tier is NONE, because a file in ``~/.roo/rules/`` would switch off every project's
legacy rules file.

Facts, from Roo Code's source (RooCodeInc/Roo-Code ``src/core/prompts/sections/
custom-instructions.ts`` and ``src/services/roo-config/index.ts``, package 3.31.1, read
2026-12-01) and docs.roocode.com: the system prompt gets, in order, the mode's rules
(``.roo/rules-<mode>/`` of every ``.roo`` directory, global first, else ``.roorules-<mode>``,
else ``.clinerules-<mode>``), ``AGENTS.md`` (else ``AGENT.md``) in the workspace root unless
``roo-cline.useAgentRules`` is false, then the files of ``~/.roo/rules/`` and of every
``.roo/rules/`` from the filesystem root (stopping at the home directory) down to the
workspace, alphabetically. Only when none of those directories holds a file are
``.roorules`` or ``.clinerules`` read: a coffer file in ``~/.roo/rules/`` would hide them in
every project. Roo Code was shut down on 2026-05-15 (the repository is archived); installed
copies keep working, so the adapter stays. No memory of its own, no hooks. ``coffer setup``
registers coffer's MCP server in Roo's global ``mcp_settings.json`` (in VS Code's
globalStorage), once Roo has made its settings directory there.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import vscode_user

_CODE = (
    "RooCodeInc/Roo-Code src/core/prompts/sections/custom-instructions.ts, "
    "src/services/roo-config/index.ts (src/package.json 3.31.1)"
)
_DOCS = "docs.roocode.com/features/custom-instructions, /features/mcp/using-mcp-in-roo"
_RULES = ("{config}/rules/*", "{root}/.roo/rules/*")  # any file there hides the legacy files
_MCP_CODE = (
    "RooCodeInc/Roo-Code src/services/mcp/McpHub.ts getMcpSettingsFilePath, "
    "src/utils/storage.ts, src/shared/globalFileNames.ts (src/package.json 3.52.1, cb836567)"
)
# Roo's global MCP settings: <VS Code globalStorage>/rooveterinaryinc.roo-cline/settings/
# mcp_settings.json (plain JSON: Roo reads it with JSON.parse and reloads it when it changes)
_STORAGE = "globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"

SPEC = AgentSpec(
    name="roo",
    config=Place("~/.roo"),
    installed=("~/.vscode/extensions/rooveterinaryinc.roo-cline-*",),
    project=Render(
        ("{root}/AGENTS.md", "{root}/AGENT.md"),
        create="{root}/AGENTS.md",
        note="read unless roo-cline.useAgentRules is false",
    ),
    global_=Nothing(
        "Roo Code's global file is any file in ~/.roo/rules/, and one there makes it skip "
        "every project's .roorules and .clinerules; its global instructions live in its "
        "settings"
    ),
    setup=Wire(
        mcp=McpServer(
            vscode_user(_STORAGE),  # VS Code's globalStorage (context.globalStorageUri)
            "json",
            ("mcpServers",),
            existing_dir=True,  # Roo makes settings/ when it first runs in VS Code
            note="Roo Code reloads mcp_settings.json when it changes; a "
            "roo-cline.customStoragePath setting moves it, and coffer does not follow that",
        ),
        no_hook="no session-start hook: Roo Code has no hooks",
    ),
    facts=AgentFacts(
        title="Roo Code",
        loads=(
            Load("{config}/rules-<mode>/**", "global", when="the current mode", how="Code"),
            Load("{cwd}/.roo/rules-<mode>/**", "project", "fs-root-down-to-cwd", how="Code"),
            Load("{root}/AGENTS.md", "project", when="roo-cline.useAgentRules", how="Code"),
            Load("{root}/AGENT.md", "project", shadowed_by=("AGENTS.md",), how="Code"),
            Load("{config}/rules/**", "global", how="Code"),
            Load("{cwd}/.roo/rules/**", "project", "fs-root-down-to-cwd", how="Code"),
            Load("{root}/.roorules", "project", shadowed_by=_RULES, how="Code"),
            Load(
                "{root}/.clinerules",
                "project",
                shadowed_by=(*_RULES, "{root}/.roorules"),
                how="Code",
            ),
        ),
        mcp=McpFacts(
            "{root}/.roo/mcp.json",
            "json",
            ("mcpServers",),
            "global: settings/mcp_settings.json in VS Code's globalStorage "
            "rooveterinaryinc.roo-cline ($XDG_CONFIG_HOME/Code/User/globalStorage/... on "
            "Linux, ~/Library/Application Support/Code/User/globalStorage/... on macOS, "
            "%APPDATA%\\Code\\User\\globalStorage\\... on Windows; "
            "roo-cline.customStoragePath moves it), mcpServers.<name> {type: stdio "
            "(optional), command, args, env}; the project file wins per server name",
        ),
        hook=HookFacts("", "", False, "no hooks"),
        checked=(
            Checked("3.31.1 (source)", ("Code",), _CODE, "2026-12-01"),
            Checked("3.52.1 (source)", ("Code",), _MCP_CODE, "2026-12-01"),
            Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),
        ),
        notes=(
            "discontinued 2026-05-15; the community fork is Zoo Code",
            "any file in a .roo/rules/ directory, ~/.roo/rules/ included, hides .roorules "
            "and .clinerules",
            "the .roo walk is not bounded by the git root: it stops at the home directory",
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
