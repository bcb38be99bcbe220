"""Warp: the project tier is the shared block in ``AGENTS.md`` (or ``WARP.md`` when the
project has one), the global tier the shared block in ``~/.agents/AGENTS.md``.

Facts, from Warp's source (warpdotdev/warp at 19548aec, 2026-08-22:
``crates/ai/src/project_context/model.rs``, ``global_rules.rs``, ``app/src/ai/mcp/mod.rs``)
and docs.warp.dev "Rules": project rules are ``WARP.md`` or ``AGENTS.md`` in the repository
root and in the current directory (others best effort while editing there); in one
directory ``WARP.md`` hides ``AGENTS.md``. The global rule file is ``~/.agents/AGENTS.md``
(warpdotdev/warp#9325, April 2026), beside the Global Rules kept in Warp Drive; precedence
is global, then project ``WARP.md``, then project ``AGENTS.md``. Warp may suggest Global
Rules from usage (they live in Warp Drive, in the cloud). MCP servers come from
``~/.warp/.mcp.json`` and the Claude, Codex and ``.agents/.mcp.json`` files.

Not wired by ``coffer setup`` (docs/adr/0033): Warp's own servers are added in its UI (Warp
Drive), and the files it reads beside them include ``~/.claude.json`` and
``~/.codex/config.toml``, where coffer's server already is once Claude Code or Codex is set
up; a second entry in ``~/.warp/.mcp.json`` would list it twice.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts, NativeFacts
from coffer.adapter.spec import AgentSpec, Place, Render

_CODE = (
    "warpdotdev/warp 19548aec crates/ai/src/project_context/{model,global_rules}.rs, "
    "app/src/ai/mcp/mod.rs"
)
_DOCS = "docs.warp.dev/agent-platform/capabilities/rules"

SPEC = AgentSpec(
    name="warp",
    config=Place("~/.warp"),
    executables=("warp-terminal", "warp"),
    installed=("$XDG_CONFIG_HOME/warp-terminal", "~/.local/share/warp-terminal"),
    project=Render(("{root}/WARP.md", "{root}/AGENTS.md"), create="{root}/AGENTS.md"),
    global_=Render(
        ("~/.agents/AGENTS.md",),
        note="read by Warp releases since April 2026 (warpdotdev/warp#9325)",
    ),
    facts=AgentFacts(
        title="Warp",
        loads=(
            Load("~/.agents/AGENTS.md", "global", how="Code"),
            Load("{root}/WARP.md", "project", how="Code"),
            Load("{root}/AGENTS.md", "project", shadowed_by=("WARP.md",), how="Code"),
            Load("{cwd}/WARP.md", "project", "cwd", how="Docs"),
            Load("{cwd}/AGENTS.md", "project", "cwd", shadowed_by=("WARP.md",), how="Docs"),
        ),
        native=NativeFacts(
            where=("{config}",),
            format="Global Rules in Warp Drive (cloud), some suggested by Warp from usage",
            loaded="retrieved when an agent judges a rule relevant",
            switch="",
            on_by_default=True,
        ),
        mcp=McpFacts(
            "{config}/.mcp.json",
            "json",
            ("mcpServers",),
            "also ~/.claude.json, ~/.codex/config.toml, ~/.agents/.mcp.json and their "
            "project counterparts, and servers added in Warp Drive (UI); coffer writes none",
        ),
        hook=HookFacts("", "", False, "no session-start hook"),
        checked=(
            Checked("source at 19548aec (2026-08-22)", ("Code",), _CODE, "2026-12-01"),
            Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),
        ),
        notes=("a WARP.md beside AGENTS.md hides it",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
