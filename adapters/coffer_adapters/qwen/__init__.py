"""Qwen Code: the project tier is the shared block in ``AGENTS.md``, the global tier a block
in ``~/.qwen/QWEN.md``.

Facts, as observed with Qwen Code 0.24.4 (a Gemini CLI fork): the default context file names
are ``QWEN.md`` and ``AGENTS.md``; both load, neither shadows the other, grouped by name, each
from every directory between the start directory and the parent of the git root, after the
global ``~/.qwen/QWEN.md`` / ``~/.qwen/AGENTS.md``. ``context.fileName`` in settings.json
replaces the list (not followed by coffer: a list without AGENTS.md stops Qwen reading the
shared block; coffer adapter list cannot see that yet). Qwen's auto-memory is on by default;
coffer imports it and switches it off, reversibly (qwen/native.py, docs/adr/0032).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Context, HookShell, NativeMemory
from coffer.adapter.facts import (
    AgentFacts,
    Cap,
    Checked,
    HookFacts,
    Load,
    McpFacts,
    NativeFacts,
)
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.wiring import McpServer, SessionHook, Wire
from coffer_adapters import suite_run
from coffer_adapters.qwen import native as qwen_native

# On Windows Qwen Code runs a hook's command through cmd.exe (%ComSpec% /d /s /c), PowerShell
# only when %ComSpec% names it, Git Bash only when Qwen itself was started from an MSYS shell
# (getShellConfiguration, packages/core/src/utils/shell-utils.ts; line 676 of
# chunks/chunk-I3K2QRZ5.js in @qwen-code/qwen-code 0.24.4), unless the hook entry says
# "shell": "powershell": then `powershell -Command <command>` (HookRunner.getShellConfigForHook,
# packages/core/src/hooks/hookRunner.ts; line 146370 of chunks/chunk-DPEB6S2R.js). It is not
# Gemini's PowerShell default. coffer asks for PowerShell, so the hook runs the same whatever
# shell the user started Qwen from.
WINDOWS_SHELL = HookShell("powershell", {"shell": "powershell"})
_RUN = "capture run of @qwen-code/qwen-code: one offline request to a local recording server"

SPEC = AgentSpec(
    name="qwen",
    config=Place("~/.qwen"),
    executables=("qwen",),
    project=Render(("{root}/AGENTS.md",)),
    global_=Render(("{config}/QWEN.md",)),
    setup=Wire(
        mcp=McpServer(
            "{config}/settings.json",
            "json",
            ("mcpServers",),
            note="restart Qwen Code (or run /mcp) to connect to coffer's MCP server",
        ),
        hook=SessionHook("{config}/settings.json", windows=WINDOWS_SHELL),
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="Qwen Code",
        loads=(
            Load("{config}/QWEN.md", "global"),
            Load("{cwd}/QWEN.md", "project", "above-root-down-to-cwd"),
            Load("{config}/AGENTS.md", "global"),
            Load("{cwd}/AGENTS.md", "project", "above-root-down-to-cwd"),
            Load("{root}/.qwen/QWEN.local.md", "project"),
            Load("{config}/rules/*.md", "global"),
            Load("{root}/.qwen/rules/*.md", "project", when="trusted folders only"),
            Load(
                "{config}/projects/<slug>/memory/MEMORY.md",
                "global",
                caps=(Cap(200, "lines"), Cap(25_000, "chars")),
                how="Run",
            ),
            Load(
                "{config}/memories/MEMORY.md",
                "global",
                caps=(Cap(200, "lines"), Cap(25_000, "chars")),
                how="Run",
            ),
        ),
        native=NativeFacts(
            where=("{config}/projects/<slug>/memory/", "{config}/memories/"),
            format="one Markdown file per memory (frontmatter name, description, type) and a "
            "MEMORY.md index, the scheme of Claude Code; <slug> is the git root's absolute path "
            "with every character outside A-Z a-z 0-9 replaced by '-'",
            loaded="both MEMORY.md indexes, after the instructions",
            switch='{"memory": {"enableManagedAutoMemory": false}} in ~/.qwen/settings.json',
            on_by_default=True,
            coffer="imported into the global tier (the user-level topic files and every "
            "project's, with provenance), then switched off in ~/.qwen/settings.json; "
            "`coffer unproject --agent qwen` turns it back on. Not linked like Claude's: Qwen "
            "reads only a top-level type: and rebuilds MEMORY.md on every write (ADR 0032)",
        ),
        mcp=McpFacts(
            "{config}/settings.json",
            "json",
            ("mcpServers",),
            "also .qwen/settings.json and a project .mcp.json",
        ),
        hook=HookFacts(
            "{config}/settings.json",
            "SessionStart",
            True,
            "Claude-style hooks.SessionStart; plain stdout becomes context",
        ),
        checked=(
            Checked("0.24.4", ("Run", "Code"), _RUN, "2026-11"),
            suite_run("0.24.4"),
        ),
        notes=(
            "walks one directory above the git root: a QWEN.md or AGENTS.md beside the "
            "repository is loaded too",
            "context.fileName in settings.json replaces the default names",
        ),
    ),
)
NAME, detect, targets, _spec_inputs, _ = SPEC.members()
FACTS = SPEC.facts


def native_memory(ctx: Context) -> NativeMemory:
    """Qwen's auto-memory, imported and then switched off (qwen/native.py)."""
    return qwen_native.native_memory(ctx, SPEC.config_dir(ctx))


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    env, files = _spec_inputs(ctx)
    files = [*files, SPEC.config_dir(ctx) / "settings.json"]
    workspace = qwen_native.workspace_settings(ctx)
    return (*env, "QWEN_CODE_MEMORY_BASE_DIR"), [*files, *([workspace] if workspace else [])]


wiring = SPEC.wiring
