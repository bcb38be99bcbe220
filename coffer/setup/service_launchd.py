"""The launchd agent coffer installs on macOS (coffer.setup.service_managers)."""

from __future__ import annotations

import os
import plistlib
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from coffer.setup.service_base import LABEL, Manager, Runner, State


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

    def elsewhere(self) -> list[Path]:
        # launchd.plist(5): agents for every user live in /Library/LaunchAgents.
        return [Path("/Library/LaunchAgents") / f"{LABEL}.plist"]

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
