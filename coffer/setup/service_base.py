"""What every service manager coffer drives has: the runner all their commands go through,
the state a query returns, and the ``Manager`` interface (coffer.setup.service_managers
names the two there are)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from coffer.base import fsutil
from coffer.base.errors import CofferError
from coffer.store.paths import home_dir

UNIT = "coffer-watch.service"
LABEL = "dev.coffer.watch"
TIMEOUT = 20.0  # seconds for one systemctl/launchctl call (enable --now waits for the start)


class DoesNotFit(CofferError):
    """The service definition cannot hold this command (Windows' Run value, 260 characters):
    setup installs nothing and says why and what to do instead."""


class Ran(NamedTuple):
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
        import subprocess  # only when a manager is really asked (not for a plain status)

        try:
            done = subprocess.run(
                list(argv),
                capture_output=True,
                text=True,
                # reg, taskkill and launchctl answer in the system's code page, whatever
                # the user's name holds: replaced where undecodable, never a crash.
                errors="replace",
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


class State(NamedTuple):
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
    # Whether a definition coffer did not write may be replaced, its previous value kept in
    # the journal and put back on undo (a registry value has no ".legacy" place beside it).
    replaces_foreign = False

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

    # ---- the service's definition: a file, unless a manager keeps it elsewhere ----------

    def prepare(self) -> list[str]:
        """Create what the definition's place needs; return the directories made (undo
        removes them)."""
        from coffer.projection.common import ensure_parent

        return ensure_parent(self.path)

    def read(self) -> bytes | None:
        return fsutil.read_bytes_or_none(self.path)

    def write(self, data: bytes, mode: int) -> None:
        fsutil.atomic_write_bytes(self.path, data, mode=mode)

    def remove(self) -> None:
        fsutil.unlink(self.path)

    def previous(self) -> Mapping[str, object]:
        """What undo needs to put a foreign definition back (``replaces_foreign`` only)."""
        raise NotImplementedError

    def restore(self, previous: Mapping[str, object]) -> None:
        raise NotImplementedError

    def execute(self, run: Runner, argv: Sequence[str]) -> Ran:
        """Run one of this manager's commands (a manager may start a process instead)."""
        return run(argv)

    def elsewhere(self) -> list[Path]:
        """Other files the manager would load this service from (installed by hand or by
        the system): when none exists and ours is absent, nothing is installed and the
        status needs no call to the manager."""
        return []

    def side_dirs(self) -> list[Path]:
        """Directories starting the service may create (undo removes them when empty)."""
        return []

    def query(self, run: Runner) -> State | str:
        """The service's state, or why the manager could not be asked."""
        raise NotImplementedError
