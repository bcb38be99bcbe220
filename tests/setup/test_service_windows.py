"""The watcher at logon on Windows: the per-user Run key value `coffer setup` writes, run here
on Linux through the platform seam (``SYSTEM = "win32"``) with a fake registry that behaves
as ``winreg`` does, and a fake detached start (coffer/setup/service_winrun.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from coffer.adapter import Launch, registry
from coffer.base import platform
from coffer.projection.journal import Journal, JournalRecord
from coffer.setup import service, service_managers, service_winrun
from coffer.setup.service_base import Ran
from coffer.store import watch_state
from coffer.store.paths import store_root

REG_SZ, REG_EXPAND_SZ = 1, 2
VALUE = "coffer-watch"
SHOWN = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run\coffer-watch"


class FakeRunKey:
    """The Run key as winreg shows it: typed values, FileNotFoundError for a missing one."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[object, int]] = {}

    def get(self, name: str) -> tuple[object, int]:
        if name not in self.values:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        return self.values[name]

    def set(self, name: str, data: object, kind: int) -> None:
        if kind in (REG_SZ, REG_EXPAND_SZ) and not isinstance(data, str):
            raise TypeError("Objects of type 'bytes' can not be used as registry values")
        self.values[name] = (data, kind)

    def delete(self, name: str) -> None:
        if name not in self.values:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        del self.values[name]


