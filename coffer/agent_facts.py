"""What an agent loads at session start, as data: the facts an adapter records beside its
targets, for the planned explain command (issue 12 §5) and for the reader of the adapter.

An adapter's optional ``FACTS`` member is one :class:`AgentFacts`. Nothing here acts: the
targets say what coffer writes; these say what the agent reads, in which order, what caps
cut and what hides what, and against which version of the agent each fact was checked.
Paths are templates (see :data:`TEMPLATE_ROOTS`), so the facts stay the same on every
machine and `explain` resolves them for the directory it is asked about.

Names no agent; stdlib only (docs/adr/0027).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
# - "cwd-up-to-trusted": from <cwd> up to the closest trusted ancestor.
Walk = Literal[
    "root",
    "cwd",
    "cwd-up-to-root",
    "cwd-up-past-root",
    "root-down-to-cwd",
    "fs-root-down-to-cwd",
    "cwd-up-to-trusted",
]

# The placeholders a path template may start with: the home directory, the agent's config
# directory (its spec's Place), $XDG_CONFIG_HOME (else ~/.config), the git root, the start
# directory, or an environment variable (``${NAME}``; the path does not apply when unset).
TEMPLATE_ROOTS = ("~", "{config}", "$XDG_CONFIG_HOME", "{root}", "{cwd}", "${NAME}")


@dataclass(frozen=True)
class Checked:
    """One check of an agent's facts: which version, how, where."""

    version: str  # the agent's version, e.g. "0.24.4"; a date for hosted agents
    how: tuple[How, ...]
    source: str  # the capture, package path, documentation page or issue thread
    date: str = ""  # when it was checked (YYYY-MM-DD)


@dataclass(frozen=True)
class Cap:
    """A size limit the agent applies to what it loads."""

    limit: int
    unit: Literal["bytes", "chars", "lines", "tokens"]
    per: Literal["file", "total"] = "file"
    # what the agent keeps when the cap cuts ("head", "head 70% + tail 20%", "leaf files
    # first: the root file is cut first")
    keeps: str = "head"


@dataclass(frozen=True)
class Load:
    """One file, or glob of files, an agent loads at session start. An AgentFacts lists
    them in the order they reach the model's context."""

    path: str  # a template: "{root}/AGENTS.md", "~/.qwen/rules/*.md", "{config}/AGENTS.md"
    scope: Literal["project", "global"]
    walk: Walk = "root"  # where project files are looked for (global files: their path)
    caps: tuple[Cap, ...] = ()
    # templates of files whose presence stops the agent reading this one (same directory
    # unless the template says otherwise), e.g. AGENTS.override.md hides AGENTS.md
    shadowed_by: tuple[str, ...] = ()
    when: str = ""  # a condition: "trusted folders only", "once per session on demand"
    how: How = "Run"


@dataclass(frozen=True)
class NativeFacts:
    """The agent's own, agent-written memory: where it is, how it is stored and loaded,
    how to switch it off, and what coffer does about it today."""

    where: tuple[str, ...]  # templates
    format: str
    loaded: str  # what of it reaches the model at session start
    switch: str  # the setting that turns it off ("" when none is known)
    on_by_default: bool
    coffer: str = "not managed yet: coffer neither imports it nor switches it off"


@dataclass(frozen=True)
class McpFacts:
    """Where the agent's MCP servers are configured."""

    path: str  # a template
    format: Literal["json", "jsonc", "json5", "toml", "yaml", "ui"]
    keys: tuple[str, ...]  # the container of servers, e.g. ("mcpServers",)
    note: str = ""


@dataclass(frozen=True)
class HookFacts:
    """The agent's session-start hook, if any: where it is configured and whether its
    output reaches the model."""

    config: str  # a template, or "" when the agent has none
    event: str  # "SessionStart", "TaskStart", … ("" when none)
    output_to_model: bool
    note: str = ""


@dataclass(frozen=True)
class AgentFacts:
    """Everything known about what one agent reads, with the versions it was checked on."""

    title: str  # the agent's own name: "Qwen Code"
    loads: tuple[Load, ...] = ()
    native: NativeFacts | None = None
    mcp: McpFacts | None = None
    hook: HookFacts | None = None
    checked: tuple[Checked, ...] = ()
    notes: tuple[str, ...] = ()  # hazards worth telling a user (shadowing, trust, …)
