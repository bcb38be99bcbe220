"""`coffer setup` runs `coffer watch` as a user service; `--undo` stops and removes it exactly;
`coffer watch --status` and `coffer adapter list` say whether it runs. The service managers
are fakes first on PATH (tests/setup/fake_service_managers.py) that record every call."""

from __future__ import annotations

import json
import os
import plistlib
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from coffer.adapter import Launch, registry
from coffer.projection.journal import Journal, JournalRecord
from coffer.setup import launch, service, service_launchd, service_managers
from coffer.store import watch_state
from coffer.store.paths import store_root
from coffer.testing import snapshot
from tests.helpers import coffer, make_repo
from tests.setup import fake_service_managers as fake

# systemd and launchd, faked by executable scripts first on PATH; Windows has the Run key
# instead (tests/setup/test_service_windows.py).
pytestmark = pytest.mark.posix_only("systemd and launchd, faked by executable scripts")

UNIT = "coffer-watch.service"
SHOW = ["--user", "show", UNIT, "--property=LoadState,ActiveState,SubState,UnitFileState,MainPID"]
UNIT_PATH = ["--user", "show", "--property=UnitPath"]


@pytest.fixture
def sm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only the fakes; returns the call log."""
    bindir = tmp_path / "sm" / "bin"
    fake.install(bindir, "systemctl")
    fake.install(bindir, "launchctl")
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setenv("FAKE_SM_LOG", str(tmp_path / "sm" / "calls"))
    monkeypatch.setenv("FAKE_SM_STATE", str(tmp_path / "sm" / "state.json"))
    return tmp_path / "sm" / "calls"


def unit_path() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / UNIT


def outside(tmp_path: Path) -> dict[str, object]:
    """Everything coffer may touch outside its store: the home and the config home."""
    return {
        **snapshot(tmp_path / "home", tmp_path / "none"),
        **{f"xdg/{k}": v for k, v in snapshot(tmp_path / "xdg_config_home", tmp_path).items()},
    }


def service_records() -> list[JournalRecord]:
    return service.records(Journal(store_root(os.environ)))


def expected_launch() -> Launch:
    # What `python -m coffer` resolves itself to: the console script beside the interpreter.
    return launch.resolve_launch(
        os.environ, store_root(os.environ), argv0="-m", executable=sys.executable
    )


def test_setup_installs_and_starts_the_unit_and_undo_removes_it_exactly(
    tmp_path: Path, sm: Path
) -> None:
    (tmp_path / "xdg_config_home").mkdir()
    before = outside(tmp_path)

    done = coffer("setup", "--yes")
    assert done.returncode == 0, done.stderr
    assert fake.calls(sm) == [
        UNIT_PATH,
        SHOW,
        ["--user", "daemon-reload"],
        ["--user", "enable", "--now", UNIT],
    ]
    assert f"created {unit_path()}: coffer watch as a systemd user service" in done.stdout
    assert "started " in done.stdout and "systemctl --user enable --now coffer-watch" in done.stdout
    assert "journalctl --user -u coffer-watch" in done.stdout

    text = unit_path().read_text()
    coffer_bin = expected_launch().argv[0]
    assert Path(coffer_bin).is_absolute()
    assert f'\nExecStart="{coffer_bin}" "watch"\n' in text
    # The service sees the store and the agents' directories as this shell does.
    assert f'Environment="COFFER_HOME={os.environ["COFFER_HOME"]}"' in text
    assert f'Environment="CODEX_HOME={os.environ["CODEX_HOME"]}"' in text
    assert f'Environment="CLAUDE_CONFIG_DIR={os.environ["CLAUDE_CONFIG_DIR"]}"' in text
    assert f'Environment="PATH={os.environ["PATH"]}"' in text
    assert "WantedBy=default.target" in text
    assert (unit_path().parent / "default.target.wants" / UNIT).is_symlink()
    [record] = service_records()
    assert record.path == str(unit_path()) and record.manager == "systemd"

    status = coffer("watch", "--status")
    assert status.returncode == 3  # the fake manager runs nothing: no daemon holds the lock
    assert (
        f"service: systemd user service {UNIT}: installed by coffer setup, enabled, "
        f"active (running) ({unit_path()})" in status.stdout
    )
    data = json.loads(coffer("watch", "--status", "--json").stdout)
    assert data["running"] is False
    assert data["service"] == {
        "manager": "systemd",
        "name": UNIT,
        "path": str(unit_path()),
        "file": "coffer",
        "reachable": True,
        "problem": None,
        "enabled": True,
        "active": True,
        "pid": 4201,
        "state": "active (running)",
    }
    listed = coffer("adapter", "list", "--json")
    assert json.loads(listed.stdout)["watch"]["service"]["active"] is True
    assert json.loads(listed.stdout)["watch"]["running"] is False
    text_list = coffer("adapter", "list").stdout
    assert f"watch: not running; service: systemd user service {UNIT}: installed" in text_list

    # Again: nothing to write, nothing to start.
    sm.unlink()
    again = coffer("setup", "--yes")
    assert again.returncode == 0, again.stderr
    assert "coffer watch: already runs as a systemd user service" in again.stdout
    assert fake.calls(sm) == [UNIT_PATH, SHOW]

    sm.unlink()
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stderr
    assert fake.calls(sm) == [
        SHOW,
        ["--user", "disable", "--now", UNIT],
        ["--user", "daemon-reload"],
    ]
    assert f"stopped {unit_path()}" in undone.stdout
    assert f"removed {unit_path()}" in undone.stdout
    assert outside(tmp_path) == before  # the unit, the .wants link and directories are gone
    assert service_records() == []
    assert "no systemd user service installed" in coffer("watch", "--status").stdout


def test_dry_run_shows_the_unit_and_the_commands_and_changes_nothing(
    tmp_path: Path, sm: Path
) -> None:
    before = outside(tmp_path)
    shown = coffer("setup", "--dry-run")
    assert shown.returncode == 0, shown.stderr
    assert f"would create {unit_path()}: run coffer watch as a systemd user service" in shown.stdout
    assert "systemctl --user daemon-reload; systemctl --user enable --now coffer-watch" in (
        shown.stdout
    )
    assert '+ExecStart="' in shown.stdout
    assert fake.calls(sm) == [UNIT_PATH, SHOW]  # read-only questions only
    assert outside(tmp_path) == before
    assert service_records() == []


def test_no_service_and_undo_dry_run(tmp_path: Path, sm: Path) -> None:
    skipped = coffer("setup", "--yes", "--no-service")
    assert skipped.returncode == 0, skipped.stderr
    assert fake.calls(sm) == [] and not unit_path().exists()
    assert "coffer watch" not in skipped.stdout

    assert coffer("setup", "--yes").returncode == 0
    sm.unlink()
    shown = coffer("setup", "--undo", "--dry-run")
    assert shown.returncode == 0, shown.stderr
    assert (
        f"would stop {unit_path()}: systemd user service {UNIT} "
        "(systemctl --user disable --now coffer-watch.service)"
    ) in shown.stdout
    assert f"would remove {unit_path()}: the service file coffer created" in shown.stdout
    assert "-WantedBy=default.target" in shown.stdout
    assert fake.calls(sm) == []
    kept = coffer("setup", "--undo", "--no-service")
    assert kept.returncode == 0, kept.stderr
    assert fake.calls(sm) == [] and unit_path().is_file() and len(service_records()) == 1


def test_no_reachable_manager_says_how_to_run_the_watcher_and_journals_nothing(
    tmp_path: Path, sm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SM_NOBUS", "1")
    done = coffer("setup", "--yes", "--agent", "codex")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "coffer watch: no service manager is reachable here" in out
    assert "Failed to connect to bus: No medium found" in out
    log = Path(os.environ["XDG_STATE_HOME"]) / "coffer" / "watch.log"
    assert f"nohup {expected_launch().argv[0]} watch --log-file {log} >/dev/null 2>&1 &" in out
    assert f"COFFER_HOME={os.environ['COFFER_HOME']} nohup" in out
    assert fake.calls(sm) == [UNIT_PATH]
    assert not unit_path().exists()
    assert service_records() == []
    assert (Path(os.environ["CODEX_HOME"]) / "config.toml").is_file()  # the rest was done

    status = coffer("watch", "--status")
    assert status.returncode == 3
    # Nothing is installed: a file read says so, the manager is not asked (ADR 0023).
    assert "service: no systemd user service installed" in status.stdout
    assert "run it yourself: " in status.stdout and "nohup" in status.stdout
    assert coffer("setup", "--undo").returncode == 0


def test_status_asks_the_manager_only_when_a_unit_file_exists_somewhere(
    tmp_path: Path, sm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing installed: `watch --status` and `adapter list` read files, run no systemctl.
    status = coffer("watch", "--status")
    assert status.returncode == 3
    assert "service: no systemd user service installed (`coffer setup` installs one" in (
        status.stdout
    )
    assert "run it yourself: " in status.stdout
    assert coffer("adapter", "list").returncode in (0, 1)
    assert fake.calls(sm) == []
    # A unit in another directory systemd reads (installed by hand): the manager is asked.
    data_home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    (data_home / "systemd" / "user").mkdir(parents=True)
    (data_home / "systemd" / "user" / UNIT).write_text("[Service]\nExecStart=/bin/true\n")
    coffer("watch", "--status")
    assert fake.calls(sm) == [SHOW]


def test_no_systemctl_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    done = coffer("setup", "--yes")
    assert done.returncode == 0, done.stderr
    assert "no service manager is reachable here (no `systemctl` on PATH)" in done.stdout
    assert "watch --log-file" in done.stdout
    assert service_records() == []
    data = json.loads(coffer("watch", "--status", "--json").stdout)["service"]
    assert data["manager"] is None and "nohup" in data["instead"]


def test_a_manager_that_does_not_read_our_unit_directory_is_not_used(
    tmp_path: Path, sm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SM_UNITPATH", "/home/someone/.config/systemd/user /etc/systemd/user")
    done = coffer("setup", "--yes")
    assert done.returncode == 0, done.stderr
    assert f"does not read units from {unit_path().parent}" in done.stdout
    assert fake.calls(sm) == [UNIT_PATH]
    assert not unit_path().exists()


def test_a_unit_coffer_did_not_write_is_left_alone(tmp_path: Path, sm: Path) -> None:
    unit_path().parent.mkdir(parents=True)
    mine = b"[Service]\nExecStart=/home/me/bin/coffer watch --verbose\n"
    unit_path().write_bytes(mine)
    done = coffer("setup", "--yes")
    assert done.returncode == 0, done.stderr
    assert f"left {unit_path()} alone: coffer did not write it" in done.stdout
    assert unit_path().read_bytes() == mine
    assert fake.calls(sm) == [UNIT_PATH]
    assert service_records() == []
    assert "not written by coffer" in coffer("watch", "--status").stdout
    assert coffer("setup", "--undo").returncode == 0
    assert unit_path().read_bytes() == mine


def test_an_edited_unit_is_neither_stopped_nor_removed(tmp_path: Path, sm: Path) -> None:
    assert coffer("setup", "--yes").returncode == 0
    edited = unit_path().read_text().replace("Nice=10", "Nice=5")
    unit_path().write_text(edited)
    sm.unlink()
    refused = coffer("setup", "--undo")
    assert refused.returncode == 1
    assert "edited since coffer wrote it" in refused.stderr
    assert fake.calls(sm) == []
    assert unit_path().read_text() == edited
    assert len(service_records()) == 1
    assert "installed by coffer setup, edited since" in coffer("watch", "--status").stdout
    # The agents' part of the undo is not held up by it; --undo --agent leaves the service.
    assert coffer("setup", "--undo", "--agent", "codex").returncode == 0
    assert len(service_records()) == 1


def test_a_unit_removed_by_hand_is_forgotten(tmp_path: Path, sm: Path) -> None:
    assert coffer("setup", "--yes").returncode == 0
    unit_path().unlink()
    sm.unlink()
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stderr
    assert "already gone" in undone.stdout
    assert fake.calls(sm) == [["--user", "daemon-reload"]]
    assert service_records() == []


def test_status_tells_the_services_daemon_from_one_started_by_hand(
    tmp_path: Path, sm: Path
) -> None:
    root = store_root(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "coffer", "watch", "--log-file", str(tmp_path / "watch.log")],
        env=os.environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while watch_state.read_status(root).get("pid") != proc.pid or not watch_state.lock_held(
            root
        ):
            assert proc.poll() is None and time.monotonic() < deadline, "the daemon did not start"
            time.sleep(0.05)
        done = coffer("setup", "--yes")
        assert done.returncode == 0, done.stderr
        assert f"coffer watch already runs outside the service (pid {proc.pid})" in done.stdout
        assert "systemctl --user restart coffer-watch.service" in done.stdout
        by_hand = coffer("watch", "--status")
        assert by_hand.returncode == 0
        assert "active (running)" in by_hand.stdout
        assert "this daemon is the service's process" not in by_hand.stdout

        # The service manager now reports this very process as the service's.
        state = Path(os.environ["FAKE_SM_STATE"])
        data = json.loads(state.read_text())
        data["active"][UNIT] = proc.pid
        state.write_text(json.dumps(data))
        shown = coffer("watch", "--status")
        assert shown.returncode == 0
        assert "this daemon is the service's process" in shown.stdout
        listed = coffer("adapter", "list").stdout
        assert f"watch: running (pid {proc.pid}); service: systemd user service {UNIT}" in listed
        watch = json.loads(coffer("adapter", "list", "--json").stdout)["watch"]
        assert (watch["running"], watch["pid"], watch["service"]["pid"]) == (
            True,
            proc.pid,
            proc.pid,
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_undo_without_a_reachable_manager_keeps_the_unit_and_the_record(
    tmp_path: Path, sm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert coffer("setup", "--yes").returncode == 0
    installed = unit_path().read_bytes()
    repo = make_repo(tmp_path / "repo")
    assert coffer("project", cwd=repo).returncode == 0
    assert coffer("unproject", "--all", cwd=repo).returncode == 0  # not unproject's to undo
    assert unit_path().read_bytes() == installed and len(service_records()) == 1

    monkeypatch.setenv("FAKE_SM_NOBUS", "1")
    refused = coffer("setup", "--undo")
    assert refused.returncode == 1
    assert "cannot stop the service: `systemctl --user`: Failed to connect to bus" in (
        refused.stderr
    )
    assert unit_path().read_bytes() == installed and len(service_records()) == 1
    monkeypatch.delenv("FAKE_SM_NOBUS")
    assert coffer("setup", "--undo").returncode == 0
    assert not unit_path().exists() and service_records() == []


# ---- in-process: updates, failures, launchd ------------------------------------------------


def _plan(launch: Launch, platform: str | None = None) -> service.ServicePlan:
    env = os.environ
    return service.plan(store_root(env), env, registry.load_adapters(), launch, platform=platform)


def test_a_new_coffer_location_updates_and_restarts_the_unit(tmp_path: Path, sm: Path) -> None:
    before = outside(tmp_path)
    journal = Journal(store_root(os.environ))
    first = _plan(Launch(("/old/bin/coffer",)))
    assert first.action == "create"
    assert service.apply(journal, first, os.environ).ok
    second = _plan(Launch(("/new/bin/coffer",)))
    assert second.action == "update"
    assert [c.action for c in second.changes()] == ["update"]
    assert '-ExecStart="/old/bin/coffer"' in second.changes()[0].diff
    sm.unlink()
    assert service.apply(journal, second, os.environ).ok
    assert fake.calls(sm) == [
        ["--user", "daemon-reload"],
        ["--user", "enable", UNIT],
        ["--user", "restart", UNIT],
    ]
    assert 'ExecStart="/new/bin/coffer" "watch"' in unit_path().read_text()
    assert service.undo(journal, os.environ).ok
    assert outside(tmp_path) == before  # the first record's "created" survives the update


def test_a_stopped_service_is_started_again(tmp_path: Path, sm: Path) -> None:
    journal = Journal(store_root(os.environ))
    launch = Launch(("/x/coffer",))
    assert service.apply(journal, _plan(launch), os.environ).ok
    run = service_managers.runner(os.environ)
    assert run(("systemctl", "--user", "stop", UNIT)).ok
    again = _plan(launch)
    assert again.action == "start"
    assert [c.line(planned=True) for c in again.changes()] == [
        f"would start {unit_path()}: systemd user service {UNIT} (installed, not running): "
        "systemctl --user daemon-reload; systemctl --user enable --now coffer-watch.service"
    ]
    assert service.apply(journal, again, os.environ).ok
    assert service.status(store_root(os.environ), os.environ)["active"] is True


def test_a_failed_start_is_reported_and_undo_still_removes_the_unit(
    tmp_path: Path, sm: Path
) -> None:
    before = outside(tmp_path)
    journal = Journal(store_root(os.environ))
    real = service_managers.runner(os.environ)

    def refuse_enable(argv: Sequence[str]) -> service_managers.Ran:
        args = tuple(argv)
        if "enable" in args:
            return service_managers.Ran(args, 1, "", "Failed to enable unit: Access denied\n")
        return real(args)

    report = service.apply(journal, _plan(Launch(("/x/coffer",))), os.environ, refuse_enable)
    assert [p.message for p in report.problems] == [
        "`systemctl --user enable --now coffer-watch.service` failed: "
        "Failed to enable unit: Access denied"
    ]
    assert unit_path().is_file() and len(service_records()) == 1
    assert service.undo(journal, os.environ).ok
    assert outside(tmp_path) == before


def test_systemd_quoting_of_odd_paths_and_values() -> None:
    m = service_managers.Systemd("/usr/bin/systemctl", {"HOME": "/h"})
    text = m.render(["/opt/my tools/co%ffer$1"], {"A": 'say "hi" \\ 100%'}).decode()
    assert '\nExecStart="/opt/my tools/co%%ffer$$1" "watch"\n' in text
    assert '\nEnvironment="A=say \\"hi\\" \\\\ 100%%"\n' in text


def test_launchd_agent_install_status_and_undo(
    tmp_path: Path, sm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setattr(service_launchd, "_account_home", lambda: str(home))
    before = outside(tmp_path)
    journal = Journal(store_root(os.environ))
    domain = f"gui/{os.getuid()}"
    plist = home / "Library" / "LaunchAgents" / "dev.coffer.watch.plist"

    launch = Launch(("/Users/me/.local/bin/coffer",), {"COFFER_HOME": os.environ["COFFER_HOME"]})
    the_plan = _plan(launch, platform="darwin")
    assert the_plan.action == "create"
    assert service.apply(journal, the_plan, os.environ).ok
    assert fake.calls(sm) == [
        ["print", domain],
        ["print", f"{domain}/dev.coffer.watch"],
        ["print", domain],
        ["bootstrap", domain, str(plist)],
    ]
    data = plistlib.loads(plist.read_bytes())
    log = str(home / "Library" / "Logs" / "coffer-watch.log")
    assert data["Label"] == "dev.coffer.watch"
    assert data["ProgramArguments"] == ["/Users/me/.local/bin/coffer", "watch", "--log-file", log]
    assert data["EnvironmentVariables"]["COFFER_HOME"] == os.environ["COFFER_HOME"]
    assert data["RunAtLoad"] is True

    info = service.status(store_root(os.environ), os.environ, platform="darwin")
    assert (info["manager"], info["file"], info["active"], info["pid"]) == (
        "launchd",
        "coffer",
        True,
        501,
    )
    assert service.describe(info) == (
        f"launchd agent dev.coffer.watch: installed by coffer setup, enabled, running ({plist})"
    )

    sm.unlink()
    assert service.undo(journal, os.environ).ok
    assert fake.calls(sm) == [
        ["print", f"{domain}/dev.coffer.watch"],
        ["bootout", f"{domain}/dev.coffer.watch"],
    ]
    assert outside(tmp_path) == before
    assert service_records() == []


def test_launchd_refuses_a_home_that_is_not_the_accounts(tmp_path: Path, sm: Path) -> None:
    # HOME is the test's fake home, not this account's: launchd would never load the agent.
    the_plan = _plan(Launch(("/x/coffer",)), platform="darwin")
    assert the_plan.manager is None
    assert "is not your account's home" in the_plan.report.notices[0]
    assert "Library/Logs/coffer-watch.log" in the_plan.report.notices[0]


def test_other_platforms_say_which_managers_coffer_knows(tmp_path: Path) -> None:
    found = service_managers.find({"PATH": ""}, "freebsd14")
    assert found == (
        "coffer knows no service manager on freebsd14 (systemd on Linux, launchd on macOS, "
        "the Run key on Windows)"
    )


def test_a_service_manager_answering_in_another_code_page_is_read(tmp_path: Path) -> None:
    # reg and taskkill answer in the system's code page: undecodable bytes are replaced.
    run = service_managers.runner(os.environ)
    code = "import sys; sys.stdout.buffer.write(b'Zugriff verweigert: J\\x81rgen\\xff')"
    ran = run((sys.executable, "-c", code))
    assert ran.ok and ran.out.startswith("Zugriff verweigert: J") and ran.out.endswith("rgen\ufffd")
