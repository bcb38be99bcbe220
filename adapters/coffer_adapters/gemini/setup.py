"""``coffer setup`` for Gemini CLI: an MCP server and a ``SessionStart`` hook.

Config keys (Gemini CLI documentation: docs/tools/mcp-server.md and docs/hooks/reference.md
in google-gemini/gemini-cli): both live in ``~/.gemini/settings.json`` (``GEMINI_CLI_HOME``
replaces ``~``). MCP servers are ``mcpServers.<name>`` with ``command``, ``args`` and ``env``;
hooks are ``hooks.<Event>``: a list of groups ``{"matcher"?, "hooks": [{"type": "command",
"command", "name"?, "timeout"?}]}``. Gemini loads ``GEMINI.md`` before it fires
SessionStart, shows a hook's plain stdout to the user only, and gives the model
``hookSpecificOutput.additionalContext`` of JSON stdout. So the hook is ``coffer project
--hook --for gemini``: it prints nothing on a quiet success, else one JSON object with the
handoffs and the memory for the session as ``additionalContext`` (docs/adr/0012) and any
message for the user as ``systemMessage`` (docs/adr/0013). Older releases gated hooks
behind a setting; coffer does not flip any such switch, it says so instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import ConfigEdit, HookShell, Launch, session_start_hook
from coffer.adapter.wiring import skill

HOOK_TIMEOUT_MS = 30_000  # Gemini's hook timeout is in milliseconds
# On Windows Gemini CLI runs a hook's command with PowerShell: %ComSpec% when it names
# powershell.exe or pwsh.exe, else pwsh.exe from PATH, else powershell.exe, each with
# -NoProfile -Command <command> (packages/core/src/hooks/hookRunner.ts, which calls
# getShellConfiguration in packages/core/src/utils/shell-utils.ts; Gemini CLI at
# 5411f113, 2026-08-21). It also replaces $GEMINI_PROJECT_DIR, $GEMINI_CWD,
# $GEMINI_PLANS_DIR, $GEMINI_SESSION_ID and $CLAUDE_PROJECT_DIR in the command text.
WINDOWS_SHELL = HookShell("powershell")


def edits(settings: Path, launch: Launch) -> Sequence[ConfigEdit]:
    """The edits to Gemini's ``settings.json`` (handed in, so this module never imports
    the adapter back)."""
    hook = {
        "hooks": [
            {
                "name": "coffer-project",
                **launch.session_start_entry("gemini", WINDOWS_SHELL, timeout=HOOK_TIMEOUT_MS),
            }
        ]
    }
    return [
        ConfigEdit(
            settings,
            "json",
            ("mcpServers", "coffer"),
            launch.mcp_server("gemini"),
            what="MCP server `coffer`",
            note="restart Gemini CLI (or run /mcp) to connect to coffer's MCP server",
        ),
        session_start_hook(
            settings,
            hook,
            note="if your Gemini CLI release keeps hooks behind a setting, enable hooks "
            "there; coffer does not change that switch",
        ),
        # personal skills: ~/.gemini/skills/<name>/SKILL.md (seen in Gemini CLI 0.61.0's
        # requests, tests/agents/test_setup_real.py)
        *skill(settings.parent / "skills"),
    ]
