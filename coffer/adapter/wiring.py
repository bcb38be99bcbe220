"""What `coffer setup` writes for a spec adapter, as data (issue 12 §6, docs/adr/0033).

A spec's optional ``setup`` is one :class:`Wire`: where the agent's config holds its MCP
servers and in which shape one entry is written (:class:`McpServer`; ``also`` for an agent
with more than one such file), and, for an agent whose session-start hook output reaches
the model, where that hook goes (:class:`SessionHook`). :func:`edits` turns it into the
:class:`~coffer.adapter.ConfigEdit` values every adapter's ``wiring`` returns, so
coffer.setup plans, journals and undoes a spec's edits exactly as a hand-written adapter's.
Names no agent; does no I/O but the existence checks that choose between a config's
alternative names (and whether its directory exists).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from coffer.adapter import ConfigEdit, Context, HookShell, Launch, session_start_hook
from coffer.adapter.templates import Template

Format = Literal["json", "jsonc", "toml", "yaml"]

SERVER = "coffer"  # the name of coffer's entry in every agent's config


class McpServer(NamedTuple):
    """Where the agent's config holds its stdio MCP servers, and the shape of one entry.

    The entry is ``{**extra, <command_key>: <coffer>, "args": [..., "mcp"], <env_key>: {...}}``;
    with ``argv`` the command and its arguments are one list under ``command_key``.
    With ``named`` the servers are a list of tables, each naming itself under that key
    (``[[mcp_servers]] name = "coffer"``); else they are a table keyed by name.
    """

    # a template: "{config}/settings.json", or a BySystem where the agent's own rule differs
    path: Template
    format: Format
    keys: tuple[str, ...]  # the container of servers: ("mcpServers",)
    alternatives: tuple[Template, ...] = ()  # other names of the file: the first existing wins
    env: str = ""  # a variable naming the file instead, when set (CLINE_MCP_SETTINGS_PATH)
    argv: bool = False
    command_key: str = "command"  # "cmd" (Goose)
    env_key: str = "env"  # "environment" (OpenCode), "envs" (Goose)
    extra: Mapping[str, Any] = MappingProxyType({})
    named: str = ""
    note: str = ""  # what the user still has to do (restart the agent, …)
    # only where the file or its directory already exists (an editor's profile directory,
    # whose place differs between systems): coffer never creates that directory itself
    existing_dir: bool = False


class SessionHook(NamedTuple):
    """A Claude-style ``hooks.SessionStart`` group running ``coffer project --hook --for
    NAME``: only for agents that add the hook's output to the model's context."""

    path: str  # a template
    format: Format = "json"
    fields: Mapping[str, Any] = MappingProxyType({})  # more members: timeout, name
    note: str = ""
    # the shell the agent runs the hook with on Windows (None: a POSIX one, e.g. Git Bash)
    windows: HookShell | None = None


class Wire(NamedTuple):
    """What `coffer setup` adds to one agent's config."""

    mcp: McpServer | None = None
    # more MCP configs of the same agent, each wired the same way (the Copilot CLI's file
    # and VS Code's user mcp.json): every one that applies gets coffer's entry
    also: tuple[McpServer, ...] = ()
    hook: SessionHook | None = None
    # why no hook is written although the agent has one (its output is discarded): said
    # when the agent is wired
    no_hook: str = ""
    # the directory of the agent's own personal skills (a template): coffer's guidance goes
    # there as <skills>/coffer-memory/SKILL.md (see skill())
    skills: str = ""


Resolve = Callable[[Template], Path | None]


def edits(
    wire: Wire, name: str, ctx: Context, launch: Launch, resolve: Resolve
) -> list[ConfigEdit]:
    """The edits ``wire`` asks for, for the agent ``name`` (its vault harness and ``--for``
    name); ``resolve`` turns the spec's templates into paths (None: does not apply)."""
    out: list[ConfigEdit] = []
    for mcp in [m for m in (wire.mcp, *wire.also) if m is not None]:
        path = _mcp_path(mcp, ctx, resolve)
        if path is not None:  # the reason without a hook is said once, with the first
            out.append(_server(mcp, path, name, launch, "" if out else wire.no_hook))
    if wire.hook is not None:
        path = resolve(wire.hook.path)
        if path is not None:
            entry = launch.session_start_entry(name, wire.hook.windows, **wire.hook.fields)
            group = {"hooks": [entry]}
            hook = session_start_hook(path, group, note=wire.hook.note)
            out.append(_as(hook, wire.hook.format))
    skills = resolve(wire.skills) if wire.skills else None
    if skills is not None:
        out += skill(skills)
    return out


def skill(skills: Path, note: str = "") -> list[ConfigEdit]:
    """coffer's guidance (coffer.adapter.guidance) as the skill ``coffer-memory`` in an
    agent's skills directory ``skills``: ``<skills>/coffer-memory/SKILL.md`` and, beside it,
    the interface metadata ``agents/openai.yaml`` (docs/adr/0048). Each is a whole file
    coffer owns, journaled and undone like every setup edit."""
    from coffer.adapter.guidance import SKILL_NAME, skill_files

    what = {
        "SKILL.md": f"skill `{SKILL_NAME}`: when to recall, remember and hand off",
        "agents/openai.yaml": f"skill `{SKILL_NAME}`: its interface metadata",
    }
    return [
        ConfigEdit(
            skills / SKILL_NAME / name,
            "text",
            (name,),
            text,
            what=what[name],
            note=note if name == "SKILL.md" else "",
        )
        for name, text in skill_files().items()
    ]


def _mcp_path(mcp: McpServer, ctx: Context, resolve: Resolve) -> Path | None:
    value = ctx.environ.get(mcp.env, "").strip() if mcp.env else ""
    if value:
        return Path(value).expanduser()
    found = [p for p in (resolve(t) for t in (mcp.path, *mcp.alternatives)) if p is not None]
    existing = next((p for p in found if p.is_file()), None)
    if existing is not None or not mcp.existing_dir:
        return existing or (found[0] if found else None)
    return next((p for p in found if p.parent.is_dir()), None)


def _server(mcp: McpServer, path: Path, name: str, launch: Launch, no_hook: str) -> ConfigEdit:
    server = launch.mcp_server(name)
    command: dict[str, Any]
    if mcp.argv:
        command = {mcp.command_key: [server["command"], *server["args"]]}
    else:
        command = {mcp.command_key: server["command"], "args": server["args"]}
    value = {**dict(mcp.extra), **command, mcp.env_key: server["env"]}
    note = "; ".join(n for n in (mcp.note, no_hook) if n)
    if mcp.named:
        return ConfigEdit(
            path,
            mcp.format,
            mcp.keys,
            {mcp.named: SERVER, **value},
            append=True,
            what=f"MCP server `{SERVER}`",
            marker=(f'"{mcp.named}": "{SERVER}"',),
            note=note,
        )
    return ConfigEdit(
        path,
        mcp.format,
        (*mcp.keys, SERVER),
        value,
        what=f"MCP server `{SERVER}`",
        note=note,
    )


def _as(edit: ConfigEdit, fmt: Format) -> ConfigEdit:

    return edit if edit.format == fmt else edit._replace(format=fmt)


__all__ = ["SERVER", "McpServer", "SessionHook", "Wire", "edits", "skill"]
