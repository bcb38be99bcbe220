"""Pi: both tiers are managed blocks in the context files Pi loads.

Facts, as observed with Pi (``@mariozechner/pi-coding-agent``) 0.73.1: per directory the first
of ``AGENTS.md``, ``AGENTS.MD``, ``CLAUDE.md``, ``CLAUDE.MD`` is loaded, from the filesystem
root down to the start directory, with no git boundary, after the global one in
``~/.pi/agent`` (``PI_CODING_AGENT_DIR`` replaces it). So ``AGENTS.md`` hides ``CLAUDE.md`` in
the same directory: globally coffer renders into the file Pi already reads. No memory, MCP or
hook configuration of its own.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer_adapters import suite_run

_RUN = (
    "capture run of @mariozechner/pi-coding-agent: one offline request to a local recording server"
)
_NAMES = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")

SPEC = AgentSpec(
    name="pi",
    config=Place("~/.pi/agent", env="PI_CODING_AGENT_DIR"),
    executables=("pi",),
    project=Render(("{root}/AGENTS.md",), displaces=("CLAUDE.md",)),
    global_=Render(tuple(f"{{config}}/{n}" for n in _NAMES), create="{config}/AGENTS.md"),
    facts=AgentFacts(
        title="Pi",
        order="by-directory",  # per directory the first of AGENTS.md, …, CLAUDE.MD
        loads=(
            Load("{config}/AGENTS.md", "global"),
            Load("{config}/CLAUDE.md", "global", shadowed_by=("AGENTS.md", "AGENTS.MD")),
            Load("{cwd}/AGENTS.md", "project", "fs-root-down-to-cwd"),
            Load(
                "{cwd}/CLAUDE.md",
                "project",
                "fs-root-down-to-cwd",
                shadowed_by=("AGENTS.md", "AGENTS.MD"),
            ),
            Load("{cwd}/.pi/SYSTEM.md", "project", "cwd", when="replaces the whole system prompt"),
            Load(
                "{config}/SYSTEM.md",
                "global",
                shadowed_by=("{cwd}/.pi/SYSTEM.md",),
                when="replaces the whole system prompt",
            ),
            Load("{cwd}/.pi/APPEND_SYSTEM.md", "project", "cwd"),
            Load(
                "{config}/APPEND_SYSTEM.md", "global", shadowed_by=("{cwd}/.pi/APPEND_SYSTEM.md",)
            ),
        ),
        hook=HookFacts(
            "",
            "session_start",
            False,
            "only TypeScript extensions (~/.pi/agent/extensions/) get the event",
        ),
        checked=(
            Checked("0.73.1", ("Run", "Code", "Docs"), _RUN, "2026-11"),
            suite_run("0.73.1"),
        ),
        notes=(
            "no git boundary: an AGENTS.md in any directory above the repository loads too",
            "--no-context-files (-nc) turns context files off; Pi has no MCP by design",
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
