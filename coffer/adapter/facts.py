"""What an agent loads at session start, as data: the facts an adapter records beside its
targets, for `coffer explain` (issue 12 §5, coffer/projection/explain/) and for the reader
of the adapter.

An adapter's optional ``FACTS`` member is one :class:`AgentFacts`. Nothing here acts: the
targets say what coffer writes; these say what the agent reads, in which order, what caps
cut and what hides what, and against which version of the agent each fact was checked.
Paths are templates (see :data:`TEMPLATE_ROOTS`), so the facts stay the same on every
machine and `explain` resolves them for the directory it is asked about.

Names no agent; stdlib only (docs/adr/0027).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

# How a fact was established, the status values of the reference runs:
# Run = seen in a captured request or in files the agent wrote; Code = read in the shipped
# package; Docs = the agent's own documentation; Inferred = reasoned from the others.
How = Literal["Run", "Code", "Docs", "Inferred"]

# Where a project file is looked for, relative to the session's start directory <cwd> and
# the git root <root>:
# - "root": only <root>;  "cwd": only <cwd> (a session in a subdirectory misses <root>'s);
# - "cwd-up-to-root": every directory from <cwd> up to <root>;
# - "cwd-up-past-root": the same, and the directory holding <root>;
# - "root-down-to-cwd": every directory from <root> down to <cwd>;
# - "fs-root-down-to-cwd": every directory from / down to <cwd>, no git boundary;
# - "above-root-down-to-cwd": from the directory holding <root> down to <cwd>;
# - "cwd-up-to-trusted": from <cwd> up to the closest trusted ancestor;
# - "trusted-down-to-cwd": the same directories, outermost first.
# The name says the order too: "cwd-up" nearest first, "down-to-cwd" outermost first. Where
# trust is not known, explain takes <root> for the trusted ancestor.
Walk = Literal[
    "root",
    "cwd",
    "cwd-up-to-root",
    "cwd-up-past-root",
    "root-down-to-cwd",
    "fs-root-down-to-cwd",
    "above-root-down-to-cwd",
    "cwd-up-to-trusted",
    "trusted-down-to-cwd",
]

# In which order the files of consecutive walked Loads reach the context: "by-file" — every
# file of one Load before the next Load's (Qwen groups by name); "by-directory" — for each
# directory of the walk, the Loads in turn (Claude: CLAUDE.md, .claude/CLAUDE.md, … of `/`,
# then of the next directory down).
Order = Literal["by-file", "by-directory"]


# The placeholders a path template may start with: the home directory, the agent's config
# directory (its spec's Place), $XDG_CONFIG_HOME (else ~/.config), the git root, the start
# directory, or an environment variable (``${NAME}``; the path does not apply when unset).
# In a Load only, ``{memory}`` is the agent's memory directory as the adapter's link target
# of the Load's scope names it (Claude's, wherever its settings put it). In a walked Load,
# ``{cwd}`` or ``{root}`` stands for each directory of the walk.
TEMPLATE_ROOTS = (
    "~",
    "{config}",
    "$XDG_CONFIG_HOME",
    "$APPDATA",
    "$LOCALAPPDATA",
    "{root}",
    "{cwd}",
    "${NAME}",
    "{memory}",
)


class Checked(NamedTuple):
    """One check of an agent's facts: which version, how, where."""

    version: str  # the agent's version, e.g. "0.24.4"; a date for hosted agents
    how: tuple[How, ...]
    source: str  # the capture, package path, documentation page or issue thread
    date: str = ""  # when it was checked (YYYY-MM-DD)


class Cap(NamedTuple):
    """A size limit the agent applies to what it loads."""

    limit: int
    unit: Literal["bytes", "chars", "lines", "tokens"]
    per: Literal["file", "total"] = "file"
    # what the agent keeps when the cap cuts ("head", "head 70% + tail 20%", "leaf files
    # first: the root file is cut first"), in words; the fields below say it as numbers
    keeps: str = "head"
    head: float = 1.0  # the share of ``limit`` kept from the start of a file that is cut
    tail: float = 0.0  # the share kept from its end (Hermes: 0.7 and 0.2)
    # a "total" budget goes to the files in load order, or to the last loaded first (Kimi)
    fills: Literal["in-order", "last-first"] = "in-order"
    # the setting that replaces ``limit`` when the user sets it: a JSON or TOML file (a
    # template) and the key in it (Codex's project_doc_max_bytes)
    limit_file: str = ""
    limit_key: tuple[str, ...] = ()


