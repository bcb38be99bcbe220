"""`coffer setup` on (simulated) Windows: a cmd.exe hook for Codex, a PowerShell one for
Gemini, found again by a second setup and removed by `--undo`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coffer.adapter import Context
from tests.adapter.test_hookshell import run_cmd, run_powershell
from tests.helpers import coffer
from tests.simulate import sitecustomize as simulation


@pytest.fixture
def windows(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home with Codex and Gemini, and every coffer subprocess on simulated Windows."""
    monkeypatch.setenv("COFFER_SIMULATE", "windows")
    here = str(Path(simulation.__file__).parent)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("COFFER_HOME", str(tmp_path / "my store's 100% & more"))
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    (fake_home / ".codex").mkdir(exist_ok=True)
    (fake_home / ".codex" / "config.toml").write_text("")
    (fake_home / ".gemini").mkdir()
    (fake_home / ".gemini" / "settings.json").write_text("{}\n")
    return fake_home


def _hook(path: Path) -> dict[str, object]:
    entry = json.loads(path.read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    assert isinstance(entry, dict)
    return entry


def test_setup_writes_each_agents_windows_form_and_undo_removes_it(windows: Path) -> None:
    before = {p: p.read_bytes() for p in windows.rglob("*") if p.is_file()}
    done = coffer("setup", "--yes", "--agent", "codex", "--agent", "gemini")
    assert done.returncode == 0, done.stderr
    store = os.environ["COFFER_HOME"]
    codex = _hook(windows / ".codex" / "hooks.json")["command"]
    assert isinstance(codex, str) and codex.startswith("set COFFER_HOME=")
    exe, args, env = run_cmd(codex)
    assert args[-4:] == ["project", "--hook", "--for", "codex"]
    assert "coffer" in " ".join([exe, *args])
    assert env == {"COFFER_HOME": store}
    gemini = _hook(windows / ".gemini" / "settings.json")["command"]
    assert isinstance(gemini, str) and gemini.startswith("$env:COFFER_HOME=")
    assert run_powershell(gemini) == (
        exe,
        [*args[:-1], "gemini"],
        {"COFFER_HOME": store},
    )
    again = coffer("setup", "--yes", "--agent", "codex", "--agent", "gemini")
    assert again.returncode == 0, again.stderr
    assert "already wired" in again.stdout
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stderr
    assert {p: p.read_bytes() for p in windows.rglob("*") if p.is_file() and p in before} == before
    assert "coffer" not in (windows / ".gemini" / "settings.json").read_text()


def test_qwen_hook_asks_for_powershell_and_parses_as_it(windows: Path) -> None:
    # Qwen's own Windows default is cmd.exe (or whatever %ComSpec% names); the entry's
    # "shell": "powershell" makes it run `powershell -Command` whatever shell started Qwen
    (windows / ".qwen").mkdir()
    settings = windows / ".qwen" / "settings.json"
    settings.write_text("{}\n")
    before = settings.read_bytes()
    done = coffer("setup", "--yes", "--agent", "qwen")
    assert done.returncode == 0, done.stderr
    entry = _hook(settings)
    assert entry["shell"] == "powershell"
    command = entry["command"]
    assert isinstance(command, str) and command.startswith("$env:COFFER_HOME=")
    exe, args, env = run_powershell(command)
    assert "coffer" in " ".join([exe, *args])
    assert args[-4:] == ["project", "--hook", "--for", "qwen"]
    assert env == {"COFFER_HOME": os.environ["COFFER_HOME"]}
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stderr
    assert settings.read_bytes() == before


def test_qwen_hook_stays_posix_off_windows(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coffer.adapter import Launch
    from coffer.base import platform
    from coffer_adapters import qwen

    monkeypatch.setattr(platform, "WINDOWS", False)  # off Windows, also when simulating it

    (fake_home / ".qwen").mkdir()
    ctx = Context(fake_home, {"HOME": str(fake_home)}, fake_home / "store")
    launch = Launch(("/opt/my tools/coffer",), {"COFFER_HOME": "/s/it's"})
    (hook,) = [e for e in qwen.wiring(ctx, launch) if e.keys == ("hooks", "SessionStart")]
    entry = hook.value["hooks"][0]
    assert "shell" not in entry
    assert entry["command"] == (
        "COFFER_HOME='/s/it'\"'\"'s' '/opt/my tools/coffer' project --hook --for qwen"
    )
