"""macOS privacy controls and the launchd watcher (coffer/setup/service_privacy.py): `coffer
setup` warns about projects under ~/Documents, ~/Desktop, ~/Downloads; the watcher records a
project it may not list; `watch --status` and `adapter list` say what to grant. Run on Linux
through the seam (``SYSTEM = "darwin"``); the denial is a directory made unreadable, or, as
root (where file modes deny nothing), an injected EPERM as macOS raises it."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from coffer.adapter import Launch, registry
from coffer.base import platform
from coffer.setup import service, service_launchd, service_privacy
from coffer.store import watch_state
from coffer.store.paths import store_root
from tests.helpers import coffer, make_repo
from tests.setup import fake_service_managers as fake
from tests.watch.test_daemon import DEADLINE, wait_for


@pytest.fixture
def darwin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "SYSTEM", "darwin")


@contextlib.contextmanager
def denied(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Listing ``path`` fails as macOS's privacy controls make it fail."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    real = os.scandir

    def scandir(p: object = ".") -> object:
        if os.path.abspath(os.fspath(p)) == str(path):  # type: ignore[call-overload]
            raise PermissionError(errno.EPERM, "Operation not permitted", str(p))
        return real(p)  # type: ignore[call-overload]

    with monkeypatch.context() as m:
        m.setattr(os, "scandir", scandir)
        yield


def projected(tmp_path: Path, where: str) -> Path:
    Path(os.environ["CODEX_HOME"]).mkdir(exist_ok=True)
    repo = make_repo(tmp_path / "home" / where / "repo")
    done = coffer("project", "--project", str(repo))
    assert done.returncode == 0, done.stderr
    return repo


def test_protected_folders_are_the_three_tcc_guards(fake_home: Path) -> None:
    assert service_privacy.protected_folder(fake_home / "Documents" / "a", fake_home) == (
        fake_home / "Documents"
    )
    assert service_privacy.protected_folder(fake_home / "Desktop", fake_home) == (
        fake_home / "Desktop"
    )
    assert service_privacy.protected_folder(fake_home / "src" / "Documents", fake_home) is None
    assert service_privacy.protected_folder("/srv/Downloads", fake_home) is None


@pytest.mark.posix_only("POSIX user ids")
def test_a_denied_root_is_found_only_on_macos_and_only_in_protected_folders(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = fake_home / "Documents" / "repo"
    outside = fake_home / "src" / "repo"
    for d in (inside, outside):
        d.mkdir(parents=True)
    roots = [str(inside), str(outside)]
    with denied(inside, monkeypatch):
        assert service_privacy.denied_roots(roots, fake_home) == []  # not macOS: not probed
        monkeypatch.setattr(platform, "SYSTEM", "darwin")
        assert service_privacy.denied_roots(roots, fake_home) == [str(inside)]
    assert service_privacy.denied_roots(roots, fake_home) == []  # granted


@pytest.mark.posix_only("launchd, faked by an executable script on PATH")
def test_setup_warns_before_loading_the_agent(
    tmp_path: Path, darwin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = projected(tmp_path, "Documents")
    projected(tmp_path, "src")
    bindir = tmp_path / "sm" / "bin"
    fake.install(bindir, "launchctl")
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setenv("FAKE_SM_LOG", str(tmp_path / "sm" / "calls"))
    monkeypatch.setenv("FAKE_SM_STATE", str(tmp_path / "sm" / "state.json"))
    monkeypatch.setattr(service_launchd, "_account_home", lambda: str(tmp_path / "home"))
    env = os.environ
    the_plan = service.plan(store_root(env), env, registry.load_adapters(), Launch(("/x/c",)))
    assert the_plan.action == "create"
    exe = os.path.realpath(sys.executable)
    assert the_plan.report.notices == [
        f"coffer watch: macOS may deny the launchd agent access to {repo} (privacy controls "
        "guard ~/Desktop, ~/Documents, ~/Downloads). If `coffer watch --status` says so: "
        "System Settings → Privacy & Security → Full Disk Access (or Files and Folders): "
        f"add {exe}, then restart the watcher"
    ]


def run_watcher_until_watching() -> Callable[[], None]:
    from coffer.store import Store
    from coffer.watch.watcher import Watcher, WatchOptions

    w = Watcher(
        Store.from_environ(os.environ),
        os.environ,
        log=logging.getLogger("test-privacy"),
        options=WatchOptions(poll_interval=0.1),
    )
    t = threading.Thread(target=w.run)
    t.start()

    def stop() -> None:
        w.request_stop()
        t.join(timeout=DEADLINE)
        assert not t.is_alive()

    try:
        wait_for(lambda: _status().get("state") == "watching", "the in-process watcher")
    except BaseException:
        stop()
        raise
    return stop


def _status() -> dict[str, object]:
    return watch_state.read_status(store_root(os.environ))


@pytest.mark.posix_only("POSIX user ids")
def test_the_watcher_records_a_denial_and_the_readers_say_what_to_grant(
    tmp_path: Path, darwin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = projected(tmp_path, "Documents")
    free = projected(tmp_path, "src")
    with denied(repo, monkeypatch):
        stop = run_watcher_until_watching()
        try:
            status = _status()
        finally:
            stop()
    exe = os.path.realpath(sys.executable)
    assert (status["denied"], status["denied_exe"]) == ([str(repo)], exe)
    assert str(free) not in status["denied"]  # type: ignore[operator]
    grant = (
        f"macOS privacy controls deny coffer watch access to {repo}: System Settings → "
        f"Privacy & Security → Full Disk Access (or Files and Folders): add {exe}, then "
        "restart the watcher"
    )
    shown = coffer("watch", "--status")
    assert grant in shown.stdout.splitlines()
    listed = coffer("adapter", "list")
    assert f"  {grant}" in listed.stdout.splitlines()


def test_no_denial_no_words(tmp_path: Path, darwin: None) -> None:
    projected(tmp_path, "Documents")
    stop = run_watcher_until_watching()
    stop()
    assert _status()["denied"] == []
    assert "privacy" not in coffer("watch", "--status").stdout