class Setting(NamedTuple):
    """A condition on the user's settings: the JSON or TOML file ``file`` (a template) has,
    at ``key``, the value ``has`` or a list holding it."""

    file: str
    key: tuple[str, ...]
    has: str | bool


class Load(NamedTuple):
    """One file, or glob of files, an agent loads at session start. An AgentFacts lists
    them in the order they reach the model's context."""

    path: str  # a template: "{root}/AGENTS.md", "~/.qwen/rules/*.md", "{config}/AGENTS.md"
    scope: Literal["project", "global"]
    walk: Walk = "root"  # where project files are looked for (global files: their path)
    caps: tuple[Cap, ...] = ()
    # templates of files whose presence stops the agent reading this one (same directory
    # unless the template says otherwise), e.g. AGENTS.override.md hides AGENTS.md
    shadowed_by: tuple[str, ...] = ()
    # where a bare name in ``shadowed_by`` is looked for: None, this file's own directory;
    # a walk, every directory of it (one AGENTS.md anywhere up to the root hides every
    # CLAUDE.md from OpenCode)
    shadow_walk: Walk | None = None
    when: str = ""  # a caveat: "trusted folders only", "replaces the whole system prompt"
    how: How = "Run"
    unless_env: tuple[str, ...] = ()  # variables that, set non-empty, stop this load
    if_setting: Setting | None = None  # loaded only when the user's settings say so
    # a setting under which ``shadowed_by`` does not apply (Claude's instructionFiles =
    # "claude-md-and-agents-md" reads AGENTS.md beside CLAUDE.md)
    unshadowed_if: Setting | None = None


class NativeFacts(NamedTuple):
    """The agent's own, agent-written memory: where it is, how it is stored and loaded,
    how to switch it off, and what coffer does about it today."""

    where: tuple[str, ...]  # templates
    format: str
    loaded: str  # what of it reaches the model at session start
    switch: str  # the setting that turns it off ("" when none is known)
    on_by_default: bool
    coffer: str = "not managed yet: coffer neither imports it nor switches it off"


class McpFacts(NamedTuple):
    """Where the agent's MCP servers are configured."""

    path: str  # a template
    format: Literal["json", "jsonc", "json5", "toml", "yaml", "ui"]
    keys: tuple[str, ...]  # the container of servers, e.g. ("mcpServers",)
    note: str = ""


class HookFacts(NamedTuple):
    """The agent's session-start hook, if any: where it is configured and whether its
    output reaches the model."""

    config: str  # a template, or "" when the agent has none
    event: str  # "SessionStart", "TaskStart", … ("" when none)
    output_to_model: bool
    note: str = ""


class Imports(NamedTuple):
    """How the agent follows ``@path`` imports in the instruction files it loads (Claude's
    ``@AGENTS.md``): a token ``@path`` after the start of a line or whitespace, outside code
    spans, code blocks and HTML comments; ``./x``, ``~/x``, ``/abs`` or a bare name starting
    with ``[A-Za-z0-9._-]``; a ``#fragment`` dropped, ``\\ `` an escaped space; the path
    relative to the importing file. The imported file reaches the context right after the
    file importing it, and a file already loaded is not loaded again."""

    # how deep imports nest: the file the agent found is depth 0, and a file at ``depth`` or
    # deeper is not read (Claude 2.1.332: 5, so four hops)
    depth: int
    # an import of a project file that resolves outside the start directory is read only
    # when one of these settings holds (Claude asks once and records the approval); a
    # ``{root}`` or ``{cwd}`` in a key stands for that directory
    outside_cwd_unless: tuple[Setting, ...] = ()
    outside_cwd_note: str = ""  # why such an import is not read, in the agent's words


class AgentFacts(NamedTuple):
    """Everything known about what one agent reads, with the versions it was checked on."""

    title: str  # the agent's own name: "Qwen Code"
    loads: tuple[Load, ...] = ()
    native: NativeFacts | None = None
    mcp: McpFacts | None = None
    hook: HookFacts | None = None
    checked: tuple[Checked, ...] = ()
    notes: tuple[str, ...] = ()  # hazards worth telling a user (shadowing, trust, …)
    order: Order = "by-file"
    imports: Imports | None = None  # None: the agent does not follow ``@`` imports
    # the agent drops HTML comments from the files it loads before the model reads them
    # (Claude Code 2.1.332): coffer's marker lines reach the model only where this is False
    strips_comments: bool = False
