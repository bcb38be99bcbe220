"""The watcher at logon on Windows: a value in the per-user Run key (coffer.setup.service_managers).

``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run`` needs no administrator rights and
no service manager: Explorer starts every command line there when the user logs on. coffer
writes one value, ``coffer-watch``, whose data starts the watcher through ``pythonw.exe`` (no
console window), journaled like a unit file by coffer.setup.service; a value someone else
wrote under that name is kept in the journal and put back on undo. "Starting" is a detached
process, "stopping" is ``taskkill`` on the pid the watcher's status file names.

Registry access goes through ``RunKey``, so the Windows branch runs in tests on Linux with a
fake registry; the real one imports ``winreg`` only when asked (docs/adr/0057).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, cast

from coffer.base import platform as seam
from coffer.setup.service_base import DoesNotFit, Manager, Ran, Runner, State
from coffer.store.paths import home_dir

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
VALUE = "coffer-watch"
REG_SZ = 1  # winreg.REG_SZ, the type coffer writes (a plain command line)
_SEP = "--"  # the environment pairs stop here: what follows is coffer's argv
# "A command line no longer than 260 characters" (Microsoft, Run and RunOnce Registry Keys).
RUN_LIMIT = 260
# What the logon environment has of its own (the user's profile and registry environment):
# never carried in the value, which has no room for a PATH and its like.
LOGON_HAS = frozenset(
    {"PATH", "PATHEXT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "HOMEDRIVE", "HOMEPATH"}
    | {"USERNAME", "USERDOMAIN", "TEMP", "TMP", "SYSTEMROOT", "WINDIR", "COMSPEC", "PUBLIC"}
    | {"PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "ALLUSERSPROFILE"}
)
# A carried value below one of these folders is written from it (``%USERPROFILE%\.codex``)
# and expanded again at logon: the user's profile path, often long, is not spelled out
# twice. Innermost first, so the longest prefix is used.
_LOGON_ROOTS = ("LOCALAPPDATA", "APPDATA", "USERPROFILE")


class RunKey(Protocol):
    """The per-user Run key, one value at a time, as ``winreg`` behaves: a missing value
    raises FileNotFoundError."""

    # the value's data and type (winreg.REG_SZ, REG_EXPAND_SZ, ...)
    def get(self, name: str) -> tuple[object, int]: ...
    # create or replace the value
    def set(self, name: str, data: object, kind: int) -> None: ...
    # remove the value
    def delete(self, name: str) -> None: ...


if sys.platform == "win32":
    import winreg

    class WinregRunKey:
        """The real Run key of the user running coffer."""

        def get(self, name: str) -> tuple[object, int]:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                data, kind = winreg.QueryValueEx(key, name)
            return data, kind

        def set(self, name: str, data: object, kind: int) -> None:
            # Whatever QueryValueEx returned for this kind goes back as it came.
            value = cast("int | str | list[str] | bytes | None", data)
            access = winreg.KEY_SET_VALUE
            with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, access) as key:
                winreg.SetValueEx(key, name, 0, kind, value)

        def delete(self, name: str) -> None:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as k:
                winreg.DeleteValue(k, name)

    def _real_key() -> RunKey | None:
        return WinregRunKey()

else:

    def _real_key() -> RunKey | None:
        return None  # no registry here (a simulated Windows in tests patches OPEN_KEY)


# Switches the tests patch: where the Run key comes from, and how a detached process starts.
OPEN_KEY: Callable[[], RunKey | None] = _real_key


def _spawn(argv: Sequence[str]) -> Ran:
    # Neither a console window nor a tie to this console: the watcher outlives `coffer setup`.
    # Both flags exist only on Windows (0 elsewhere, where Popen refuses any other value).
    flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
        subprocess, "CREATE_NEW_PROCESS_GROUP", 0
    )
    try:
        subprocess.Popen(
            list(argv),
            creationflags=flags,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
    except OSError as exc:
        return Ran(tuple(argv), 127, "", str(exc))
    return Ran(tuple(argv), 0)


SPAWN: Callable[[Sequence[str]], Ran] = _spawn


def log_file(environ: Mapping[str, str]) -> Path:
    """Where the watcher logs on Windows: the user's local application data."""
    local = environ.get("LOCALAPPDATA", "").strip()
    base = Path(local) if local else home_dir(environ) / "AppData" / "Local"
    return base / "coffer" / "watch.log"


def windowless(executable: str) -> str:
    """``pythonw.exe`` beside ``python.exe`` when there is one: it opens no console."""
    folder, name = os.path.split(executable)
    stem, ext = os.path.splitext(name)
    if stem.lower().startswith("python") and not stem.lower().startswith("pythonw"):
        candidate = os.path.join(folder, "pythonw" + stem[len("python") :] + ext)
        if os.path.isfile(candidate):
            return candidate
    return executable


