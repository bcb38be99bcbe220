"""``coffer setup`` for Claude Code: a user-scope MCP server and a ``SessionStart`` hook.

Config keys (checked against Claude Code's documentation and issue tracker; sources in
docs/adr/0009-mcp-and-setup.md):

- User-scope MCP servers live under the top-level ``mcpServers`` key of ``~/.claude.json``,
  which is what ``claude mcp add --scope user`` writes (anthropics/claude-code#4193); with
  ``CLAUDE_CONFIG_DIR`` set the file is ``$CLAUDE_CONFIG_DIR/.claude.json``. An entry is
  ``{"type": "stdio", "command", "args", "env"}``. ``mcpServers`` in ``settings.json`` is not
  read (Claude Code >= 2.1.47).
- Hooks live in ``<config>/settings.json`` under ``hooks.<Event>``: a list of matcher groups
  ``{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}``. ``SessionStart``
  without a matcher runs for every start source (startup, resume, clear, compact); stdout of a
  SessionStart hook becomes context: ``coffer project --hook --for claude`` prints nothing
  there but the vault handoffs waiting for Claude (its project memory is a linked
  directory, not a rendered block, so this is how handoffs reach it).
- Personal skills are ``<config>/skills/<name>/SKILL.md`` (frontmatter ``name``, lowercase
  and hyphens, at most 64 characters, and ``description``, at most 1024; Claude loads the
  descriptions at start and a skill's body when it uses it): coffer's guidance goes there as
  ``coffer-memory`` (docs/adr/0033).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import ConfigEdit, Context, HookShell, Launch, session_start_hook
from coffer.adapter.helpers import read_json
from coffer.adapter.wiring import skill

HOOK_TIMEOUT = 30  # seconds; the no-op path takes milliseconds
# On Windows Claude Code runs a command hook through Git Bash (bash --login -i -c) unless
# the hook says "shell": "powershell", and falls back to PowerShell where Git Bash is not
# found (its hooks reference, "command hook fields"; anthropics/claude-code#21878 and
# vercel/vercel-plugin#79 show the Git Bash wrapping). No one string is a valid command in
# both, so coffer asks for PowerShell explicitly, present on every Windows, and renders for
# it: the hook then runs the same whether or not Git for Windows is installed.
WINDOWS_SHELL = HookShell("powershell", {"shell": "powershell"})


def claude_json(ctx: Context, config: Path) -> Path:
    """Where Claude Code keeps user-scope MCP servers (``config``: its config directory)."""
    if ctx.environ.get("CLAUDE_CONFIG_DIR", ""):
        return config / ".claude.json"
    return ctx.home / ".claude.json"


def edits(ctx: Context, launch: Launch, config: Path) -> Sequence[ConfigEdit]:
    """The edits, given Claude's config directory (handed in by the adapter, so this
    module never imports it back)."""
    settings = config / "settings.json"
    hook = {"hooks": [launch.session_start_entry("claude", WINDOWS_SHELL, timeout=HOOK_TIMEOUT)]}
    return [
        ConfigEdit(
            claude_json(ctx, config),
            "json",
            ("mcpServers", "coffer"),
            {"type": "stdio", **launch.mcp_server("claude")},
            what="MCP server `coffer` (user scope)",
            note="restart Claude Code (or run /mcp) to connect to coffer's MCP server; "
            "Claude rewrites ~/.claude.json while it runs, so set up with Claude closed",
        ),
        session_start_hook(
            settings,
            hook,
            note=f"disableAllHooks is true in {settings}, so the hook will not run until "
            "hooks are allowed again"
            if read_json(settings).get("disableAllHooks") is True
            else "",
        ),
        # personal skills: <config>/skills/<name>/SKILL.md (Claude Code's skills docs)
        *skill(config / "skills"),
    ]
