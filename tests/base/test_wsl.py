"""WSL: detection through the seam, agents found on the Windows side, and repositories on a
Windows drive. Run on this Linux host with the seam patched and a fake ``/mnt`` (no WSL here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from coffer.adapter import registry, wsl
from coffer.base import wsl as wsl_seam
from coffer.cli import reading, upkeep
from coffer.cli import setup as setup_cli
from coffer.projection import checkup


@pytest.fixture
def mnt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """WSL, with Windows' drives mounted at a fake ``/mnt``."""
    root = tmp_path / "mnt"
    (root / "c" / "Users").mkdir(parents=True)
    monkeypatch.setattr(wsl_seam, "WSL", True)
    monkeypatch.setattr(wsl_seam, "WINDOWS_MOUNTS", str(root))
    return root


@pytest.mark.parametrize(
    ("release", "distro", "expected"),
    [
        ("5.15.153.1-microsoft-standard-WSL2\n", "", True),
        ("4.4.0-19041-Microsoft\n", "", True),  # WSL 1
        ("6.8.0-45-generic\n", "", False),
        ("6.8.0-45-generic\n", "Ubuntu", True),
        (None, "", False),  # no /proc (a container without it)
    ],
)
def test_wsl_is_probed_from_the_kernel_release_or_the_distro_variable(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    release: str | None,
    distro: str,
    expected: bool,
) -> None:
    osrelease = tmp_path / "osrelease"
    if release is not None:
        osrelease.write_text(release)
    monkeypatch.setattr(wsl_seam, "WSL", None)
    monkeypatch.setattr(wsl_seam, "OSRELEASE", str(osrelease))
    monkeypatch.delenv("WSL_DISTRO_NAME", raising=False)
    monkeypatch.delenv(wsl_seam.OVERRIDE_VAR)  # set to "0" for every test (tests/conftest.py)
    if distro:
        monkeypatch.setenv("WSL_DISTRO_NAME", distro)
    assert wsl_seam.in_wsl() is expected


@pytest.mark.parametrize(
    ("override", "release", "expected"),
    [
        ("0", "5.15.153.1-microsoft-standard-WSL2\n", False),  # inside WSL, told not to look
        ("1", "6.8.0-45-generic\n", True),
        (" 1 ", "6.8.0-45-generic\n", True),
        ("", "5.15.153.1-microsoft-standard-WSL2\n", True),  # empty: the probe decides
        ("yes", "6.8.0-45-generic\n", False),  # not 0 or 1: the probe decides
    ],
)
def test_the_environment_overrides_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, override: str, release: str, expected: bool
) -> None:
    osrelease = tmp_path / "osrelease"
    osrelease.write_text(release)
    monkeypatch.setattr(wsl_seam, "WSL", None)
    monkeypatch.setattr(wsl_seam, "OSRELEASE", str(osrelease))
    monkeypatch.setenv("WSL_DISTRO_NAME", "Ubuntu" if expected or override == "0" else "")
    monkeypatch.setenv(wsl_seam.OVERRIDE_VAR, override)
    assert wsl_seam.in_wsl() is expected


def test_every_test_and_its_coffer_subprocesses_are_outside_wsl_unless_they_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R5 of the issue-27 audit: the hosted WSL job must not see the runner's real Windows."""
    monkeypatch.setenv("WSL_DISTRO_NAME", "Ubuntu-24.04")  # what WSL sets in every shell
    assert wsl_seam.in_wsl() is False
    code = "from coffer.base import wsl; print(wsl.in_wsl())"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"
    monkeypatch.setenv(wsl_seam.OVERRIDE_VAR, "1")
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "True"


def test_windows_drive_is_a_one_letter_directory_of_the_mount_root(mnt: Path) -> None:
    assert wsl_seam.windows_drive(mnt / "c" / "src" / "app") == "c"
    assert wsl_seam.windows_drive(mnt / "D") == "d"
    assert wsl_seam.windows_drive(mnt / "wsl" / "app") is None  # not a drive letter
    assert wsl_seam.windows_drive(mnt.parent / "home" / "app") is None


def test_nothing_is_on_the_windows_side_outside_wsl(
    mnt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (mnt / "c" / "Users" / "alice" / ".claude").mkdir(parents=True)
    monkeypatch.setattr(wsl_seam, "WSL", False)
    assert wsl_seam.windows_homes() == []
    assert wsl_seam.windows_drive(mnt / "c" / "app") is None
    assert wsl.windows_side(registry.load_adapters()) == []
    assert checkup.windows_git(mnt / "c" / "app") is None


def test_agents_in_a_windows_home_are_found_by_their_adapters_config_dirs(mnt: Path) -> None:
    alice = mnt / "c" / "Users" / "alice"
    (alice / ".claude").mkdir(parents=True)  # a config_dir member
    (alice / ".cursor").mkdir()  # a spec's presence, ~-based
    (alice / "AppData" / "Roaming" / "Zed").mkdir(parents=True)  # Zed's Windows place
    (alice / ".config" / "goose").mkdir(parents=True)  # Goose's Linux place: not Windows'
    (alice / ".config" / "opencode").mkdir()  # xdg-basedir: ~/.config on Windows too
    (mnt / "c" / "Users" / "Public" / ".codex").mkdir(parents=True)  # no one's home
    found = wsl.windows_side(registry.load_adapters())
    assert found == [
        ("claude", alice / ".claude"),
        ("cursor", alice / ".cursor"),
        ("opencode", alice / ".config" / "opencode"),
        ("zed", alice / "AppData" / "Roaming" / "Zed"),
    ]
    note = wsl.notice(found)
    assert note is not None and str(alice / ".claude") in note and "never links across" in note
    assert wsl.notice([]) is None


def test_adapter_list_doctor_and_setup_say_so(mnt: Path, tmp_path: Path) -> None:
    (mnt / "c" / "Users" / "bob" / ".codex").mkdir(parents=True)
    engine = reading.build_engine()
    repo = mnt / "c" / "src" / "app"
    notes = reading._platform_notes(engine, repo)
    assert len(notes) == 2 and "codex" in notes[0] and "Windows git" in notes[1]
    assert reading._platform_notes(engine, tmp_path) == notes[:1]  # a WSL-side repo: fine
    (finding,) = upkeep._windows_side_findings()
    assert finding.level == "info" and "codex" in finding.message
    (said,) = setup_cli._windows_side(registry.load_adapters())
    assert said == notes[0]


def test_doctor_warns_of_a_filtered_repository_on_a_windows_drive(mnt: Path) -> None:
    why = checkup.windows_git(mnt / "c" / "src" / "app")
    assert why is not None and "drive C:" in why and "WSL's git" in why
