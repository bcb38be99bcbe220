"""What Claude Code loads at session start (for `coffer explain`; docs/adr/0029).

From the capture runs of Claude Code 2.1.197 and 2.1.332 (offline requests to a recorder):
the user's ``CLAUDE.md`` and rules, then for every directory from ``/`` down to the start
directory ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/*.md`` and ``CLAUDE.local.md``;
``AGENTS.md`` (2.1.332, the built-in agents-md plugin) only while no project ``CLAUDE.md``,
``.claude/CLAUDE.md`` or ``CLAUDE.local.md`` exists there or above; last the auto-memory
index ``MEMORY.md``, cut at 200 lines and 25,000 characters. The managed policy file
(``/etc/claude-code/CLAUDE.md``) loads first; it is outside every template and not listed.
"""

from __future__ import annotations

from coffer.adapter.facts import (
    AgentFacts,
    Cap,
    Checked,
    HookFacts,
    Imports,
    Load,
    McpFacts,
    NativeFacts,
    Setting,
    Walk,
)
from coffer_adapters import suite_run

_RUN = "capture runs of @anthropic-ai/claude-code: offline requests to a local recording server"
_WALK: Walk = "fs-root-down-to-cwd"
_CLAUDE_MD = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
# the setting that makes Claude read AGENTS.md beside CLAUDE.md (2.1.332, run)
_BOTH = Setting(
    "{config}/settings.json",
    ("pluginConfigs", "agents-md@builtin", "options", "instructionFiles"),
    "claude-md-and-agents-md",
)
_INDEX = (
    Cap(200, "lines", keeps="the first 200 lines, and a warning"),
    # UTF-16 code units in Claude; explain counts code points (the same for BMP text)
    Cap(25_000, "chars", keeps="the text up to the last line break before 25,000, and a warning"),
)


# `@path` imports (2.1.332, code: the CLAUDE.md loader stops at depth 5, skips code and HTML
# comments, and reads a project file's import outside the start directory only once the user
# approved external imports for the project, recorded in .claude.json)
_APPROVED = tuple(
    Setting(file, ("projects", place, "hasClaudeMdExternalIncludesApproved"), True)
    for file in ("{config}/.claude.json", "~/.claude.json")
    for place in ("{root}", "{cwd}")
)
_IMPORTS = Imports(
    5,
    _APPROVED,
    "it is outside the start directory: Claude reads such an import only once you approve "
    "external imports for this project (it asks in an interactive session)",
)


def _agents_md(path: str) -> Load:
    return Load(
        path,
        "project",
        _WALK,
        shadowed_by=_CLAUDE_MD,
        shadow_walk=_WALK,
        unshadowed_if=_BOTH,
        when="2.1.332+: only while no project CLAUDE.md exists here or above",
    )


FACTS = AgentFacts(
    title="Claude Code",
    order="by-directory",
    imports=_IMPORTS,
    # the loader drops block-level HTML comments from every file before the model reads it
    # (2.1.332, code: `OHe`), coffer's markers and digest line included
    strips_comments=True,
    loads=(
        Load("{config}/CLAUDE.md", "global"),
        Load("{config}/rules/*.md", "global"),
        Load("{cwd}/CLAUDE.md", "project", _WALK),
        Load("{cwd}/.claude/CLAUDE.md", "project", _WALK),
        Load("{cwd}/.claude/rules/*.md", "project", _WALK),
        Load("{cwd}/CLAUDE.local.md", "project", _WALK),
        _agents_md("{cwd}/AGENTS.md"),
        _agents_md("{cwd}/.claude/AGENTS.md"),
        Load("{memory}/MEMORY.md", "project", caps=_INDEX),
    ),
    native=NativeFacts(
        where=("{config}/projects/<slug>/memory/",),
        format="one Markdown file per memory (frontmatter name, description, metadata.type) "
        "and a MEMORY.md index; <slug> is the canonical git root, sanitised",
        loaded="MEMORY.md only, after every CLAUDE.md",
        switch="autoMemoryEnabled: false in settings.json, or CLAUDE_CODE_DISABLE_AUTO_MEMORY=1",
        on_by_default=True,
        coffer="the project tier is this directory: coffer links it to the store",
    ),
    mcp=McpFacts("~/.claude.json", "json", ("mcpServers",), "user scope; also a project .mcp.json"),
    hook=HookFacts(
        "{config}/settings.json",
        "SessionStart",
        True,
        "plain stdout becomes context; over 10,000 characters only a preview is kept",
    ),
    checked=(
        Checked("2.1.332", ("Run", "Code"), _RUN, "2026-11"),
        Checked("2.1.197", ("Run",), _RUN + " (no AGENTS.md support)", "2026-11"),
        suite_run("2.1.332"),
    ),
    notes=(
        "any project CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md here or above hides "
        "AGENTS.md; pluginConfigs.agents-md@builtin.options.instructionFiles = "
        '"claude-md-and-agents-md" in settings.json reads both, or add a line @AGENTS.md',
        "claudeMdExcludes can exclude any of these files (not followed by explain)",
        "an @import of a file outside the start directory needs approval",
    ),
)