class WinRun(Manager):
    kind = "winrun"
    name = VALUE
    replaces_foreign = True

    def __init__(self, exe: str, environ: Mapping[str, str], key: RunKey) -> None:
        super().__init__(exe, environ)
        self.key = key
        self.env: Mapping[str, str] = {}  # what the last render carried, to start it now

    @classmethod
    def here(cls, environ: Mapping[str, str]) -> Manager | str:
        key = OPEN_KEY()
        if key is None:
            return "no Windows registry here (winreg)"
        return cls(windowless(sys.executable), environ, key)

    @property
    def path(self) -> Path:
        # Not a file: what the user sees in reports, and the journal's key.
        return Path(f"HKCU\\{RUN_KEY}\\{VALUE}")

    def describe(self) -> str:
        return f"logon entry {VALUE} (HKCU\\{RUN_KEY})"

    def log_hint(self) -> str:
        return f"type {subprocess.list2cmdline([str(log_file(self.environ))])}"

    def unreachable(self, run: Runner) -> str | None:
        return None  # the user's own hive is always writable by the user

    def prepare(self) -> list[str]:
        return []

    def command(self, env: Mapping[str, str]) -> list[str]:
        """The argv the Run value holds: this module sets the environment the watcher needs
        that logon does not give it (a logon process sees only the user's registry
        environment), then runs ``coffer watch``, logging where :func:`main` finds at logon."""
        pairs = [
            f"{k}={self._from_root(v)}"
            for k, v in sorted(env.items())
            if k.upper() not in LOGON_HAS
        ]
        return [self.exe, "-m", __name__, *pairs, _SEP, "watch"]

    def _from_root(self, value: str) -> str:
        for name in _LOGON_ROOTS:
            root = self.environ.get(name, "").rstrip("\\/")
            if root and value.startswith(root) and value[len(root) : len(root) + 1] in "\\/":
                return f"%{name}%{value[len(root) :]}"
        return value

    def render(self, argv: Sequence[str], env: Mapping[str, str]) -> bytes:
        self.env = env
        # CommandLineToArgvW / the C runtime split it back into exactly these arguments.
        line = subprocess.list2cmdline(self.command(env))
        if len(line) > RUN_LIMIT:
            raise DoesNotFit(
                f"its logon command would be {len(line)} characters, and Windows runs a Run "
                f"value of at most {RUN_LIMIT}: {line}. Install coffer at a shorter path "
                "(pipx or uv with a short home), or unset the variables it carries"
            )
        return line.encode("utf-8")

    # ---- the definition is a registry value -------------------------------------------

    def _get(self) -> tuple[object, int] | None:
        try:
            return self.key.get(VALUE)
        except FileNotFoundError:
            return None

    def read(self) -> bytes | None:
        got = self._get()
        if got is None:
            return None
        data, kind = got
        text = data if isinstance(data, str) else repr(data)
        # Another type (REG_EXPAND_SZ, ...) is another definition, even with the same text.
        return text.encode("utf-8") if kind == REG_SZ else f"{kind}:{text}".encode()

    def write(self, data: bytes, mode: int) -> None:
        self.key.set(VALUE, data.decode("utf-8"), REG_SZ)

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.key.delete(VALUE)

    def previous(self) -> Mapping[str, object]:
        got = self._get()
        if got is None:
            return {}
        data, kind = got
        return {"data": data, "type": kind}

    def restore(self, previous: Mapping[str, object]) -> None:
        kind = previous.get("type")
        if not isinstance(kind, int):
            self.remove()
            return
        self.key.set(VALUE, previous.get("data"), kind)

    # ---- starting and stopping: a detached process, taskkill ---------------------------

    def _watcher_pid(self) -> int | None:
        from coffer.store import watch_state
        from coffer.store.paths import store_root

        status = watch_state.read_status(store_root(self.environ))
        pid = status.get("pid")
        if status.get("running") and isinstance(pid, int) and seam.process_alive(pid):
            return pid
        return None

    def start(self, *, update: bool) -> list[tuple[str, ...]]:
        # `update` stops the watcher running the old command line first.
        launch = tuple(self.command(self.env))
        return [*(self.stop() if update else []), launch]

    def stop(self) -> list[tuple[str, ...]]:
        pid = self._watcher_pid()
        # /F: a windowless process has no window to receive taskkill's polite WM_CLOSE.
        return [] if pid is None else [("taskkill", "/PID", str(pid), "/T", "/F")]

    def execute(self, run: Runner, argv: Sequence[str]) -> Ran:
        if tuple(argv[:3]) == (self.exe, "-m", __name__):
            return SPAWN(argv)
        return run(argv)

    def query(self, run: Runner) -> State | str:
        installed = self._get() is not None
        pid = self._watcher_pid()
        return State(
            loaded=installed,
            enabled=installed,
            active=pid is not None,
            pid=pid,
            detail="running" if pid is not None else "not running",
        )


def main(argv: Sequence[str]) -> None:
    """``pythonw -m coffer.setup.service_winrun K=V ... -- watch ...``: what logon runs."""
    args = list(argv)
    cut = args.index(_SEP) if _SEP in args else 0
    for pair in args[:cut]:
        name, _, value = pair.partition("=")
        for root in _LOGON_ROOTS:  # written from a logon folder by WinRun.command
            if value.startswith(f"%{root}%") and os.environ.get(root):
                value = os.environ[root] + value[len(root) + 2 :]
                break
        os.environ[name] = value
    import runpy

    rest = args[cut + 1 :]
    if rest == ["watch"]:  # found here, at logon: the Run value has no room for the path
        rest += ["--log-file", str(log_file(os.environ))]
    sys.argv = ["coffer", *rest]
    runpy.run_module("coffer", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
