"""coffer's built-in agent adapters, one module per agent.

Reached only through the ``coffer.adapters`` entry-point group, exactly like a third-party
adapter, so coffer's core never imports them (docs/adr/0003-adapter-contract.md).
"""

from __future__ import annotations

from coffer.adapter.facts import Checked
from coffer.adapter.templates import BySystem

__all__ = ["suite_run", "vscode_user"]

# What tests/agents/test_every_agent.py proves of each agent it runs (tests/agents/run.sh):
# the projected tiers reach the recorded request, and nothing of coffer's after unproject.
_SUITE = "tests/agents/test_every_agent.py: projected tiers sent, nothing after unproject"


def suite_run(version: str, date: str = "2026-12-01") -> Checked:
    """The real-agent suite's check of ``version`` of an agent."""
    return Checked(version, ("Run",), _SUITE, date)


def vscode_user(rel: str) -> BySystem:
    """``rel`` under the ``User/`` folder of VS Code's user data directory, for each system
    as VS Code computes it (getDefaultUserDataPath, src/vs/platform/environment/node/
    userDataPath.js): ``%APPDATA%\\Code`` on Windows (else ``%USERPROFILE%\\AppData\\
    Roaming``), ``~/Library/Application Support/Code`` on macOS, ``$XDG_CONFIG_HOME/Code``
    (else ``~/.config/Code``) elsewhere. ``VSCODE_APPDATA``, which moves all three, is not
    followed."""
    return BySystem(
        f"$XDG_CONFIG_HOME/Code/User/{rel}",
        darwin=f"~/Library/Application Support/Code/User/{rel}",
        win32=f"$APPDATA/Code/User/{rel}",
    )