@pytest.fixture
def run_key(monkeypatch: pytest.MonkeyPatch, fake_home: Path) -> FakeRunKey:
    # The store and the agents' homes in the user's profile, as on Windows: the Run value
    # writes them from %USERPROFILE% (a pytest temporary path spelled out would not fit).
    monkeypatch.setenv("USERPROFILE", str(fake_home))
    monkeypatch.setenv("COFFER_HOME", str(fake_home / ".coffer"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(fake_home / ".config"))
    key = FakeRunKey()
    monkeypatch.setattr(platform, "SYSTEM", "win32")
    monkeypatch.setattr(service_winrun, "OPEN_KEY", lambda: key)
    return key


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    started: list[list[str]] = []

    def spawn(argv: Sequence[str]) -> Ran:
        started.append(list(argv))
        return Ran(tuple(argv), 0)

    monkeypatch.setattr(service_winrun, "SPAWN", spawn)
    return started


def _no_manager_runs(argv: Sequence[str]) -> Ran:
    raise AssertionError(f"no command should run for a Run value: {argv}")


def _plan(launch: Launch) -> service.ServicePlan:
    env = os.environ
    return service.plan(
        store_root(env), env, registry.load_adapters(), launch, run=_no_manager_runs
    )


def _journal() -> Journal:
    return Journal(store_root(os.environ))


def _records() -> list[JournalRecord]:
    return service.records(_journal())


def command_line_to_argv(line: str) -> list[str]:
    """How CommandLineToArgvW and the C runtime split a command line (2n backslashes before
    a quote are n and the quote toggles quoting; 2n+1 are n and a literal quote)."""
    args: list[str] = []
    current, quoted, started, i = "", False, False, 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            n = len(line[i:]) - len(line[i:].lstrip("\\"))
            if line[i + n : i + n + 1] == '"':
                current += "\\" * (n // 2)
                if n % 2:
                    current += '"'
                    i += 1
                i += n
            else:
                current += "\\" * n
                i += n
            started = True
            continue
        if ch == '"':
            quoted, started = not quoted, True
        elif ch in " \t" and not quoted:
            if started:
                args.append(current)
            current, started = "", False
        else:
            current, started = current + ch, True
        i += 1
    if started:
        args.append(current)
    return args


def test_install_writes_the_run_value_and_starts_the_watcher_detached(
    run_key: FakeRunKey, spawned: list[list[str]]
) -> None:
    launch = Launch(("C:\\coffer\\coffer.exe",), {"COFFER_HOME": os.environ["COFFER_HOME"]})
    the_plan = _plan(launch)
    assert the_plan.manager is not None and the_plan.action == "create"
    report = service.apply(_journal(), the_plan, os.environ, _no_manager_runs)
    assert report.ok, report.problems

    data, kind = run_key.values[VALUE]
    assert kind == REG_SZ and isinstance(data, str)
    argv = command_line_to_argv(data)
    assert argv[:3] == [
        service_winrun.windowless(sys.executable),
        "-m",
        "coffer.setup.service_winrun",
    ]
    assert f"COFFER_HOME=%USERPROFILE%{os.sep}.coffer" in argv
    assert not any(a.startswith("PATH=") for a in argv)  # logon has the user's own PATH
    assert argv[argv.index("--") + 1 :] == ["watch"]  # the log file is found at logon
    assert spawned == [argv]  # started now, exactly as logon will start it
    [record] = _records()
    assert (record.manager, record.path, record.created_file) == ("winrun", SHOWN, True)
    assert [c.action for c in report.changes] == ["create", "start"]

    # Again: nothing to write; the watcher is not running, so it is started.
    again = _plan(launch)
    assert again.action == "start"
    assert service.apply(_journal(), again, os.environ, _no_manager_runs).ok
    assert len(spawned) == 2 and run_key.values[VALUE] == (data, kind)

    assert service.undo(_journal(), os.environ, run=_no_manager_runs).ok
    assert run_key.values == {} and _records() == []


def test_reinstall_while_the_watcher_runs_changes_nothing(
    run_key: FakeRunKey, spawned: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    launch = Launch(("C:\\coffer\\coffer.exe",))
    assert service.apply(_journal(), _plan(launch), os.environ, _no_manager_runs).ok
    # The watcher runs (this process stands in for it: alive by the seam's own check).
    running = {"running": True, "pid": os.getpid(), "store": str(store_root(os.environ))}
    monkeypatch.setattr(watch_state, "read_status", lambda root: dict(running))
    again = _plan(launch)
    assert again.action == ""
    assert again.report.notices == [
        "coffer watch: already runs as a logon entry coffer-watch "
        "(HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run)"
    ]
    info = service.status(store_root(os.environ), os.environ)
    assert (info["manager"], info["file"], info["enabled"], info["active"], info["pid"]) == (
        "winrun",
        "coffer",
        True,
        True,
        os.getpid(),
    )
    assert service.describe(info) == (
        f"Windows logon entry coffer-watch: installed by coffer setup, enabled, running ({SHOWN})"
    )
    assert len(spawned) == 1


def test_undo_restores_a_foreign_value_exactly(
    run_key: FakeRunKey, spawned: list[list[str]]
) -> None:
    foreign = ("%USERPROFILE%\\old tools\\coffer.exe watch", REG_EXPAND_SZ)
    run_key.values[VALUE] = foreign
    the_plan = _plan(Launch(("C:\\coffer\\coffer.exe",)))
    assert the_plan.action == "update"
    assert (
        "the journal keeps it and `coffer setup --undo` puts it back"
        in (the_plan.report.notices[0])
    )
    assert service.apply(_journal(), the_plan, os.environ, _no_manager_runs).ok
    assert run_key.values[VALUE][1] == REG_SZ
    [record] = _records()
    assert record.created_file is False
    assert record.extra["previous"] == {"data": foreign[0], "type": REG_EXPAND_SZ}

    undone = service.undo(_journal(), os.environ, run=_no_manager_runs)
    assert undone.ok
    assert run_key.values == {VALUE: foreign}  # same text, same type
    assert [c.action for c in undone.changes] == ["stop", "restore"]
    assert _records() == []


def test_a_value_changed_by_the_user_is_left_alone_on_undo_and_setup(
    run_key: FakeRunKey, spawned: list[list[str]]
) -> None:
    launch = Launch(("C:\\coffer\\coffer.exe",))
    assert service.apply(_journal(), _plan(launch), os.environ, _no_manager_runs).ok
    mine = ('"C:\\Program Files\\coffer\\coffer.exe" watch --quiet', REG_SZ)
    run_key.values[VALUE] = mine

    refused = service.undo(_journal(), os.environ, run=_no_manager_runs)
    assert [p.state for p in refused.problems] == ["refused"]
    assert "edited since coffer wrote it" in refused.problems[0].message
    assert run_key.values == {VALUE: mine} and len(_records()) == 1

    again = _plan(launch)
    assert again.action == "" and "it was edited since" in again.report.notices[0]
    assert run_key.values == {VALUE: mine}


def test_a_value_removed_by_hand_is_forgotten(
    run_key: FakeRunKey, spawned: list[list[str]]
) -> None:
    assert service.apply(_journal(), _plan(Launch(("C:\\c.exe",))), os.environ).ok
    run_key.values.clear()
    info = service.status(store_root(os.environ), os.environ)
    assert (info["file"], info["active"]) == ("absent", False)
    assert "no Windows logon entry installed" in service.describe(info)
    done = service.undo(_journal(), os.environ, run=_no_manager_runs)
    assert done.ok and _records() == [] and run_key.values == {}


def test_undo_stops_a_running_watcher_with_taskkill(
    run_key: FakeRunKey, spawned: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert service.apply(_journal(), _plan(Launch(("C:\\c.exe",))), os.environ).ok
    running = {"running": True, "pid": os.getpid()}
    monkeypatch.setattr(watch_state, "read_status", lambda root: dict(running))
    ran: list[tuple[str, ...]] = []

    def run(argv: Sequence[str]) -> Ran:
        ran.append(tuple(argv))
        return Ran(tuple(argv), 0)

    assert service.undo(_journal(), os.environ, run=run).ok
    assert ran == [("taskkill", "/PID", str(os.getpid()), "/T", "/F")]
    assert run_key.values == {}

    # A failed stop keeps the value and the record, as a failed `systemctl disable` does.
    assert service.apply(_journal(), _plan(Launch(("C:\\c.exe",))), os.environ).ok
    refused = service.undo(_journal(), os.environ, run=lambda a: Ran(tuple(a), 128, "", "no"))
    assert not refused.ok and VALUE in run_key.values and len(_records()) == 1


def test_no_registry_here_says_so_and_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "SYSTEM", "win32")
    monkeypatch.setattr(service_winrun, "OPEN_KEY", lambda: None)
    assert service_managers.find(os.environ) == "no Windows registry here (winreg)"
    the_plan = _plan(Launch(("C:\\c.exe",)))
    assert the_plan.manager is None and "no Windows registry here" in the_plan.report.notices[0]


@pytest.mark.parametrize(
    "value",
    [
        "C:\\Users\\Jane Doe\\coffer",
        'say "hi"',
        "trailing\\",
        "C:\\dir with space\\",
        "100% & more",
        "it's",
        "",
    ],
)
def test_the_command_line_splits_back_into_the_same_arguments(
    run_key: FakeRunKey, value: str
) -> None:
    m = service_managers.find(os.environ)
    assert isinstance(m, service_winrun.WinRun)
    rendered = m.render(("C:\\c.exe",), {"COFFER_HOME": value}).decode()
    assert command_line_to_argv(rendered) == m.command({"COFFER_HOME": value})


def test_windowless_prefers_pythonw_beside_python(tmp_path: Path) -> None:
    python = tmp_path / "python.exe"
    python.write_bytes(b"")
    assert service_winrun.windowless(str(python)) == str(python)
    (tmp_path / "pythonw.exe").write_bytes(b"")
    assert service_winrun.windowless(str(python)) == str(tmp_path / "pythonw.exe")
    assert service_winrun.windowless(str(tmp_path / "pythonw.exe")) == str(tmp_path / "pythonw.exe")


def test_the_logon_entry_point_sets_the_environment_and_runs_coffer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import coffer.main

    seen: list[tuple[list[str], str | None]] = []
    monkeypatch.setattr(
        coffer.main, "main", lambda: seen.append((list(sys.argv), os.environ.get("COFFER_X")))
    )
    monkeypatch.setattr(sys, "argv", ["x"])
    monkeypatch.delenv("COFFER_X", raising=False)
    service_winrun.main(["COFFER_X=a=b c", "--", "watch", "--log-file", "C:\\l.log"])
    assert [(argv[1:], value) for argv, value in seen] == [
        (["watch", "--log-file", "C:\\l.log"], "a=b c")
    ]
    monkeypatch.delenv("COFFER_X")


# A pipx install under a long user name, as Windows lays it out.
PROFILE = "C:\\Users\\Jürgen Müller-Lüdenscheidt"
LONG_EXE = PROFILE + "\\AppData\\Local\\pipx\\pipx\\venvs\\coffer-memory\\Scripts\\pythonw.exe"
LOGON_ENV = {
    "PATH": ";".join(f"C:\\Program Files\\Tool{i}\\bin" for i in range(30)),
    "APPDATA": PROFILE + "\\AppData\\Roaming",
    "LOCALAPPDATA": PROFILE + "\\AppData\\Local",
    "USERPROFILE": PROFILE,
}


def test_the_run_value_leaves_out_what_logon_has_and_fits(run_key: FakeRunKey) -> None:
    m = service_winrun.WinRun(LONG_EXE, LOGON_ENV, run_key)
    env = {**LOGON_ENV, "COFFER_HOME": PROFILE + "\\.coffer"}
    value = m.render(("C:\\c.exe",), env).decode()
    assert len(value) <= service_winrun.RUN_LIMIT == 260
    argv = command_line_to_argv(value)
    assert argv == [
        LONG_EXE,
        "-m",
        "coffer.setup.service_winrun",
        "COFFER_HOME=%USERPROFILE%\\.coffer",
        "--",
        "watch",
    ]


def test_a_run_value_over_the_limit_is_refused_at_setup(
    run_key: FakeRunKey, spawned: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = PROFILE + "\\" + "\\".join(["very long folder name"] * 9) + "\\pythonw.exe"
    monkeypatch.setattr(service_winrun, "windowless", lambda _exe: deep)
    the_plan = _plan(Launch(("C:\\c.exe",)))
    assert the_plan.manager is None and the_plan.changes() == []
    [problem] = the_plan.report.problems
    assert problem.state == "refused" and "at most 260" in problem.message
    assert "shorter path" in problem.message
    assert service.apply(_journal(), the_plan, os.environ, _no_manager_runs).ok
    assert run_key.values == {} and spawned == [] and _records() == []


def test_the_logon_entry_point_finds_the_log_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import coffer.main

    seen: list[list[str]] = []
    monkeypatch.setattr(coffer.main, "main", lambda: seen.append(list(sys.argv)))
    monkeypatch.setattr(sys, "argv", ["x"])
    monkeypatch.setenv("LOCALAPPDATA", "/local")
    monkeypatch.setenv("USERPROFILE", "/profile")
    monkeypatch.delenv("COFFER_X", raising=False)
    service_winrun.main(["COFFER_X=%USERPROFILE%/.x", "--", "watch"])
    assert [argv[1:] for argv in seen] == [
        ["watch", "--log-file", str(Path("/local/coffer/watch.log"))]
    ]
    assert os.environ.pop("COFFER_X") == "/profile/.x"
