"""Path templates that differ between systems (adapter data; docs/adr/0057).

An agent puts its files where its own code says, and that differs between Linux, macOS and
Windows in ways no one rule covers: VS Code uses ``~/.config``, ``~/Library/Application
Support`` and ``%APPDATA%``; Zed uses ``~/.config/zed`` on macOS too; a Node agent built on
xdg-basedir uses ``~/.config`` everywhere. So each adapter says it, per system, in a
:class:`BySystem`, and the running system (``platform.SYSTEM``, read at each use so tests
can switch it) picks. Names no agent.
"""

from __future__ import annotations

from typing import NamedTuple

from coffer.base import platform


class BySystem(NamedTuple):
    """A path template that differs between systems, as the agent itself decides: the
    running system's own (``platform.SYSTEM``, read at each use, so tests can switch it),
    else ``default``. Each is one template or several, the first that resolves winning
    (Crush on Windows: ``${XDG_CONFIG_HOME}/crush`` when set, else ``$LOCALAPPDATA/crush``)."""

    default: str
    darwin: str | tuple[str, ...] = ()
    win32: str | tuple[str, ...] = ()

    def now(self, system: str = "") -> tuple[str, ...]:
        """The templates that apply on ``system`` (default: the running one), best first."""
        own = {"darwin": self.darwin, "win32": self.win32}.get(system or platform.SYSTEM, ())
        own = (own,) if isinstance(own, str) else own
        return own or (self.default,)

    def every(self) -> tuple[str, ...]:
        """Every template, on any system (for the environment variables they name)."""
        out = [self.default]
        for own in (self.darwin, self.win32):
            out += [own] if isinstance(own, str) else own
        return tuple(out)


Template = str | BySystem
