"""Continue (VS Code and JetBrains extensions, ``cn`` CLI): the project tier is the shared
block in ``AGENTS.md``, the global tier a rule file coffer creates in ``~/.continue/rules/``.

Facts, from Continue's source (continuedev/continue ``core/config/markdown/
loadMarkdownRules.ts`` at 11fa0e26, read 2026-12-01) and docs.continue.dev "Rules": the
system message joins Hub rules, then ``AGENTS.md`` of the first workspace folder that has
one (always applied; ``AGENT.md`` and ``CLAUDE.md`` are listed too, but the loop stops after
the first name, so only ``AGENTS.md`` is ever read), then every ``.md`` file of
``.continue/rules/`` and ``.continue/prompts/`` in the workspace and in the global directory
``~/.continue`` (``CONTINUE_GLOBAL_DIR`` moves it). A rule file without frontmatter has no
globs, so it applies to every request. MCP servers are ``.continue/mcpServers/`` files or
``mcpServers`` in ``config.yaml``; ``coffer setup`` writes its own
``~/.continue/mcpServers/coffer.json``, which the IDE extensions read (not the ``cn`` CLI).
No memory of its own.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run

_CODE = "continuedev/continue core/config/markdown/loadMarkdownRules.ts (11fa0e26)"
_DOCS = "docs.continue.dev/customize/deep-dives/rules"
_MCP_CODE = (
    "continuedev/continue core/context/mcp/json/loadJsonMcpConfigs.ts, packages/config-yaml/"
    "src/schemas/mcp/json.ts (d0a3c0b6, VS Code extension 1.3.40); extensions/cli/src/"
    "services/MCPService.ts reads only the assistant's mcpServers list"
)

SPEC = AgentSpec(
    name="continue",
    config=Place("~/.continue", env="CONTINUE_GLOBAL_DIR"),
    executables=("cn",),
    installed=("~/.vscode/extensions/continue.continue-*",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="Continue reads the AGENTS.md of the first workspace folder that has one",
    ),
    global_=Render(("{config}/rules/coffer-memory.md",)),
    # a file of coffer's own: the extensions read every *.json of ~/.continue/mcpServers/ in
    # Claude Desktop's shape (comment-json), so no user file is edited; config.yaml's
    # mcpServers is a YAML list, which coffer's YAML editor does not append to
    setup=Wire(
        mcp=McpServer(
            "{config}/mcpServers/coffer.json",
            "json",
            ("mcpServers",),
            extra={"type": "stdio"},
            note="read by the VS Code and JetBrains extensions; the cn CLI reads MCP servers "
            "only from config.yaml's mcpServers list: add coffer there by hand for cn",
        ),
        no_hook="no session-start hook: the IDE extensions run none (the cn CLI's hooks "
        "were not checked)",
    ),
    facts=AgentFacts(
        title="Continue",
        loads=(
            Load("{root}/AGENTS.md", "project", when="first workspace folder with one", how="Code"),
            Load("{root}/.continue/rules/*.md", "project", when="by frontmatter", how="Code"),
            Load("{root}/.continue/prompts/*.md", "project", when="not invokable", how="Code"),
            Load("{config}/rules/*.md", "global", when="by frontmatter", how="Code"),
            Load("{config}/prompts/*.md", "global", when="not invokable", how="Code"),
        ),
        mcp=McpFacts(
            "{config}/config.yaml",
            "yaml",
            ("mcpServers",),
            "also the files of .continue/mcpServers/ (workspace and global): YAML blocks "
            "(name, version, schema, a one-item mcpServers list) and JSON in Claude "
            "Desktop's shape (mcpServers.<name> {type: stdio, command, args, env}), read "
            "by the IDE extensions; the cn CLI reads only config.yaml's list",
        ),
        checked=(
            Checked("main at 11fa0e26", ("Code",), _CODE, "2026-12-01"),
            Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),
            Checked("main at d0a3c0b6 (MCP files)", ("Code",), _MCP_CODE, "2026-12-01"),
            suite_run("cn 1.5.47"),
        ),
        notes=(
            "AGENT.md and CLAUDE.md are never read: the lookup stops after AGENTS.md",
            "Hub rules and config.yaml rules come before the files",
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
