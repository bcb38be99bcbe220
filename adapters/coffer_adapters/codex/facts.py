"""What Codex CLI loads at session start (for `coffer explain`; docs/adr/0029).

From the capture runs of Codex CLI 0.171.0: ``$CODEX_HOME/AGENTS.override.md``,
else ``AGENTS.md``; then from the project root down to the start directory at most one file
per directory, ``AGENTS.override.md`` before ``AGENTS.md`` before the names in
``project_doc_fallback_filenames``; the project files share one ``project_doc_max_bytes``
budget (32,768 bytes), root first, cut mid-file. With ``[features] memories = true`` the
memory summary follows, cut to about 2,500 tokens in the middle.
"""

from __future__ import annotations

from coffer.adapter.facts import (
    AgentFacts,
    Cap,
    Checked,
    HookFacts,
    Load,
    McpFacts,
    NativeFacts,
    Setting,
    Walk,
)
from coffer_adapters import suite_run

_RUN = "capture runs of @openai/codex: offline requests to a local recording server"
_WALK: Walk = "root-down-to-cwd"
_CONFIG = "{config}/config.toml"
_BUDGET = Cap(
    32_768,
    "bytes",
    "total",
    keeps="root first; the file it runs out in is cut",
    limit_file=_CONFIG,
    limit_key=("project_doc_max_bytes",),
)
_SUMMARY = Cap(2_500, "tokens", keeps="head and tail, the middle cut", head=0.5, tail=0.5)

FACTS = AgentFacts(
    title="Codex",
    order="by-directory",
    loads=(
        Load("{config}/AGENTS.override.md", "global"),
        Load("{config}/AGENTS.md", "global", shadowed_by=("AGENTS.override.md",)),
        Load("{cwd}/AGENTS.override.md", "project", _WALK, (_BUDGET,)),
        Load("{cwd}/AGENTS.md", "project", _WALK, (_BUDGET,), ("AGENTS.override.md",)),
        Load(
            "{cwd}/CLAUDE.md",
            "project",
            _WALK,
            (_BUDGET,),
            ("AGENTS.override.md", "AGENTS.md"),
            if_setting=Setting(_CONFIG, ("project_doc_fallback_filenames",), "CLAUDE.md"),
        ),
        Load(
            "{config}/memories/memory_summary.md",
            "global",
            caps=(_SUMMARY,),
            if_setting=Setting(_CONFIG, ("features", "memories"), True),
        ),
    ),
    native=NativeFacts(
        where=("{config}/memories/",),
        format="Codex's own consolidated notes (MEMORY.md, memory_summary.md, rollouts)",
        loaded="memory_summary.md, cut to about 2,500 tokens, in a developer message",
        switch="[features] memories = false (or absent) in config.toml",
        on_by_default=False,
        coffer="imported into the global tier, then switched off (reversibly)",
    ),
    mcp=McpFacts(_CONFIG, "toml", ("mcp_servers",)),
    hook=HookFacts(
        "{config}/hooks.json",
        "SessionStart",
        True,
        "plain stdout becomes context; about 2,500 tokens are kept, the rest spilled to a file",
    ),
    checked=(
        Checked("0.171.0", ("Run",), _RUN, "2026-11"),
        suite_run("0.171.0"),
    ),
    notes=(
        "AGENTS.override.md hides AGENTS.md in its directory (and in CODEX_HOME)",
        "project_doc_max_bytes in config.toml replaces the 32,768-byte budget",
        "the project root is the nearest directory with .git (project_root_markers); "
        "without one only the start directory is read",
    ),
)
