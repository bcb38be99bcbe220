"""``coffer setup`` for Codex CLI: an ``[mcp_servers.coffer]`` table and a SessionStart hook.

Config keys (checked against Codex's documentation and source; sources in
docs/adr/0009-mcp-and-setup.md):

- MCP servers: ``[mcp_servers.<name>]`` in ``$CODEX_HOME/config.toml`` with ``command``,
  ``args`` and ``env`` (an inline table), which is what ``codex mcp add`` writes. Codex passes
  MCP servers only a short allow-list of environment variables plus ``env``, so coffer puts
  everything it needs there.
- Hooks: ``$CODEX_HOME/hooks.json`` (the user config layer), the same shape as Claude Code's:
  ``{"hooks": {"SessionStart": [{"matcher"?, "hooks": [{"type": "command", "command",
  "timeout", "statusMessage"}]}]}}``; the file rejects unknown top-level keys, and coffer adds
  none. Hooks are on unless ``[features] hooks = false`` (older: ``codex_hooks``). Codex runs
  a new non-managed hook only after the user trusts it in ``/hooks`` (a hash recorded under
  ``[hooks.state]`` in config.toml); coffer never writes that trust on the user's behalf, but
  says whether it is there and which lines would write it (codex/trust.py).
- A SessionStart hook's plain stdout becomes model context (codex-rs/hooks
  ``events/session_start.rs``), and Codex reads ``AGENTS.md`` before the hook runs: the hook
  is ``coffer project --hook --for codex``, which prints the handoffs waiting for Codex and
  the memory a run put in place after Codex read its files (docs/adr/0012).
- User skills are ``$CODEX_HOME/skills/<name>/SKILL.md`` (frontmatter ``name``, at most 100
  characters, and ``description``, at most 500, one line each; Codex lists name, description
  and path after AGENTS.md and reads the body when it uses the skill): coffer's guidance goes
  there as ``coffer-memory`` (docs/adr/0033). Codex 0.171.0's bundled skill installer writes
  to ``os.path.join(codex_home, "skills")``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coffer.adapter import ConfigEdit, HookShell, Launch, session_start_hook
from coffer.adapter.helpers import read_toml
from coffer.adapter.wiring import skill

HOOK_TIMEOUT = 30  # seconds
# On Windows Codex runs a hook's command string as `%COMSPEC% /C <command>`, the command one
# argument quoted by Rust's std::process::Command (codex-rs/hooks/src/engine/command_runner.rs,
# default_shell_command and build_command: COMSPEC, else cmd.exe, then "/C"; elsewhere
# $SHELL -lc): the cmd form of coffer.adapter.hookshell.
WINDOWS_SHELL = HookShell("cmd")


def _hooks_off(config: Path) -> str:
    features = read_toml(config, mentions=b"hooks").get("features")
    if not isinstance(features, dict):
        return ""
    for name in ("hooks", "codex_hooks"):
        if features.get(name) is False:
            return f"[features] {name} = false in {config} turns hooks off; the hook will not run"
    return ""


def edits(home: Path, launch: Launch) -> Sequence[ConfigEdit]:
    """The edits, given ``CODEX_HOME`` (handed in by the adapter, so this module never
    imports it back)."""
    config = home / "config.toml"
    hook = {
        "hooks": [
            launch.session_start_entry(
                "codex",
                WINDOWS_SHELL,
                timeout=HOOK_TIMEOUT,
                statusMessage="coffer: projecting memory",
            )
        ]
    }
    off = _hooks_off(config)
    return [
        ConfigEdit(
            config,
            "toml",
            ("mcp_servers", "coffer"),
            launch.mcp_server("codex"),
            what="MCP server `coffer` ([mcp_servers.coffer])",
        ),
        session_start_hook(
            home / "hooks.json",
            hook,
            note=off
            or "Codex runs a new hook only after you trust it: start codex and open /hooks "
            "to review and trust coffer's SessionStart hook (`coffer status` says whether it "
            "is, and the two config.toml lines that trust it without the TUI)",
        ),
        # user skills: $CODEX_HOME/skills/<name>/SKILL.md (where Codex's own skill
        # installer puts them)
        *skill(home / "skills"),
    ]
