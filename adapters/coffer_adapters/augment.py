"""Augment (Auggie CLI, VS Code and JetBrains extensions): the project tier is the shared
block in ``AGENTS.md``, the global tier a user rule file coffer creates in
``~/.augment/rules/``.

Facts, from Augment's documentation (docs.augmentcode.com/cli/rules and
/setup-augment/guidelines, read 2026-12-01; Auggie 0.36.0 installs but needs a login, so it
was not run): Auggie and the extensions share one rules system and read, in order of
precedence, a ``--rules`` file, ``CLAUDE.md``, ``AGENTS.md``, the workspace guidelines
(``.augment/guidelines.md``, formerly ``.augment-guidelines``), the workspace rules in
``.augment/rules/`` (each by its ``type``: always, manual or agent-requested) and the user
rules in ``~/.augment/rules/``, which always apply. The extensions also keep User
Guidelines in their settings (VS Code stores them in ``~/.augment/user-guidelines.md``).
Augment's Memories, written by the agent per workspace, are recorded in FACTS and not
managed yet (issue 12 §2).

Setup (docs/adr/0033): Auggie reads MCP servers from ``~/.augment/settings.json``
(augmentcode/auggie CHANGELOG 0.5.4; a record keyed by name since 0.5.5), under
``mcpServers`` with ``command``/``args``/``env`` (the key as users' generated Auggie configs
write it: ldeck/decknix, github/gh-aw#42199; the docs page was cut off before its example);
coffer's server goes there. Auggie's hooks (the same
file) were not checked to give a session-start hook's output to the model, so none is
written.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts, NativeFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_DOCS = "docs.augmentcode.com/cli/rules, /setup-augment/guidelines"
_MCP = "augmentcode/auggie CHANGELOG.md (0.5.4, 0.5.5); docs.augmentcode.com/cli/integrations"

SPEC = AgentSpec(
    name="augment",
    config=Place("~/.augment"),
    executables=("auggie",),
    installed=("~/.vscode/extensions/augment.vscode-augment-*",),
    project=Render(("{root}/AGENTS.md",)),
    global_=Render(("{config}/rules/coffer-memory.md",), note="user rules always apply"),
    setup=Wire(
        mcp=McpServer(
            "{config}/settings.json",
            "json",
            ("mcpServers",),
            note="Auggie CLI; the IDE extensions keep their servers in their own settings",
        )
    ),
    facts=AgentFacts(
        title="Augment",
        loads=(
            Load("{root}/CLAUDE.md", "project", how="Docs"),
            Load("{root}/AGENTS.md", "project", how="Docs"),
            Load("{root}/.augment/guidelines.md", "project", how="Docs"),
            Load("{root}/.augment/rules/**/*.md", "project", when="by rule type", how="Docs"),
            Load("{config}/rules/**/*.md", "global", how="Docs"),
            Load("{config}/user-guidelines.md", "global", when="VS Code extension", how="Docs"),
        ),
        native=NativeFacts(
            where=("{config}",),
            format="Augment Memories: notes the agent writes per workspace, editable in the "
            "IDE (where they are stored was not checked)",
            loaded="added to the agent's context in that workspace",
            switch="",
            on_by_default=True,
        ),
        mcp=McpFacts("{config}/settings.json", "json", ("mcpServers",), "Auggie CLI"),
        checked=(
            Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),
            Checked("0.5.5 and later (changelog)", ("Docs",), _MCP, "2026-12-01"),
        ),
        notes=("workspace rules without a type are attached manually, user rules always",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
