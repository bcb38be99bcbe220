"""The service managers `coffer setup` can run ``coffer watch`` under: a systemd user unit on
Linux, a launchd agent on macOS.

Each says where its file goes, renders it, names the exact commands that start, stop and
query the service, and checks honestly whether it can be reached from here (a container or
WSL without systemd has ``systemctl`` but no user manager behind it). Every command goes
through one runner and the manager's executable is looked up on ``PATH``, so the tests put a
fake ``systemctl`` / ``launchctl`` first on ``PATH`` (docs/adr/0017-watch-as-a-service.md).
coffer.setup.service plans, journals and undoes.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from coffer.store.paths import home_dir

UNIT = "coffer-watch.service"
LABEL = "dev.coffer.watch"
TIMEOUT = 20.0  # seconds for one systemctl/launchctl call (enable --now waits for the start)


@dataclass(frozen=True)
class Ran:
    """One finished service-manager command."""

    argv: tuple[str, ...]
    code: int
    out: str = ""
    err: str = ""

    @property
    def ok(self) -> bool:
        return self.code == 0

    def why(self) -> str:
        """The manager's own first line of complaint, for the user."""
        for text in (self.err, self.out):
            for line in text.splitlines():
                if line.strip():
                    return line.strip()
        return f"exit status {self.code}"


Runner = Callable[[Sequence[str]], Ran]


def runner(environ: Mapping[str, str]) -> Runner:
    """Run a command with ``environ``, never reading stdin, bounded in time."""

    def run(argv: Sequence[str]) -> Ran:
        try:
            done = subprocess.run(
                list(argv),
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                env=dict(environ),
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Ran(tuple(argv), 124, "", f"no answer within {TIMEOUT:g} s")
        except OSError as exc:
            return Ran(tuple(argv), 127, "", str(exc))
        return Ran(tuple(argv), done.returncode, done.stdout, done.stderr)

    return run


@dataclass(frozen=True)
class State:
    """What the service manager says about coffer's service right now."""

    loaded: bool  # the manager knows the service (its file is where the manager reads)
    enabled: bool  # it starts at login
    active: bool  # it runs now
    pid: int | None = None
    detail: str = ""  # the manager's own words, e.g. "active (running)"


class Manager:
    """One service manager: where the file goes, what it holds, which commands run."""

    kind = ""
    name = ""

    def __init__(self, exe: str, environ: Mapping[str, str]) -> None:
        self.exe = exe
        self.environ = environ
        self.home = home_dir(environ)

    @property
    def path(self) -> Path:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def log_hint(self) -> str:
        raise NotImplementedError

    def unreachable(self, run: Runner) -> str | None:
        """Why the service could not be installed and started from here, or None."""
        raise NotImplementedError

    def render(self, argv: Sequence[str], env: Mapping[str, str]) -> bytes:
        raise NotImplementedError

    def start(self, *, update: bool) -> list[tuple[str, ...]]:
        raise NotImplementedError

    def stop(self) -> list[tuple[str, ...]]:
        raise NotImplementedError

    def after_remove(self) -> list[tuple[str, ...]]:
        return []

    def side_dirs(self) -> list[Path]:
        """Directories starting the service may create (undo removes them when empty)."""
        return []

    def query(self, run: Runner) -> State | str:
        """The service's state, or why the manager could not be asked."""
        raise NotImplementedError


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


# ---- launchd ------------------------------------------------------------------------------


def _account_home() -> str | None:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):
        return None


