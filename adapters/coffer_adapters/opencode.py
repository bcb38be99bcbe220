"""OpenCode: both tiers are managed blocks in the instruction files OpenCode loads.

Facts, as observed with OpenCode 1.18.33: project instructions come from
``AGENTS.md`` (then ``CLAUDE.md``, ``CONTEXT.md``) walking up to the worktree root; global
instructions from the *first existing* of ``~/.config/opencode/AGENTS.md`` and
``~/.claude/CLAUDE.md``. Creating the former would silently hide the latter, so coffer renders
into whichever OpenCode already reads, sharing the block with the Claude Code adapter when
that is ``~/.claude/CLAUDE.md``. OpenCode has no memory of its own to switch off.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Candidate, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run

_NO_CLAUDE = ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")
_RUN = "capture runs of opencode-ai: offline requests to a local recording server"

SPEC = AgentSpec(
    name="opencode",
    config=Place("$XDG_CONFIG_HOME/opencode"),
    executables=("opencode",),
    project=Render(("{root}/AGENTS.md",), displaces=("CLAUDE.md", "CONTEXT.md")),
    global_=Render(
        ("{config}/AGENTS.md", Candidate("~/.claude/CLAUDE.md", unless=_NO_CLAUDE)),
        create="~/.claude/CLAUDE.md",  # creating its own file would hide the user's CLAUDE.md
    ),
    setup=Wire(
        mcp=McpServer(
            "{config}/opencode.json",
            "jsonc",
            ("mcp",),
            alternatives=("{config}/opencode.jsonc",),
            argv=True,
            env_key="environment",
            extra={"type": "local", "enabled": True},
        ),
        no_hook="no session-start hook: OpenCode runs only JS/TS plugins at session start",
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="OpenCode",
        loads=(
            Load("{config}/AGENTS.md", "global"),
            Load(
                "~/.claude/CLAUDE.md",
                "global",
                shadowed_by=("{config}/AGENTS.md",),
                unless_env=_NO_CLAUDE,
            ),
            Load(
                "{cwd}/AGENTS.md",
                "project",
                "cwd-up-to-root",
                unless_env=("OPENCODE_DISABLE_PROJECT_CONFIG",),
                how="Run",
            ),
            Load(
                "{cwd}/CLAUDE.md",
                "project",
                "cwd-up-to-root",
                shadowed_by=("AGENTS.md",),
                shadow_walk="cwd-up-to-root",  # one AGENTS.md anywhere hides every CLAUDE.md
                unless_env=("OPENCODE_DISABLE_PROJECT_CONFIG",),
            ),
            Load(
                "{cwd}/CONTEXT.md",
                "project",
                "cwd-up-to-root",
                shadowed_by=("AGENTS.md", "CLAUDE.md"),
                shadow_walk="cwd-up-to-root",
                unless_env=("OPENCODE_DISABLE_PROJECT_CONFIG",),
            ),
        ),
        mcp=McpFacts("{config}/opencode.json", "jsonc", ("mcp",), 'type "local" with command'),
        hook=HookFacts("", "", False, "no shell hook; JS/TS plugins get session.created"),
        checked=(
            Checked("1.18.33", ("Run", "Code"), _RUN, "2026-11"),
            suite_run("1.18.33"),
        ),
        notes=("any project AGENTS.md hides every project CLAUDE.md",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
