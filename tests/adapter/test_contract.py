"""Issue 11, "an adapter contract a stranger can use": a new agent that reads one known file
takes ~20 lines (tests/adapters/tiny_agent.py), installed as a plugin the way pip would,
checked by the registry, passing the conformance kit, and projected by the real
`coffer project`. Optional members of the wrong type are reported and skipped like any
broken plugin, and the helpers never crash on a damaged user config."""

from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from coffer.adapter import Context, Mode, modes, registry
from coffer.adapter.helpers import detected_by, env_dir, per_tier, read_json, read_toml
from coffer.testing import AdapterContract
from coffer_adapters import claude_code, codex, cursor, gemini, opencode
from tests.adapters import tiny_agent
from tests.helpers import coffer, make_repo

TINY = Path(tiny_agent.__file__)


def install(site: Path, module: str, source: str, dist: str) -> None:
    """What `pip install` leaves behind for a one-module plugin: the module and a dist-info
    whose entry point puts it in the ``coffer.adapters`` group."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[coffer.adapters]\n{module[:-6]} = {module}\n")


def test_a_new_agent_that_reads_one_file_takes_about_twenty_lines() -> None:
    assert len(TINY.read_text().splitlines()) <= 22


class TestTinyAgent(AdapterContract):
    adapter = tiny_agent

    def prepare(self, ctx: Context) -> None:
        (ctx.home / ".tiny").mkdir()


def test_tiny_agent_projects_through_the_real_cli(tmp_path: Path, fake_home: Path) -> None:
    site = tmp_path / "site"
    install(site, "tiny_agent", TINY.read_text(), "tiny-agent")
    (fake_home / ".tiny").mkdir()
    repo = make_repo(tmp_path / "work" / "p")
    env = {"PYTHONPATH": str(site)}
    assert coffer("remember", "We deploy with make release.", cwd=repo, env=env).returncode == 0
    global_ = ("remember", "Answer briefly.", "--scope", "global")  # a global block to write
    assert coffer(*global_, cwd=repo, env=env).returncode == 0
    run = coffer("project", cwd=repo, env=env)
    assert run.returncode == 0, run.stderr
    assert "We deploy with make release." in (repo / "TINY.md").read_text()
    assert (fake_home / ".tiny" / "TINY.md").is_file()
    listed = coffer("adapter", "list", cwd=repo, env=env)
    assert "tiny (present, enabled; project=render global=render; from tiny-agent)" in listed.stdout
    assert coffer("unproject", "--all", cwd=repo, env=env).returncode == 0
    assert not (repo / "TINY.md").exists()


BAD_MEMBERS = [
    ("HARNESSES = 'tiny'", "HARNESSES must be a tuple of non-empty strings"),
    ("SESSION_CONTEXT_LIMIT = '10k'", "SESSION_CONTEXT_LIMIT must be a positive int"),
    ("SESSION_CONTEXT_LIMIT = True", "SESSION_CONTEXT_LIMIT must be a positive int"),
    ("wiring = 'yes'", "wiring must be a function"),
    ("session_context = None", "session_context must be a function"),
    ("MODES = {'project': 'render'}", "MODES must map tier names to coffer.adapter.Mode"),
    ("NAME = ''", "NAME must be a non-empty string"),
]


@pytest.mark.parametrize(("member", "message"), BAD_MEMBERS)
def test_an_optional_member_of_the_wrong_type_is_refused_with_its_reason(
    member: str, message: str
) -> None:
    namespace: dict[str, object] = {}
    exec(TINY.read_text() + "\n" + member + "\n", namespace)
    with pytest.raises(registry.ContractError, match=message):
        registry.features(SimpleNamespace(**namespace))


def test_a_plugin_with_a_bad_member_is_reported_and_skipped(tmp_path: Path, fake_home: Path):
    site = tmp_path / "site"
    install(site, "tiny_agent", TINY.read_text() + "HARNESSES = 'tiny'\n", "tiny-agent")
    (fake_home / ".tiny").mkdir()
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "p")
    env = {"PYTHONPATH": str(site)}
    assert coffer("remember", "We deploy with make release.", cwd=repo, env=env).returncode == 0
    listed = coffer("adapter", "list", cwd=repo, env=env)
    assert listed.returncode == 1
    assert (
        "error: adapter 'tiny' (tiny_agent, from tiny-agent) HARNESSES must be a tuple of "
        "non-empty strings" in listed.stdout
    )
    assert "\ntiny (" not in listed.stdout
    run = coffer("project", cwd=repo, env=env)
    assert run.returncode == 1 and "HARNESSES must be" in run.stdout + run.stderr
    assert (repo / "AGENTS.md").exists()  # the other adapters still ran
    assert not (repo / "TINY.md").exists()


def test_features_are_what_the_builtin_adapters_declare() -> None:
    assert registry.features(claude_code).harnesses == ("claude", "claude-code")
    assert registry.features(claude_code).wiring is not None
    assert registry.features(gemini).session_context is gemini.session_context
    assert registry.features(codex).session_context_limit == 10_000
    assert registry.features(cursor).wiring is not None  # a spec's setup= (ADR 0033)
    plain = registry.features(tiny_agent)
    assert (plain.harnesses, plain.wiring, plain.session_context_limit) == ((), None, None)


def test_modes_come_from_the_targets(tmp_path: Path) -> None:
    assert modes(claude_code, tmp_path) == {"project": Mode.SYMLINK, "global": Mode.RENDER}
    assert modes(cursor, tmp_path) == {"project": Mode.RENDER, "global": Mode.NONE}
    for adapter in (codex, gemini, opencode, tiny_agent):
        assert modes(adapter, tmp_path) == {"project": Mode.RENDER, "global": Mode.RENDER}


def test_no_setup_module_imports_its_adapter_back() -> None:
    # The setup side of an adapter is handed its paths, so it never imports the adapter:
    # no adapter <-> setup import cycle (issue 11), counting function-level imports.
    for adapter in (claude_code, codex, gemini):
        package = adapter.__name__
        tree = ast.parse(Path(adapter.__file__ or "").with_name("setup.py").read_text())
        imported = {
            node.module or "" if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert package not in imported and not relative, imported


DAMAGED = [b"{not json", b"\xff\xfe\x00", b"[1, 2]", b'"text"', b"= = =\n[[[", b""]


@pytest.mark.parametrize("data", DAMAGED)
def test_a_damaged_user_config_never_crashes_an_adapter(data: bytes, tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = make_repo(tmp_path / "p")
    for rel in (
        ".claude/settings.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".config/opencode/opencode.json",
    ):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    (home / ".cursor").mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_bytes(data)
    environ = {"HOME": str(home), "PATH": "", "XDG_CONFIG_HOME": str(home / ".config")}
    ctx = Context(home, environ, tmp_path / "store", project)
    for adapter in (claude_code, codex, gemini, opencode, cursor):
        assert adapter.detect(ctx) is True
        assert {t.tier for t in adapter.targets(ctx)} == {"project", "global"}
        adapter.inputs(ctx)
    assert read_json(home / ".gemini" / "settings.json") == {}
    assert read_toml(home / ".codex" / "config.toml") == {}


def test_helpers(tmp_path: Path) -> None:
    ctx = Context(tmp_path, {"A": " ~/x ", "B": "  ", "PATH": str(tmp_path / "bin")}, tmp_path)
    assert env_dir(ctx, "A", tmp_path) == Path("~/x").expanduser()
    assert env_dir(ctx, "A", tmp_path, expand=False) == Path("~/x")
    assert env_dir(ctx, "B", tmp_path / "d") == tmp_path / "d"
    detect = detected_by(lambda c: c.home / ".agent", "agent")
    assert detect(ctx) is False
    (tmp_path / "bin").mkdir()
    shutil.copy(sys.executable, tmp_path / "bin" / "agent")
    assert detect(ctx) is True
    assert per_tier(ctx, lambda root: pytest.fail("no project here")) == []
    (tmp_path / "c.toml").write_text("hooks = 1\n")
    assert read_toml(tmp_path / "c.toml", mentions=b"memories") == {}
    assert read_toml(tmp_path / "c.toml", mentions=b"hooks") == {"hooks": 1}
    (tmp_path / "c.json").write_text(json.dumps({"a": 1}))
    assert read_json(tmp_path / "c.json") == {"a": 1}