class Launchd(Manager):
    kind = "launchd"
    name = LABEL

    @property
    def domain(self) -> str:
        return f"gui/{os.getuid()}"

    @property
    def path(self) -> Path:
        return self.home / "Library" / "LaunchAgents" / f"{LABEL}.plist"

    @property
    def log_file(self) -> Path:
        return self.home / "Library" / "Logs" / "coffer-watch.log"

    def describe(self) -> str:
        return f"launchd agent {LABEL}"

    def log_hint(self) -> str:
        return f"tail -f {shlex.quote(str(self.log_file))}"

    def unreachable(self, run: Runner) -> str | None:
        ran = run((self.exe, "print", self.domain))
        if not ran.ok:
            return f"launchctl cannot reach your login session ({self.domain}): {ran.why()}"
        account = _account_home()
        if account is not None and os.path.realpath(account) != os.path.realpath(self.home):
            # launchd loads ~/Library/LaunchAgents of the account's home at login only.
            return f"HOME ({self.home}) is not your account's home ({account})"
        return None

    def render(self, argv: Sequence[str], env: Mapping[str, str]) -> bytes:
        logs = self.log_file.parent
        data = {
            "Label": LABEL,
            "ProgramArguments": [*argv, "watch", "--log-file", str(self.log_file)],
            # A launch agent does not see the shell's environment: what setup saw is kept.
            "EnvironmentVariables": dict(sorted(env.items())),
            "RunAtLoad": True,
            # Restart after a crash, not after a clean stop (SIGTERM exits 0).
            "KeepAlive": {"SuccessfulExit": False},
            "ThrottleInterval": 30,
            "ProcessType": "Background",
            "LowPriorityIO": True,
            "Nice": 10,
            "StandardErrorPath": str(logs / "coffer-watch.err.log"),
        }
        return plistlib.dumps(data, sort_keys=False)

    def start(self, *, update: bool) -> list[tuple[str, ...]]:
        load = (self.exe, "bootstrap", self.domain, str(self.path))
        if update:
            return [(self.exe, "bootout", f"{self.domain}/{LABEL}"), load]
        return [load]

    def stop(self) -> list[tuple[str, ...]]:
        return [(self.exe, "bootout", f"{self.domain}/{LABEL}")]

    def query(self, run: Runner) -> State | str:
        ran = run((self.exe, "print", f"{self.domain}/{LABEL}"))
        if not ran.ok:
            # Not loaded (launchctl says "Could not find service"), or no session at all.
            domain = run((self.exe, "print", self.domain))
            if not domain.ok:
                return f"launchctl cannot reach your login session: {domain.why()}"
            return State(loaded=False, enabled=False, active=False, detail="not loaded")
        fields = {}
        for line in ran.out.splitlines():
            key, sep, value = line.strip().partition(" = ")
            if sep and key not in fields:
                fields[key] = value.strip()
        pid = fields.get("pid", "")
        state = fields.get("state", "?")
        return State(
            loaded=True,
            enabled=True,  # a loaded agent with RunAtLoad starts at every login
            active=state == "running",
            pid=int(pid) if pid.isdigit() else None,
            detail=state,
        )


# ---- finding one --------------------------------------------------------------------------


def find(environ: Mapping[str, str], platform: str | None = None) -> Manager | str:
    """The manager for this platform with its executable on ``PATH``, or why there is none.
    Cheap: looks at ``PATH`` only, runs nothing."""
    platform = sys.platform if platform is None else platform
    if platform.startswith("linux"):
        cls: type[Manager] = Systemd
        exe_name = "systemctl"
    elif platform == "darwin":
        cls, exe_name = Launchd, "launchctl"
    else:
        return f"coffer knows no service manager on {platform} (systemd on Linux, launchd on macOS)"
    exe = shutil.which(exe_name, path=environ.get("PATH", os.defpath))
    if exe is None:
        return f"no `{exe_name}` on PATH"
    return cls(os.path.abspath(exe), environ)


def by_kind(kind: str, environ: Mapping[str, str]) -> Manager | str:
    """The manager a journal record names (for undo, whatever the platform says now)."""
    exe_name = {"systemd": "systemctl", "launchd": "launchctl"}.get(kind)
    if exe_name is None:
        return f"unknown service manager {kind!r}"
    exe = shutil.which(exe_name, path=environ.get("PATH", os.defpath))
    if exe is None:
        return f"no `{exe_name}` on PATH"
    return (Systemd if kind == "systemd" else Launchd)(os.path.abspath(exe), environ)


def default_log_file(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """Where the watcher started by hand should log."""
    platform = sys.platform if platform is None else platform
    home = home_dir(environ)
    if platform == "darwin":
        return home / "Library" / "Logs" / "coffer-watch.log"
    state = environ.get("XDG_STATE_HOME", "").strip()
    base = Path(state) if state and os.path.isabs(state) else home / ".local" / "state"
    return base / "coffer" / "watch.log"


__all__ = [
    "LABEL",
    "UNIT",
    "Launchd",
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
