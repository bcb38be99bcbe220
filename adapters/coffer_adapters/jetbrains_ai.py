"""JetBrains AI Assistant (its own chat): NONE for both tiers. Its project rules are files in
``.aiassistant/rules/`` that must start with an ``apply:`` metadata block (a file without
one counts as Off), which a managed block cannot carry; its global rules live in the IDE.

Facts, from JetBrains' documentation (jetbrains.com/help/ai-assistant "Configure project
rules", 2026.1, read 2026-12-01) and a reading of the plugin's ``AiRulesService`` reported
in dyoshikawa/rulesync#3015 (plugin 262.10968.63, 2026-09-16): rules are Markdown files in
``.aiassistant/rules/`` whose type (Always, Manually, By model decision, By file patterns,
Off) is the ``apply:`` line of a leading ``---`` block; AI Assistant 2026.2 reads no root
``AGENTS.md`` (dyoshikawa/rulesync#2427). The agents AI Assistant hosts (Junie, Claude
Agent, Codex) read their own files: those adapters cover them.

Not wired by ``coffer setup`` (docs/adr/0033): AI Assistant's MCP servers are added in the
IDE (Settings | Tools | AI Assistant | Model Context Protocol), stored in its settings, not
in a file of its own.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place
from coffer.adapter.templates import BySystem

_DOCS = "jetbrains.com/help/ai-assistant/2026.1/configure-project-rules.html"
_CODE = "plugin 262.10968.63 AiRulesService, as read in dyoshikawa/rulesync#3015"

SPEC = AgentSpec(
    name="jetbrains-ai",
    # the IDEs' configuration root (jetbrains.com/help/idea/directories-used-by-the-ide-to-
    # store-settings-caches-plugins-and-logs.html): ~/.config/JetBrains on Linux,
    # ~/Library/Application Support/JetBrains on macOS, %APPDATA%\JetBrains on Windows
    config=Place(
        BySystem(
            "$XDG_CONFIG_HOME/JetBrains",
            darwin="~/Library/Application Support/JetBrains",
            win32="$APPDATA/JetBrains",
        )
    ),
    project=Nothing(
        "AI Assistant reads .aiassistant/rules/*.md only with an `apply: always` header, "
        "which a managed block cannot carry; add such a rule that points at AGENTS.md",
        path="{root}/.aiassistant/rules",
    ),
    global_=Nothing("AI Assistant keeps user-level rules in the IDE's settings, not a file"),
    facts=AgentFacts(
        title="JetBrains AI Assistant",
        loads=(
            Load(
                "{root}/.aiassistant/rules/*.md",
                "project",
                when="by the apply: line of each file (none: Off)",
                how="Inferred",
            ),
        ),
        mcp=McpFacts(
            "",
            "ui",
            (),
            "Settings | Tools | AI Assistant | Model Context Protocol (MCP), in the IDE",
        ),
        checked=(
            Checked("2026.1 documentation", ("Docs",), _DOCS, "2026-12-01"),
            Checked("plugin 262.10968.63", ("Inferred",), _CODE, "2026-12-01"),
        ),
        notes=("the agents it hosts (Junie, Claude Agent, Codex) read their own files",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
