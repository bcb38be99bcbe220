"""What Gemini CLI loads at session start (for `coffer explain`; docs/adr/0029).

From the capture runs of Gemini CLI 0.61.0: the global
``~/.gemini/GEMINI.md`` in the system instruction; then every ``GEMINI.md`` from the git root
down to the start directory (sorted by path) in the first user message, in trusted folders
only. ``context.fileName`` adds names (``AGENTS.md``), globally and per project; it never
removes ``GEMINI.md``. No size cap was found.
"""

from __future__ import annotations

from coffer.adapter.facts import (
    AgentFacts,
    Checked,
    HookFacts,
    Load,
    McpFacts,
    NativeFacts,
    Setting,
    Walk,
)
from coffer_adapters import suite_run

_RUN = "capture runs of @google/gemini-cli: offline requests to a local recording server"
_WALK: Walk = "root-down-to-cwd"
_TRUST = "trusted folders only (GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust headless)"
_NAMED = Setting("{config}/settings.json", ("context", "fileName"), "AGENTS.md")

FACTS = AgentFacts(
    title="Gemini CLI",
    order="by-directory",
    loads=(
        Load("{config}/GEMINI.md", "global"),
        Load("{config}/AGENTS.md", "global", if_setting=_NAMED),
        Load("{cwd}/AGENTS.md", "project", _WALK, when=_TRUST, if_setting=_NAMED),
        Load("{cwd}/GEMINI.md", "project", _WALK, when=_TRUST),
        Load("{memory}/MEMORY.md", "project", how="Run"),
    ),
    native=NativeFacts(
        where=("{config}/tmp/<slug>/memory/",),
        format="a private MEMORY.md index and topic files; <slug> from ~/.gemini/projects.json",
        loaded="MEMORY.md, in the system instruction",
        switch="",
        on_by_default=True,
        coffer="linked: the directory becomes a link to the project tier, beside the "
        "GEMINI.md block, once Gemini has registered the root in projects.json (the slug is "
        "read there, never computed); nothing to switch off (ADR 0032)",
    ),
    mcp=McpFacts("{config}/settings.json", "json", ("mcpServers",)),
    hook=HookFacts(
        "{config}/settings.json",
        "SessionStart",
        True,
        "hookSpecificOutput.additionalContext of JSON stdout reaches the model",
    ),
    checked=(
        Checked("0.61.0", ("Run", "Code"), _RUN, "2026-11"),
        suite_run("0.61.0"),
    ),
    notes=(
        "project context is ignored in untrusted folders",
        "context.memoryBoundaryMarkers (default .git) decides where the walk stops",
    ),
)
