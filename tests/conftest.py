from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from coffer.base import wsl
from tests.simulate import sitecustomize as simulation

# Native Windows, not the seam: COFFER_SIMULATE=windows still runs every POSIX-only test on
# this host, where FIFOs, ``#!/bin/sh`` shims and POSIX signals exist (pyproject's markers).
NATIVE_WINDOWS = sys.platform == "win32"

_ISOLATED = (
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    # Windows' application data folders, where the Windows paths of the adapters lie
    "APPDATA",
    "LOCALAPPDATA",
)
_CLEARED = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "ECC_MEMORY_PROJECT_ROOT",
    "ECC_MEMORY_USER_ROOT",
    "ECC_MEMORY_HARNESS",
    "ECC_DRY_RUN",
    "ECC_MEMORY_ALLOW_USER_SCOPE",
    "GIT_DIR",
    "GIT_WORK_TREE",
    # the config directories of the declarative adapters (coffer_adapters/*.py SPEC)
    "PI_CODING_AGENT_DIR",
    "CLINE_DIR",
    "OPENCLAW_STATE_DIR",
    "HERMES_HOME",
    "KIMI_SHARE_DIR",
    "VIBE_HOME",
    "KILO_CONFIG_DIR",
    "KILO_DISABLE_PROJECT_CONFIG",
    "KILO_DISABLE_CLAUDE_CODE_PROMPT",
    "CONTINUE_GLOBAL_DIR",
)


@pytest.fixture(autouse=True)
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs against a fake home: no test can read or write the real one."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COFFER_HOME", str(tmp_path / "coffer-home"))
    for var in _ISOLATED:
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    for var in _CLEARED:
        monkeypatch.delenv(var, raising=False)
    # Point the agents' config roots at the fake home too, explicitly, so a test that
    # forgets about them still cannot reach ~/.claude or ~/.codex.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    return home


@pytest.fixture(autouse=True)
def no_real_wsl(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not inside WSL, here and in every coffer a test starts: a suite run in WSL (the hosted
    WSL job) would otherwise see the runner's real ``C:\\Users`` in every doctor, adapter
    list and setup. A test about WSL sets ``wsl.WSL`` (and a fake ``/mnt``) itself."""
    monkeypatch.setattr(wsl, "WSL", False)
    monkeypatch.setenv(wsl.OVERRIDE_VAR, "0")


def _symlinks_refused() -> bool:
    """Whether this account cannot create symlinks: Windows as a standard user with Developer
    Mode off (the hosted standard-user job). Probed once, with the real ``os.symlink``."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:
        try:
            os.symlink(scratch, os.path.join(scratch, "probe"), target_is_directory=True)
        except OSError:
            return True
    return False


def skip_reason(item: pytest.Item, native_windows: bool, symlinks_refused: bool) -> str | None:
    """Why ``item`` cannot run on this host, or None: ``posix_only`` tests on native Windows,
    ``needs_symlinks`` tests where this account cannot make a symlink. They would test the
    host, not coffer (pyproject's markers)."""
    posix = item.get_closest_marker("posix_only")
    if native_windows and posix is not None:
        return "POSIX only: " + " ".join(map(str, posix.args))
    if symlinks_refused and item.get_closest_marker("needs_symlinks") is not None:
        return "this account cannot create symlinks (Windows without Developer Mode)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    refused = any(item.get_closest_marker("needs_symlinks") for item in items) and (
        _symlinks_refused()
    )
    for item in items:
        reason = skip_reason(item, NATIVE_WINDOWS, refused)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


if simulation.SIMULATE == "windows":

    @pytest.fixture(autouse=True)
    def simulated_windows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """``COFFER_SIMULATE=windows``: the seam as on Windows, here and in every coffer
        subprocess (tests/simulate/sitecustomize.py runs first in each of them)."""
        # Beside the test's directory, not in it: tests compare its contents before and after.
        junctions = tmp_path.with_name(tmp_path.name + ".simulated-junctions")
        monkeypatch.setenv(simulation.JUNCTIONS_FILE, str(junctions))
        simulation.simulate_windows(monkeypatch.setattr)
        here = str(Path(simulation.__file__).parent)
        inherited = os.environ.get("PYTHONPATH")
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, *filter(None, [inherited])]))
