"""The service managers `coffer setup` can run ``coffer watch`` under: a systemd user unit on
Linux, a launchd agent on macOS, the per-user Run key on Windows
(coffer.setup.service_winrun).

Each says where its file goes, renders it, names the exact commands that start, stop and
query the service, and checks honestly whether it can be reached from here (a container or
WSL without systemd has ``systemctl`` but no user manager behind it). Every command goes
through one runner and the manager's executable is looked up on ``PATH``, so the tests put a
fake ``systemctl`` / ``launchctl`` first on ``PATH`` (docs/adr/0017-watch-as-a-service.md).
coffer.setup.service plans, journals and undoes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from coffer.base import platform as seam
from coffer.setup.service_base import (
    LABEL,
    UNIT,
    DoesNotFit,
    Manager,
    Ran,
    Runner,
    State,
    runner,
)
from coffer.store.paths import home_dir

# The user unit directories systemd reads besides ours (systemd.unit(5), user mode), the
# persistent ones: a coffer-watch unit there was installed by hand or by the system.
_SYSTEM_UNIT_DIRS = (
    "/etc/systemd/user",
    "/etc/xdg/systemd/user",
    "/usr/local/share/systemd/user",
    "/usr/share/systemd/user",
    "/usr/local/lib/systemd/user",
    "/usr/lib/systemd/user",
)

# ---- systemd ------------------------------------------------------------------------------


def _systemd_quote(value: str, *, exec_line: bool) -> str:
    # systemd.syntax(7): C-style escapes inside double quotes; `%` starts a specifier
    # everywhere, `$` a variable only in Exec lines.
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    if exec_line:
        out = out.replace("$", "$$")
    return f'"{out}"'


class Systemd(Manager):
    kind = "systemd"
    name = UNIT

    @property
    def path(self) -> Path:
        # systemd.unit(5): $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user.
        config = self.environ.get("XDG_CONFIG_HOME", "").strip()
        base = Path(config) if config and os.path.isabs(config) else self.home / ".config"
        return base / "systemd" / "user" / UNIT

    def _ctl(self, *args: str) -> tuple[str, ...]:
        return (self.exe, "--user", *args)

    def describe(self) -> str:
        return f"systemd user service {UNIT}"

    def log_hint(self) -> str:
        return "journalctl --user -u coffer-watch -f"

    def unreachable(self, run: Runner) -> str | None:
        ran = run(self._ctl("show", "--property=UnitPath"))
        if not ran.ok:
            return f"`systemctl --user`: {ran.why()}"
        listed = ran.out.strip().partition("=")[2].split()
        wanted = str(self.path.parent)
        if not any(os.path.realpath(p) == os.path.realpath(wanted) for p in listed):
            # e.g. HOME or XDG_CONFIG_HOME point elsewhere than the manager's own: a unit
            # written there would never be seen (and a test home never reaches a real one).
            return f"the systemd user manager does not read units from {wanted}"
        return None

    def render(self, argv: Sequence[str], env: Mapping[str, str]) -> bytes:
        exec_start = " ".join(_systemd_quote(a, exec_line=True) for a in [*argv, "watch"])
        lines = [
            "# Written by `coffer setup`: coffer watch keeps every agent's view of coffer",
            "# memory current. `coffer setup --undo` stops and removes it; edit it and coffer",
            "# leaves it alone. Log: journalctl --user -u coffer-watch",
            "[Unit]",
            "Description=coffer watch: keep every coding agent's view of coffer memory current",
            "# A second daemon for the same store exits 1 (already running): do not retry forever.",
            "StartLimitIntervalSec=300",
            "StartLimitBurst=5",
            "",
            "[Service]",
            "Type=simple",
            f"ExecStart={exec_start}",
            # A user service does not see the shell's environment: what setup saw is kept.
            *(
                f"Environment={_systemd_quote(f'{k}={v}', exec_line=False)}"
                for k, v in sorted(env.items())
            ),
            "# SIGTERM lets the current refresh finish, then exits 0.",
            "KillSignal=SIGTERM",
            "TimeoutStopSec=20",
            "Restart=on-failure",
            "RestartSec=5",
            "Nice=10",
            "IOSchedulingClass=idle",
            "MemoryMax=256M",
            "",
            "[Install]",
            "WantedBy=default.target",
        ]
        return ("\n".join(lines) + "\n").encode("utf-8")

    def start(self, *, update: bool) -> list[tuple[str, ...]]:
        if update:  # `enable --now` does not restart a unit that already runs
            return [
                self._ctl("daemon-reload"),
                self._ctl("enable", UNIT),
                self._ctl("restart", UNIT),
            ]
        return [self._ctl("daemon-reload"), self._ctl("enable", "--now", UNIT)]

    def stop(self) -> list[tuple[str, ...]]:
        return [self._ctl("disable", "--now", UNIT)]

    def after_remove(self) -> list[tuple[str, ...]]:
        return [self._ctl("daemon-reload")]

    def elsewhere(self) -> list[Path]:
        data = self.environ.get("XDG_DATA_HOME", "").strip()
        share = Path(data) if data and os.path.isabs(data) else self.home / ".local" / "share"
        dirs = [share / "systemd" / "user", *map(Path, _SYSTEM_UNIT_DIRS)]
        return [d / UNIT for d in dirs]

    def side_dirs(self) -> list[Path]:
        # `enable` links the unit into default.target.wants/; `disable` removes the link
        # but leaves the directory.
        return [self.path.parent / "default.target.wants"]

    def query(self, run: Runner) -> State | str:
        ran = run(
            self._ctl(
                "show", UNIT, "--property=LoadState,ActiveState,SubState,UnitFileState,MainPID"
            )
        )
        if not ran.ok:
            return f"`systemctl --user`: {ran.why()}"
        props = dict(line.partition("=")[::2] for line in ran.out.splitlines() if "=" in line)
        pid = props.get("MainPID", "0")
        return State(
            loaded=props.get("LoadState") == "loaded",
            enabled=props.get("UnitFileState") in ("enabled", "enabled-runtime", "linked"),
            active=props.get("ActiveState") in ("active", "reloading", "activating"),
            pid=int(pid) if pid.isdigit() and pid != "0" else None,
            detail=f"{props.get('ActiveState', '?')} ({props.get('SubState', '?')})",
        )


# ---- finding one --------------------------------------------------------------------------


def find(environ: Mapping[str, str], platform: str | None = None) -> Manager | str:
    """The manager for this platform with its executable on ``PATH``, or why there is none.
    Cheap: looks at ``PATH`` only, runs nothing."""
    platform = seam.SYSTEM if platform is None else platform
    if platform == "win32":
        # No service manager a standard user may use: the per-user Run key starts it at logon.
        from coffer.setup.service_winrun import WinRun

        return WinRun.here(environ)
    if platform.startswith("linux"):
        cls: type[Manager] = Systemd
        exe_name = "systemctl"
    elif platform == "darwin":
        from coffer.setup.service_launchd import Launchd

        cls, exe_name = Launchd, "launchctl"
    else:
        return (
            f"coffer knows no service manager on {platform} (systemd on Linux, launchd on "
            "macOS, the Run key on Windows)"
        )
    exe = shutil.which(exe_name, path=environ.get("PATH", os.defpath))
    if exe is None:
        return f"no `{exe_name}` on PATH"
    return cls(os.path.abspath(exe), environ)


def by_kind(kind: str, environ: Mapping[str, str]) -> Manager | str:
    """The manager a journal record names (for undo, whatever the platform says now)."""
    if kind == "winrun":
        from coffer.setup.service_winrun import WinRun

        return WinRun.here(environ)
    exe_name = {"systemd": "systemctl", "launchd": "launchctl"}.get(kind)
    if exe_name is None:
        return f"unknown service manager {kind!r}"
    exe = shutil.which(exe_name, path=environ.get("PATH", os.defpath))
    if exe is None:
        return f"no `{exe_name}` on PATH"
    if kind == "systemd":
        return Systemd(os.path.abspath(exe), environ)
    from coffer.setup.service_launchd import Launchd

    return Launchd(os.path.abspath(exe), environ)


def default_log_file(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """Where the watcher started by hand should log."""
    platform = seam.SYSTEM if platform is None else platform
    home = home_dir(environ)
    if platform == "darwin":
        return home / "Library" / "Logs" / "coffer-watch.log"
    if platform == "win32":
        from coffer.setup.service_winrun import log_file

        return log_file(environ)
    state = environ.get("XDG_STATE_HOME", "").strip()
    base = Path(state) if state and os.path.isabs(state) else home / ".local" / "state"
    return base / "coffer" / "watch.log"


__all__ = [
    "LABEL",
    "UNIT",
    "DoesNotFit",
    "Manager",
    "Ran",
    "Runner",
    "State",
    "Systemd",
    "by_kind",
    "default_log_file",
    "find",
    "runner",
]
