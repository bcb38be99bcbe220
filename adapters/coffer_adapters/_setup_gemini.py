"""``coffer setup`` for Gemini CLI: an MCP server and a ``SessionStart`` hook.

Config keys (Gemini CLI documentation: docs/tools/mcp-server.md and docs/hooks/reference.md
in google-gemini/gemini-cli): both live in ``~/.gemini/settings.json`` (``GEMINI_CLI_HOME``
replaces ``~``). MCP servers are ``mcpServers.<name>`` with ``command``, ``args`` and ``env``;
hooks are ``hooks.<Event>``: a list of groups ``{"matcher"?, "hooks": [{"type": "command",
"command", "name"?, "timeout"?}]}`` where a hook must print nothing but JSON on stdout,
which ``coffer project --hook`` respects (nothing on success, else ``{"systemMessage"}``,
which Gemini shows at the start of the session). Older releases
gated hooks behind a setting; coffer does not flip any such switch, it says so instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from coffer.adapter import ConfigEdit, Context, Launch, session_start_hook
from coffer_adapters.gemini import gemini_dir

HOOK_TIMEOUT_MS = 30_000  # Gemini's hook timeout is in milliseconds


def wiring(ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
    settings = gemini_dir(ctx) / "settings.json"
    hook = {
        "hooks": [
            {
                "name": "coffer-project",
                "type": "command",
                "command": launch.session_start,
                "timeout": HOOK_TIMEOUT_MS,
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
    ]
