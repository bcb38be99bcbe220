"""Whether Codex runs coffer's SessionStart hook: Codex runs a hook from ``hooks.json`` only
when ``config.toml`` records, under ``[hooks.state."<hooks.json>:<event>:<group>:<handler>"]``,
a ``trusted_hash`` equal to the hook's current hash; ``/hooks`` in the TUI writes it.

The hash, as codex-rs computes it (hooks/src/engine/discovery.rs ``command_hook_hash`` and
config/src/fingerprint.rs ``version_for_toml``; checked against Codex 0.171.0's own
``hooks/list`` in tests/agents/test_codex_trust.py): SHA-256 of the compact JSON, keys sorted,
of ``{"event_name": "session_start", "matcher"?, "hooks": [the handler, normalised]}``,
where the normalised handler is ``type``, ``command``, ``timeout`` (default 600, at least 1),
``async`` and ``statusMessage`` if set; a field that is not set is left out (it cannot be
said in TOML). Without the TUI, the same two lines in config.toml trust it, or one run of
``codex --dangerously-bypass-hook-trust`` runs hooks untrusted. coffer never writes the
trust itself: trusting a command is the user's decision.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import SESSION_START_MARKER, HookTrust
from coffer.adapter.helpers import read_json, read_toml

if TYPE_CHECKING:
    from typing import Any

_EVENT = "SessionStart"
_LABEL = "session_start"  # codex-rs hook_event_key_label


def _hash(matcher: object, handler: dict[str, Any]) -> str:
    timeout = handler.get("timeout")
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, timeout) if isinstance(timeout, int) else 600,
        "async": handler.get("async") is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _LABEL, "hooks": [normal]}
    if isinstance(matcher, str):
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _coffers(hooks_json: Path) -> tuple[str, str] | None:
    """The key and current hash of coffer's SessionStart handler in ``hooks_json``."""
    hooks = read_json(hooks_json).get("hooks")
    groups = hooks.get(_EVENT) if isinstance(hooks, dict) else None
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
            command = handler.get("command") if isinstance(handler, dict) else None
            if isinstance(command, str) and all(m in command for m in SESSION_START_MARKER):
                return f"{hooks_json}:{_LABEL}:{g}:{h}", _hash(group.get("matcher"), handler)
    return None


def hook_trust(home: Path) -> HookTrust | None:
    """Whether Codex (``CODEX_HOME`` = ``home``) runs coffer's hook; None when it has none."""
    found = _coffers(home / "hooks.json")
    if found is None:
        return None
    key, current = found
    config = home / "config.toml"
    hooks = read_toml(config, mentions=b"hooks").get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    state = states.get(key) if isinstance(states, dict) else None
    state = state if isinstance(state, dict) else {}
    where = f'[hooks.state."{key}"] in {config}'
    lines = f'[hooks.state."{key}"]\ntrusted_hash = "{current}"'
    how = (
        f"open /hooks in codex and trust it, or add to {config} (what /hooks writes):\n"
        f"{lines}\n"
        "(for one run only: codex --dangerously-bypass-hook-trust)"
    )
    if state.get("enabled") is False:
        return HookTrust("disabled", f"enabled = false at {where}", f"remove that line: {where}")
    trusted = state.get("trusted_hash")
    if trusted == current:
        return HookTrust("trusted", where)
    if isinstance(trusted, str):
        return HookTrust("modified", f"{where} trusts an earlier version of the hook", how)
    return HookTrust("untrusted", f"no trusted_hash at {where}: Codex skips the hook", how)
