"""Kilo (the Kilo CLI and the Kilo Code VS Code extension): both tiers are managed blocks, in
the files an OpenCode fork reads.

Facts, as observed with Kilo CLI 7.7.7: project instructions are the first of the names
``AGENTS.md``, ``CLAUDE.md``, ``CONTEXT.md`` found from the start directory up to the
worktree, all copies of it, nearest first; ``KILO_DISABLE_PROJECT_CONFIG`` skips them. The
global file is the first existing of ``$KILO_CONFIG_DIR/AGENTS.md``,
``~/.config/kilo/AGENTS.md`` and ``~/.claude/CLAUDE.md`` (the last unless
``KILO_DISABLE_CLAUDE_CODE_PROMPT``): as for OpenCode, coffer renders into whichever Kilo
already reads, and never creates its own file over the user's ``CLAUDE.md``. No memory of its
own.

The Kilo Code VS Code extension (``kilocode.kilo-code``, 7.x, rebuilt on the CLI and GA in
April 2026) spawns the ``kilo`` binary it bundles as ``kilo serve`` with the editor's
environment (Kilo-Org/kilocode ``packages/kilo-vscode/src/services/cli-backend/
server-manager.ts``), so it reads exactly these files; it is detected by its extension
directory. The legacy 5.x extension (the Roo Code fork) read ``.kilocode/rules/``,
``~/.kilocode/rules/`` and the root ``AGENTS.md``: the shared block reaches it too.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Candidate, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run

_RUN = "capture run of @kilocode/cli: one offline request to a local recording server"
_VSCODE = "Kilo-Org/kilocode packages/kilo-vscode/src/services/cli-backend/server-manager.ts"
_NO_PROJECT = ("KILO_DISABLE_PROJECT_CONFIG",)
_CLAUDE = Candidate("~/.claude/CLAUDE.md", unless=("KILO_DISABLE_CLAUDE_CODE_PROMPT",))

SPEC = AgentSpec(
    name="kilo",
    config=Place("$XDG_CONFIG_HOME/kilo"),
    executables=("kilo",),
    installed=("~/.vscode/extensions/kilocode.kilo-code-*",),
    project=Render(
        ("{root}/AGENTS.md",),
        displaces=("CLAUDE.md", "CONTEXT.md"),
        off_env=("KILO_DISABLE_PROJECT_CONFIG",),
    ),
    global_=Render(
        ("${KILO_CONFIG_DIR}/AGENTS.md", "{config}/AGENTS.md", _CLAUDE),
        create="~/.claude/CLAUDE.md",  # its own file would hide the user's CLAUDE.md
    ),
    setup=Wire(
        mcp=McpServer(
            "{config}/kilo.json",
            "jsonc",
            ("mcp",),
            alternatives=("{config}/kilo.jsonc",),
            argv=True,
            env_key="environment",
            extra={"type": "local", "enabled": True},
        ),
        no_hook="no session-start hook: Kilo CLI runs only JS/TS plugins at session start",
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="Kilo",
        loads=(
            Load("${KILO_CONFIG_DIR}/AGENTS.md", "global", how="Code"),
            Load("{config}/AGENTS.md", "global", shadowed_by=("${KILO_CONFIG_DIR}/AGENTS.md",)),
            Load(
                "~/.claude/CLAUDE.md",
                "global",
                shadowed_by=("${KILO_CONFIG_DIR}/AGENTS.md", "{config}/AGENTS.md"),
                unless_env=("KILO_DISABLE_CLAUDE_CODE_PROMPT",),
                how="Code",
            ),
            Load("{cwd}/AGENTS.md", "project", "cwd-up-to-root", unless_env=_NO_PROJECT),
            Load(
                "{cwd}/CLAUDE.md",
                "project",
                "cwd-up-to-root",
                shadowed_by=("AGENTS.md",),
                shadow_walk="cwd-up-to-root",  # one AGENTS.md anywhere hides every CLAUDE.md
                unless_env=_NO_PROJECT,
            ),
            Load(
                "{cwd}/CONTEXT.md",
                "project",
                "cwd-up-to-root",
                shadowed_by=("AGENTS.md", "CLAUDE.md"),
                shadow_walk="cwd-up-to-root",
                unless_env=_NO_PROJECT,
            ),
            Load("~/.kilo/rules/*.md", "global"),
            Load("~/.kilocode/rules/*.md", "global", shadowed_by=("~/.kilo/rules",)),
            Load("{cwd}/.kilo/rules/*.md", "project", "cwd"),
            Load(
                "{cwd}/.kilocode/rules/*.md", "project", "cwd", shadowed_by=("{cwd}/.kilo/rules",)
            ),
        ),
        mcp=McpFacts(
            "{config}/kilo.json",
            "jsonc",
            ("mcp",),
            'type "local" or "remote"; the VS Code extension (7.x) runs the bundled CLI, so '
            "coffer's one entry reaches both",
        ),
        hook=HookFacts("", "", False, "no shell hook; JS/TS plugins in {plugin,plugins}/"),
        checked=(
            Checked("7.7.7", ("Run", "Code"), _RUN, "2026-11"),
            Checked("VS Code extension 7.x", ("Code",), _VSCODE, "2026-12-01"),
            suite_run("7.7.7"),
        ),
        notes=(
            "any project AGENTS.md hides every project CLAUDE.md",
            "project rules load only from the start directory",
            "the VS Code extension runs the bundled CLI: same files, same variables",
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
