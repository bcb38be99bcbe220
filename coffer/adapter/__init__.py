"""The adapter contract: what one agent's module tells coffer's projection engine.

An adapter *describes*; the engine *acts*. Adapters say which paths the agent reads, in
which mode, and how to flip the agent's own memory switch inside a config file's bytes; the
engine does every write (atomic, journaled, reversible), so no adapter can skip the safety
rules. Built-in adapters are modules in ``coffer_adapters`` registered through the
``coffer.adapters`` entry-point group, exactly like third-party ones (docs/adr/0003).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from coffer.adapter.facts import AgentFacts
from coffer.adapter.protocols import Adapter, ConfigDir, SessionFramer, Wiring

# What an adapter module may import from here: the contract's types and its helpers. The
# loading (registry, plugins, deferred) and the shared pieces adapters build on (spec,
# templates, native, facts, …) are modules of this package.
__all__ = [
    "SESSION_START_MARKER",
    "TIERS",
    "Adapter",
    "ConfigDir",
    "ConfigEdit",
    "Context",
    "Features",
    "HookShell",
    "HookTrust",
    "Imported",
    "Launch",
    "LinkCheck",
    "Mode",
    "NativeMemory",
    "SessionFramer",
    "Target",
    "TierName",
    "Wiring",
    "modes",
    "never_detected",
    "no_inputs",
    "no_native_memory",
    "no_targets",
    "session_start_hook",
]

TierName = Literal["project", "global"]


class Mode(enum.Enum):
    """How a tier reaches an agent."""

    SYMLINK = "symlink"  # the agent's memory directory becomes a link to the tier directory
    RENDER = "render"  # a managed block inside an instruction file the agent loads
    NONE = "none"  # nothing is written for this tier


class Context(NamedTuple):
    """Everything an adapter may look at. Adapters never read os.environ or Path.home()."""

    home: Path
    environ: Mapping[str, str]
    store: Path
    project: Path | None = None  # the canonical project root; None for global-only work
    # whose conventions the agents' paths follow (a sys.platform value); "" for the running
    # system's (platform.SYSTEM): WSL asks about a Windows user's agents with "win32"
    system: str = ""


class Target(NamedTuple):
    """One path an adapter wants coffer to manage for one tier."""

    tier: TierName
    mode: Mode
    path: Path
    # RENDER: the most bytes the whole file may hold for the agent to read all of it.
    max_bytes: int | None = None
    # Another file that stops the agent from reading this one (shadowing), if any.
    shadowed_by: Path | None = None
    # What the user should know about this target (e.g. a moved memory directory).
    note: str = ""
    # Whether the agent will read this target at all (e.g. Claude auto-memory turned off).
    active: bool = True


class Imported(NamedTuple):
    """A native memory to copy into the global tier before the native store is switched off."""

    name: str
    description: str
    body: str
    source: str  # the file it came from, recorded as provenance
    # why it cannot be imported (a symlink out of the agent's memory folder, say): reported,
    # and the native memory then stays on, since switching it off would hide this item
    refused: str = ""
    # the entry's type when the agent's memory says one (user, feedback, project, reference)
    type: str = "reference"


def _no_imports() -> Sequence[Imported]:
    return ()


class NativeMemory(NamedTuple):
    """An agent's own memory store and the config switch that turns it off.

    ``disable`` and ``restore`` transform the config file's bytes (None: file absent) and
    must change nothing but the switch; ``disable`` also returns the exact previous values
    (``{"key": None}`` means the key was absent) for ``restore`` to put back.
    """

    config: Path
    enabled: Callable[[bytes | None], bool]
    disable: Callable[[bytes | None], tuple[bytes, dict[str, Any]]]
    restore: Callable[[bytes | None, Mapping[str, Any]], bytes]
    imports: Callable[[], Sequence[Imported]] = _no_imports
    describe: str = ""
    # Non-empty: why the memory stays on (no switch coffer may turn without losing what the
    # agent reads). Its items are then imported at every `coffer project`, each under a name
    # of its own so a changed file replaces its copy, and ``config`` (the memory file) is
    # never written (coffer.adapter.native.import_only).
    keeps_on: str = ""


# The contract's Protocol classes (Adapter, Wiring, ConfigDir, SessionFramer) are in
# coffer/adapter/protocols.py and exported from here.


# ---- optional members ------------------------------------------------------------------
# An adapter may also define any of these. coffer.adapter.registry checks each one's type when it
# loads the adapter (a wrong type: the adapter is reported and skipped, like any broken
# plugin) and the core reads them only through ``registry.Loaded.features(name)``.
#
# - HARNESSES: tuple[str, ...], the ecc.memory.v1 harness slugs whose vault handoffs are
#   for this agent (default: the adapter's NAME);
# - wiring(ctx, launch) -> Sequence[ConfigEdit]: what `coffer setup` adds to the agent's
#   config (see ConfigEdit below; without it `coffer setup` skips the agent);
# - SESSION_CONTEXT_LIMIT: int > 0, the most bytes of session-start hook output the agent
#   adds to the model's context whole (default coffer.projection.session_context.DEFAULT_LIMIT);
# - session_context(text) -> str: what the hook must print for the agent to add ``text``
#   to the model's context (default: ``text`` itself, as plain stdout);
# - FACTS: coffer.adapter.facts.AgentFacts, what the agent loads at session start (files in
#   order, caps, shadowing, its own memory, MCP config, hooks) and the versions each fact was
#   checked against; read by nothing that writes (docs/adr/0027);
# - TEAM_FILES: tuple[str, ...], for an agent whose project tier is not a block: files
#   (relative to the project root) it reads, for the team block (docs/adr/0036); the first
#   that exists gets it, else the last is created;
# - hook_trust(ctx) -> HookTrust | None: for an agent that runs a configured hook only once
#   the user trusted it, whether it trusts coffer's (None: coffer's hook is not in its config);
#   `coffer adapter list` and `coffer status` show it (docs/adr/0046);
# - link_check(ctx) -> LinkCheck | None: for an agent whose project tier is a link, where
#   the agent itself shows it keeps this project's memory (its own records, read-only and
#   bounded) when that is not the directory coffer links; None when they agree or nothing
#   tells. `coffer adapter list` and `coffer doctor` warn (issue 27 point 15);
# - MODES: accepted from adapters written before 0.2 (a mapping of tier to Mode), never read:
#   the modes come from targets().


class HookTrust(NamedTuple):
    """Whether the agent runs coffer's session-start hook, where the agent records that it
    trusts it (Codex: a hash under ``[hooks.state]`` in config.toml, set in ``/hooks``)."""

    state: str  # "trusted", "untrusted", "modified" (trusted, then changed) or "disabled"
    detail: str  # where the agent keeps it: "[hooks.state.\"…\"] in …/config.toml"
    how: str = ""  # how to trust it, without the agent's interactive screen if there is a way

    @property
    def runs(self) -> bool:
        return self.state == "trusted"


class LinkCheck(NamedTuple):
    """The agent keeps this project's memory elsewhere than the directory coffer linked
    (the ``link_check`` member's answer): it does not see the store there."""

    linked: Path  # the directory coffer linked to the store
    elsewhere: Path  # where the agent's own records show it reads and writes
    warning: str  # what to tell the user, with why they differ and what to do

    def as_json(self) -> dict[str, str]:
        return {"path": str(self.elsewhere), "linked": str(self.linked), "warning": self.warning}


class Features(NamedTuple):
    """An adapter's optional members, checked: what the core reads instead of getattr."""

    harnesses: tuple[str, ...] = ()
    wiring: Wiring | None = None
    session_context: SessionFramer | None = None
    session_context_limit: int | None = None
    facts: AgentFacts | None = None
    config_dir: ConfigDir | None = None
    team_files: tuple[str, ...] = ()
    hook_trust: Callable[[Context], HookTrust | None] | None = None
    link_check: Callable[[Context], LinkCheck | None] | None = None


# A project that is never read or written: modes() asks targets() what a project would get.
_PROBE = Path("/nonexistent/coffer-probe")
TIERS: tuple[TierName, ...] = ("project", "global")


def modes(adapter: Adapter, store: Path) -> dict[str, Mode]:
    """The mode of each tier, read off the targets the adapter plans for a neutral context
    (an empty home and environment), so it says what the adapter does by nature, not what
    one user's settings make of it: what `coffer adapter list` shows."""
    ctx = Context(home=_PROBE / "home", environ={}, store=store, project=_PROBE / "project")
    found = {t.tier: t.mode for t in adapter.targets(ctx)}
    return {tier: found[tier] for tier in TIERS if tier in found}


def no_native_memory(ctx: Context) -> NativeMemory | None:
    """For adapters whose agent has no memory of its own to switch off."""
    return None


def never_detected(ctx: Context) -> bool:
    return False


def no_targets(ctx: Context) -> Sequence[Target]:
    return ()


def no_inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    return (), ()


# ---- `coffer setup` (the optional ``wiring`` member) ---------------------------------------
# Like everything else here ``wiring`` only describes the entries; coffer.setup.wiring edits,
# journals and undoes them.


class Launch(NamedTuple):
    """How an agent should start coffer; decided by coffer and handed to ``wiring``."""

    # absolute argv prefix: ("/usr/local/bin/coffer",) or (python, "-m", "coffer")
    argv: tuple[str, ...]
    # environment the agent must pass (e.g. COFFER_HOME when the store is not the default)
    env: Mapping[str, str] = MappingProxyType({})

    def mcp_server(self, harness: str) -> dict[str, Any]:
        """A stdio MCP server entry (command, args, env); ``harness`` names the agent for
        the vault tools (ECC_MEMORY_HARNESS), which a caller can never override."""
        env = {**self.env, "ECC_MEMORY_HARNESS": harness}
        return {"command": self.argv[0], "args": [*self.argv[1:], "mcp"], "env": env}

    @property
    def session_start(self) -> str:
        """The POSIX shell command of a session-start hook: ``coffer project --hook``."""
        return self.session_start_for(None)

    def session_start_for(self, agent: str | None, windows: HookShell | None = None) -> str:
        """The hook command; with ``agent``, it also prints the handoffs waiting for it
        (``--for``), for agents that read a session-start hook's output as context. On
        Windows it is rendered for the shell ``windows`` names (POSIX when None)."""
        from coffer.adapter.hookshell import render
        from coffer.base import platform

        extra = ["--for", agent] if agent else []
        argv = [*self.argv, "project", "--hook", *extra]
        syntax = windows.syntax if windows is not None and platform.WINDOWS else "posix"
        return render(syntax, argv, self.env)

    def session_start_entry(
        self, agent: str | None, windows: HookShell | None = None, **fields: Any
    ) -> dict[str, Any]:
        """One ``{"type": "command", "command", ...}`` hook entry, with the members the
        agent needs on Windows to run it in that shell (``HookShell.fields``)."""
        from coffer.base import platform

        entry: dict[str, Any] = {
            "type": "command",
            "command": self.session_start_for(agent, windows),
        }
        if windows is not None and platform.WINDOWS:
            entry.update(windows.fields)
        return {**entry, **fields}


class HookShell(NamedTuple):
    """The shell an agent runs hook commands in on Windows (adapter data; everywhere else
    agents use a POSIX shell). ``fields``: members the hook entry needs to ask for it."""

    syntax: Literal["posix", "cmd", "powershell"]
    fields: Mapping[str, Any] = MappingProxyType({})


# Strings a session-start hook of coffer's always contains (see ConfigEdit.marker): both
# `project --hook` and the `project --quiet` that coffer wrote before hook mode existed.
SESSION_START_MARKER = ("coffer", "project --")


class ConfigEdit(NamedTuple):
    """One entry `coffer setup` adds to an agent's config file (`--undo` removes it).

    ``keys`` locate it in the parsed file (JSON or JSONC object keys, TOML table keys). Without
    ``append`` the last key is set to ``value``; with it, ``value`` is one item appended to
    the array at ``keys``. Missing containers on the way are created, and removed again on
    undo when coffer created them and they ended up empty.
    """

    path: Path
    # jsonc, yaml: comments kept; text: a whole file coffer owns (``keys`` name it)
    format: Literal["json", "jsonc", "toml", "yaml", "text"]
    keys: tuple[str, ...]
    value: Any  # plain JSON-compatible data
    append: bool = False
    what: str = ""  # for the plan: "MCP server `coffer`"
    # strings that all occur in coffer's item even after small hand edits, so an appended
    # item that was changed is recognised (and never silently duplicated or removed)
    marker: tuple[str, ...] = ()
    note: str = ""  # what the user still has to do or should know


def session_start_hook(path: Path, group: Mapping[str, Any], note: str = "") -> ConfigEdit:
    """Append one hook group to ``hooks.SessionStart`` of a JSON config: the shape Claude
    Code, Codex (hooks.json) and Gemini CLI share."""
    return ConfigEdit(
        path,
        "json",
        ("hooks", "SessionStart"),
        dict(group),
        append=True,
        what="SessionStart hook: coffer project --hook",
        marker=SESSION_START_MARKER,
        note=note,
    )
