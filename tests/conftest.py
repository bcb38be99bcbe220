from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.simulate import sitecustomize as simulation

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
