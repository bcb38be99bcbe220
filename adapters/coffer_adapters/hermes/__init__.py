"""Hermes Agent: the project tier is a block in the one project file Hermes reads; the global
tier is not projected (NONE).

Facts, as observed with Hermes Agent 0.19.0: exactly one project source loads, first match
wins: ``.hermes.md`` or ``HERMES.md`` (nearest, up to the git root), else ``AGENTS.md`` in
the start directory, else ``CLAUDE.md`` there, else ``.cursorrules`` and
``.cursor/rules/*.mdc``. So coffer renders into ``.hermes.md`` / ``HERMES.md`` when the root
has one, else the shared ``AGENTS.md``. Each source is cut at 20,000 characters by default.
Hermes' only global file is ``~/.hermes/SOUL.md``, the agent's identity (its docs keep project
facts out of it), so the global tier is NONE. Hermes' own memories
(``~/.hermes/memories/MEMORY.md`` and ``USER.md``, on by default) are imported into the
global tier at every run and left on (hermes/native.py, docs/adr/0032).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import Context, NativeMemory
from coffer.adapter.facts import (
    AgentFacts,
    Cap,
    Checked,
    HookFacts,
    Load,
    McpFacts,
    NativeFacts,
)
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.wiring import McpServer, Wire
from coffer_adapters import suite_run
from coffer_adapters.hermes import native as hermes_native

_RUN = "capture run of hermes-agent (PyPI): one offline request to a local recording server"
_DOCS = "hermes-agent.nousresearch.com/docs/user-guide/features/context-files, personality"
_CAP = Cap(20_000, "chars", keeps="head 70% + tail 20%", head=0.7, tail=0.2)
_NEAREST = (".hermes.md", "HERMES.md")  # found anywhere from <cwd> up to the git root
_OWN = ("{root}/.hermes.md", "{root}/HERMES.md")

SPEC = AgentSpec(
    name="hermes",
    config=Place("~/.hermes", env="HERMES_HOME"),
    executables=("hermes",),
    project=Render(
        (*_OWN, "{root}/AGENTS.md"),
        create="{root}/AGENTS.md",
        max_bytes=20_000,
        displaces=("CLAUDE.md", ".cursorrules"),
        note="Hermes reads AGENTS.md only in the directory a session starts in",
    ),
    global_=Nothing(
        "Hermes' only global file is SOUL.md, its identity; global facts belong in its "
        "memories, which coffer imports and leaves on",
        path="{config}/SOUL.md",
    ),
    setup=Wire(
        mcp=McpServer(
            "{config}/config.yaml",
            "yaml",
            ("mcp_servers",),
            note="Hermes connects to MCP servers only with its mcp extra installed (the "
            "standard install has it); restart Hermes to connect",
        ),
        no_hook="no session-start hook: Hermes does not give on_session_start output to the model",
        # every skill lives in $HERMES_HOME/skills/, scanned recursively (Hermes' "Skills
        # System" documentation, read 2026-12-03)
        skills="{config}/skills",
    ),
    facts=AgentFacts(
        title="Hermes Agent",
        loads=(
            Load("{config}/SOUL.md", "global", caps=(_CAP,), when="identity, slot 1"),
            Load("{config}/memories/MEMORY.md", "global", caps=(Cap(2_200, "chars"),)),
            Load("{config}/memories/USER.md", "global", caps=(Cap(1_375, "chars"),)),
            Load("{cwd}/.hermes.md", "project", "cwd-up-to-root", (_CAP,)),
            Load("{cwd}/HERMES.md", "project", "cwd-up-to-root", (_CAP,)),
            Load(
                "{cwd}/AGENTS.md",
                "project",
                "cwd",
                (_CAP,),
                shadowed_by=_NEAREST,
                shadow_walk="cwd-up-to-root",
            ),
            Load(
                "{cwd}/CLAUDE.md",
                "project",
                "cwd",
                (_CAP,),
                shadowed_by=(*_NEAREST, "{cwd}/AGENTS.md"),
                shadow_walk="cwd-up-to-root",
                how="Code",
            ),
            Load(
                "{cwd}/.cursorrules",
                "project",
                "cwd",
                (_CAP,),
                shadowed_by=(*_NEAREST, "{cwd}/AGENTS.md", "{cwd}/CLAUDE.md"),
                shadow_walk="cwd-up-to-root",
                how="Code",
            ),
        ),
        native=NativeFacts(
            where=("{config}/memories/MEMORY.md", "{config}/memories/USER.md"),
            format="two Markdown files of entries written by the memory tool "
            "(agent notes, cap 2,200 chars; user profile, cap 1,375 chars)",
            loaded="both, as a frozen snapshot in the system prompt",
            switch="memory.memory_enabled / memory.user_profile_enabled in config.yaml",
            on_by_default=True,
            coffer="imported into the global tier at every coffer project (one entry per "
            "file, replaced when it changes) and left on: switching it off would leave Hermes "
            "no global memory, as coffer's global tier has no file Hermes reads (ADR 0032)",
        ),
        mcp=McpFacts("{config}/config.yaml", "yaml", ("mcp_servers",)),
        hook=HookFacts(
            "{config}/config.yaml",
            "on_session_start",
            False,
            'hooks: needs consent; pre_llm_call stdout {"context": …} reaches '
            "the user message, on_session_start output does not",
        ),
        checked=(
            Checked("0.19.0", ("Run", "Code"), _RUN, "2026-11"),
            Checked("docs, newer than 0.19.0", ("Docs",), _DOCS, "2026-12-01"),
            suite_run("0.19.0"),
        ),
        notes=(
            "one project source only: .hermes.md hides AGENTS.md, which hides CLAUDE.md",
            "newer releases also read AGENTS.override.md before AGENTS.md (docs)",
        ),
    ),
)
NAME, detect, targets, _spec_inputs, _ = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring


def native_memory(ctx: Context) -> NativeMemory:
    """Hermes' memories, imported and left on (hermes/native.py)."""
    return hermes_native.native_memory(SPEC.config_dir(ctx))


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    env, files = _spec_inputs(ctx)
    return env, [*files, *hermes_native.files(SPEC.config_dir(ctx))]
