"""Each agent's files where that agent itself puts them on Linux, macOS and Windows (issue 27
point 9): the seam's ``platform.SYSTEM`` is switched, one branch per test, and the adapter's
data (``BySystem`` templates) must name the place the agent's own source names."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from coffer.adapter import ConfigEdit, Context, Launch, deferred, plugins
from coffer.adapter.plugins import Plugin
from coffer.adapter.spec import resolve
from coffer.adapter.templates import BySystem
from coffer.base import platform
from coffer_adapters import (
    amp,
    claude_code,
    copilot,
    crush,
    goose,
    jetbrains_ai,
    kilo,
    opencode,
    roo,
    vscode_user,
    zed,
)

SYSTEMS = ("linux", "darwin", "win32")
APPDATA = "C:/Users/me/AppData/Roaming"
LOCALAPPDATA = "C:/Users/me/AppData/Local"
Switch = Callable[[str], None]


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> Switch:
    """``on("win32")``: the seam reports that system until the test ends."""

    def switch(system: str) -> None:
        monkeypatch.setattr(platform, "SYSTEM", system)

    return switch


def _ctx(home: Path, **environ: str) -> Context:
    return Context(home, {"HOME": str(home), **environ}, home / "store", None)


@pytest.mark.parametrize(
    ("module", "linux", "darwin", "win32"),
    [
        (zed, "{xdg}/zed", "~/.config/zed", f"{APPDATA}/Zed"),
        (goose, "{xdg}/goose", "{xdg}/goose", f"{APPDATA}/Block/goose/config"),
        (
            jetbrains_ai,
            "{xdg}/JetBrains",
            "~/Library/Application Support/JetBrains",
            f"{APPDATA}/JetBrains",
        ),
        # Node agents on xdg-basedir: $XDG_CONFIG_HOME, else ~/.config, on every system
        (opencode, "{xdg}/opencode", "{xdg}/opencode", "{xdg}/opencode"),
        (kilo, "{xdg}/kilo", "{xdg}/kilo", "{xdg}/kilo"),
        (amp, "~/.config/amp", "~/.config/amp", "~/.config/amp"),
    ],
    ids=lambda v: getattr(v, "NAME", None),
)
def test_config_directory_on_each_system(
    module: ModuleType, linux: str, darwin: str, win32: str, tmp_path: Path, on: Switch
) -> None:
    home = tmp_path / "home"
    xdg = str(tmp_path / "xdg")
    ctx = _ctx(home, APPDATA=APPDATA, LOCALAPPDATA=LOCALAPPDATA)
    for system, want in zip(SYSTEMS, (linux, darwin, win32), strict=True):
        on(system)
        spec = module.SPEC
        plain = want.replace("{xdg}", str(home / ".config")).replace("~", str(home))
        assert spec.config_dir(ctx) == Path(plain), system
        # where the agent follows XDG_CONFIG_HOME, and only there, setting it moves the place
        moved = want.replace("{xdg}", xdg).replace("~", str(home))
        with_xdg = ctx._replace(environ={**ctx.environ, "XDG_CONFIG_HOME": xdg})
        assert spec.config_dir(with_xdg) == Path(moved), system


@pytest.mark.parametrize(
    ("system", "plain"),
    [("linux", "{home}/.config/crush"), ("darwin", "{home}/.config/crush"),
     ("win32", f"{LOCALAPPDATA}/crush")],
)  # fmt: skip
def test_crush_takes_xdg_config_home_first_on_every_system(
    system: str, plain: str, tmp_path: Path, on: Switch
) -> None:
    # globalConfig reads $XDG_CONFIG_HOME on every system, Windows too, before its default
    on(system)
    ctx = _ctx(tmp_path, LOCALAPPDATA=LOCALAPPDATA)
    assert crush.SPEC.config_dir(ctx) == Path(plain.replace("{home}", str(tmp_path)))
    with_xdg = ctx._replace(environ={**ctx.environ, "XDG_CONFIG_HOME": "D:/xdg"})
    assert crush.SPEC.config_dir(with_xdg) == Path("D:/xdg/crush")


def test_windows_folders_without_their_variables(tmp_path: Path, on: Switch) -> None:
    # as VS Code and Crush fall back: the profile's AppData\Roaming and AppData\Local
    on("win32")
    ctx = _ctx(tmp_path)
    assert zed.SPEC.config_dir(ctx) == tmp_path / "AppData" / "Roaming" / "Zed"
    assert crush.SPEC.config_dir(ctx) == tmp_path / "AppData" / "Local" / "crush"
    assert {"APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME"} <= {
        *zed.SPEC.env_names,
        *crush.SPEC.env_names,
    }


def _mcp_path(module: ModuleType, ctx: Context, keys: tuple[str, ...]) -> Path:
    launch = Launch(("/opt/coffer/bin/coffer",))
    edits: list[ConfigEdit] = list(module.wiring(ctx, launch))
    return next(e.path for e in edits if e.keys == keys)


@pytest.mark.parametrize(
    ("system", "user"),
    [
        ("linux", ".config/Code/User"),
        ("darwin", "Library/Application Support/Code/User"),
        ("win32", "AppData/Roaming/Code/User"),
    ],
)
def test_vscode_files_where_vscode_keeps_its_user_data(
    system: str, user: str, tmp_path: Path, on: Switch
) -> None:
    on(system)
    home = tmp_path / "home"
    environ = {"APPDATA": str(home / "AppData" / "Roaming")} if system == "win32" else {}
    ctx = _ctx(home, **environ)
    storage = "globalStorage/rooveterinaryinc.roo-cline/settings"
    (home / user / storage).mkdir(parents=True)  # VS Code and Roo have run
    assert _mcp_path(copilot, ctx, ("servers", "coffer")) == home / user / "mcp.json"
    assert (
        _mcp_path(roo, ctx, ("mcpServers", "coffer")) == home / user / storage / "mcp_settings.json"
    )


def test_no_vscode_file_for_another_systems_folder(tmp_path: Path, on: Switch) -> None:
    # a macOS-shaped folder on Windows is not where VS Code looks: nothing is written there
    on("win32")
    home = tmp_path / "home"
    (home / "Library" / "Application Support" / "Code" / "User").mkdir(parents=True)
    edits = copilot.wiring(_ctx(home), Launch(("/opt/coffer/bin/coffer",)))
    assert not [e for e in edits if e.keys == ("servers", "coffer")]
    assert resolve(vscode_user("mcp.json"), _ctx(home), None) == (
        home / "AppData" / "Roaming" / "Code" / "User" / "mcp.json"
    )


@pytest.mark.parametrize(
    ("system", "policy"),
    [
        ("linux", "/etc/claude-code/managed-settings.json"),
        ("darwin", "/Library/Application Support/ClaudeCode/managed-settings.json"),
        ("win32", "C:\\Program Files\\ClaudeCode\\managed-settings.json"),
    ],
)
def test_claude_reads_its_policy_file_from_the_systems_place(
    system: str, policy: str, tmp_path: Path, on: Switch
) -> None:
    on(system)
    files = claude_code._settings_files(_ctx(tmp_path))
    assert files[0] == ("policy", Path(policy))
    assert [level for level, _ in files] == ["policy", "user"]


def test_by_system_picks_at_each_use(on: Switch) -> None:
    template = BySystem("L", darwin="M", win32=("W1", "W2"))
    seen = []
    for system in (*SYSTEMS, "freebsd"):
        on(system)
        seen.append(template.now())
    assert seen == [("L",), ("M",), ("W1", "W2"), ("L",)]
    assert template.every() == ("L", "M", "W1", "W2")


def test_a_kept_presence_keeps_each_systems_place(
    tmp_path: Path, on: Switch, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the registry's cache of presences (coffer.adapter.deferred) survives a JSON round trip
    # with the BySystem intact, so a deferred Zed is looked for in %APPDATA%\Zed on Windows
    monkeypatch.setattr(plugins, "RACY_SECONDS", float("-inf"))
    plugin = Plugin("zed", "coffer_adapters.zed", "coffer")
    kept = deferred.record(plugin, zed)
    assert kept is not None
    from coffer.adapter.registry import features

    again = deferred.deferred(plugin, {"zed": json.loads(json.dumps(kept))}, features)
    assert again is not None
    assert again.presence.config == zed.SPEC.config
    on("win32")
    (tmp_path / "AppData" / "Roaming" / "Zed").mkdir(parents=True)
    assert again.detect(_ctx(tmp_path, PATH="")) is True
    on("linux")
    assert again.detect(_ctx(tmp_path, PATH="")) is False


def test_a_context_can_ask_for_another_systems_rules(tmp_path: Path, on: Switch) -> None:
    # WSL asks about a Windows user's agents with system="win32" while Linux runs
    on("linux")
    ctx = _ctx(tmp_path)._replace(system="win32")
    assert zed.SPEC.config_dir(ctx) == tmp_path / "AppData" / "Roaming" / "Zed"
    assert opencode.SPEC.config_dir(ctx) == tmp_path / ".config" / "opencode"
    policy = Path("C:\\Program Files\\ClaudeCode\\managed-settings.json")
    assert claude_code._settings_files(ctx)[0] == ("policy", policy)
    assert zed.SPEC.config_dir(_ctx(tmp_path)) == tmp_path / ".config" / "zed"
