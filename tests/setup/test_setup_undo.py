"""`coffer setup` / `coffer setup --undo` in a fake home with realistic agent configs."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from coffer.adapter import Launch, registry
from coffer.base import platform
from coffer.projection.journal import Journal, JournalRecord
from coffer.setup import launch, unwiring
from coffer.setup import wiring as setup_mod
from coffer.setup.json_text import JsonText
from coffer.store.paths import store_root
from tests.helpers import coffer, make_repo

CLAUDE_JSON = """\
{
  "numStartups": 41,
  "installMethod": "native",
  "theme": "dark",
  "tipsHistory": {
    "memory-command": 3
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_TOKEN_FILE": "~/.config/gh/token"
      }
    }
  },
  "projects": {
    "/home/u/src/app": {
      "allowedTools": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "userID": "café-ü"
}
"""

SETTINGS_JSON = """\
{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "env": {"CLAUDE_CODE_DISABLE_TELEMETRY": "1"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]
            }
        ],
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [{"type": "command", "command": "echo 'hello from my hook'"}]
            }
        ]
    }
}
"""

CODEX_TOML = """\
# Codex configuration -- hand written, keep the comments
model = "gpt-5-codex"  # the default model
approval_policy = "on-request"

[features]
memories = false # coffer turned this off? no: I did

# Documentation server
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { DOCS_TOKEN_ENV = "DOCS" }

[projects."/home/u/src/app"]
trust_level = "trusted"
"""

CODEX_HOOKS = """\
{
  "description": "my hooks",
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup|resume",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/banner.sh",
            "statusMessage": "Saying hello"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [{"type": "command", "command": "~/bin/notify.sh"}]
      }
    ]
  }
}
"""


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake home with agents found at their default places (no CLAUDE_CONFIG_DIR or
    CODEX_HOME), and a PATH on which no agent binary can be found."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return fake_home


def realistic(home: Path, *, codex_hooks: bool = False) -> dict[Path, bytes]:
    files = {
        home / ".claude.json": CLAUDE_JSON,
        home / ".claude" / "settings.json": SETTINGS_JSON,
        home / ".codex" / "config.toml": CODEX_TOML,
    }
    if codex_hooks:
        files[home / ".codex" / "hooks.json"] = CODEX_HOOKS
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return {p: p.read_bytes() for p in files}


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file and directory under ``root`` (directories as None)."""
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        out[str(p.relative_to(root))] = None if p.is_dir() else p.read_bytes()
    return out


def setup_records() -> list[JournalRecord]:
    return unwiring.records(Journal(store_root(os.environ)))


def test_setup_then_undo_leaves_every_file_byte_identical(home: Path) -> None:
    realistic(home)
    before = snapshot(home)

    done = coffer("setup", "--yes")
    assert done.returncode == 0, done.stderr
    assert "Codex runs a new hook only after you trust it" in done.stdout
    assert "coffer setup --undo" in done.stdout

    claude = json.loads((home / ".claude.json").read_text())
    server = claude["mcpServers"]["coffer"]
    assert list(claude["mcpServers"]) == ["github", "coffer"]
    assert list(claude) == list(json.loads(CLAUDE_JSON))  # key order kept
    assert server["type"] == "stdio"
    assert Path(server["command"]).is_absolute()
    assert server["args"][-1] == "mcp"
    assert server["env"]["ECC_MEMORY_HARNESS"] == "claude"
    # Only coffer's member was added: the hand-formatted lines are untouched.
    assert (
        '"args": ["-y", "@modelcontextprotocol/server-github"],'
        in (home / ".claude.json").read_text()
    )

    settings = json.loads((home / ".claude" / "settings.json").read_text())
    starts = settings["hooks"]["SessionStart"]
    assert starts[0]["hooks"][0]["command"] == "echo 'hello from my hook'"
    ours = starts[1]["hooks"][0]
    assert ours["type"] == "command"
    assert ours["command"].endswith("project --hook --for claude")
    assert ours["timeout"] == 30
    assert settings["hooks"]["PreToolUse"][0]["matcher"] == "Bash"

    toml_text = (home / ".codex" / "config.toml").read_text()
    block = toml_text[toml_text.index("[mcp_servers.coffer]") : toml_text.index("[projects.")]
    assert toml_text.replace(block, "") == CODEX_TOML  # comments and every other byte kept
    config = tomllib.loads(toml_text)
    assert config["mcp_servers"]["coffer"]["args"][-1] == "mcp"
    assert config["mcp_servers"]["coffer"]["env"]["ECC_MEMORY_HARNESS"] == "codex"
    assert config["mcp_servers"]["docs"]["command"] == "npx"
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())
    assert list(hooks) == ["hooks"]
    # --for codex: the hook's plain stdout is model context for Codex (docs/adr/0012)
    assert hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith(
        "project --hook --for codex"
    )

    records = setup_records()
    assert {Path(r.path).name for r in records} == {
        ".claude.json",
        "settings.json",
        "config.toml",
        "hooks.json",
        "SKILL.md",  # the guidance skill, once for Claude and once for Codex
        "openai.yaml",  # and its interface metadata beside it (docs/adr/0048)
    }
    assert all(r.key.startswith("setup:") for r in records)

    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stderr
    assert snapshot(home) == before
    assert setup_records() == []


def test_dry_run_shows_the_exact_edits_and_writes_nothing(home: Path) -> None:
    realistic(home, codex_hooks=True)
    before = snapshot(home)
    shown = coffer("setup", "--dry-run")
    assert shown.returncode == 0, shown.stderr
    assert snapshot(home) == before
    assert setup_records() == []
    out = shown.stdout
    assert "would update " + str(home / ".claude.json") in out
    assert '+    "coffer": {' in out
    assert "+[mcp_servers.coffer]" in out
    assert "would update " + str(home / ".codex" / "hooks.json") in out  # not "create"
    assert '"statusMessage": "coffer: projecting memory"' in out
    created = [line for line in out.splitlines() if line.startswith("would create")]
    assert len(created) == 4  # only the guidance skills are new files, two for each agent
    for name in ("SKILL.md", "agents/openai.yaml"):
        assert sum(f"/skills/coffer-memory/{name}: " in line for line in created) == 2


def test_setup_twice_changes_nothing_the_second_time(home: Path) -> None:
    realistic(home, codex_hooks=True)
    assert coffer("setup", "--yes").returncode == 0
    inodes = {p: p.stat().st_ino for p in home.rglob("*") if p.is_file()}
    again = coffer("setup", "--yes")
    assert again.returncode == 0, again.stderr
    assert "already wired: claude, codex" in again.stdout
    assert {p: p.stat().st_ino for p in home.rglob("*") if p.is_file()} == inodes
    assert coffer("setup", "--undo").returncode == 0
    assert (home / ".codex" / "hooks.json").read_text() == CODEX_HOOKS


def test_undo_keeps_what_the_agent_changed_since(home: Path) -> None:
    originals = realistic(home, codex_hooks=True)
    assert coffer("setup", "--yes").returncode == 0
    claude_json = home / ".claude.json"
    # Claude rewrites its own file while it runs; the user adds a server after coffer's.
    text = claude_json.read_text().replace('"numStartups": 41', '"numStartups": 42')
    text = text.replace(
        '  "projects": {',
        '  "projects": {\n    "/home/u/src/new": {\n      "allowedTools": []\n    },',
    )
    claude_json.write_text(text)
    toml = home / ".codex" / "config.toml"
    toml.write_text(
        toml.read_text().replace('approval_policy = "on-request"', 'approval_policy = "never"')
    )

    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stderr
    assert "restored" in undone.stdout and "without coffer's entries" in undone.stdout
    expected = CLAUDE_JSON.replace('"numStartups": 41', '"numStartups": 42').replace(
        '  "projects": {',
        '  "projects": {\n    "/home/u/src/new": {\n      "allowedTools": []\n    },',
    )
    assert claude_json.read_text() == expected
    assert toml.read_text() == CODEX_TOML.replace('"on-request"', '"never"')
    assert (home / ".claude" / "settings.json").read_bytes() == originals[
        home / ".claude" / "settings.json"
    ]
    assert setup_records() == []


def test_undo_refuses_when_coffers_entry_was_edited_and_keeps_the_record(home: Path) -> None:
    realistic(home)
    assert coffer("setup", "--yes").returncode == 0
    settings = home / ".claude" / "settings.json"
    edited = settings.read_text().replace('"timeout": 30', '"timeout": 90')
    settings.write_text(edited)

    refused = coffer("setup", "--undo", "--agent", "claude")
    assert refused.returncode == 1
    assert "refused" in refused.stderr and str(settings) in refused.stderr
    assert "edited since coffer wrote it" in refused.stderr
    assert settings.read_text() == edited
    assert any(Path(r.path) == settings for r in setup_records())
    # ~/.claude.json was still undone (one refusal does not block the others)
    assert (home / ".claude.json").read_text() == CLAUDE_JSON

    # The user takes coffer's hook out by hand: the record can go.
    data = json.loads(edited)
    data["hooks"]["SessionStart"].pop()
    settings.write_text(json.dumps(data, indent=4) + "\n")
    again = coffer("setup", "--undo")
    assert again.returncode == 0, again.stderr
    assert "already removed" in again.stdout
    assert setup_records() == []


def test_a_changed_mcp_entry_is_not_removed(home: Path) -> None:
    realistic(home)
    assert coffer("setup", "--yes", "--agent", "claude").returncode == 0
    path = home / ".claude.json"
    data = json.loads(path.read_text())
    data["mcpServers"]["coffer"]["args"] = ["mcp", "--verbose"]
    path.write_text(json.dumps(data, indent=2) + "\n")
    refused = coffer("setup", "--undo")
    assert refused.returncode == 1
    assert "mcpServers.coffer was changed since coffer wrote it" in refused.stderr
    assert json.loads(path.read_text())["mcpServers"]["coffer"]["args"] == ["mcp", "--verbose"]


def test_nothing_is_written_without_the_users_go_ahead(home: Path) -> None:
    realistic(home)
    before = snapshot(home)
    declined = coffer("setup", input="n\n")
    assert declined.returncode == 1
    assert "Apply these changes?" in declined.stdout
    assert "nothing changed" in declined.stdout
    no_tty = coffer("setup", input="")
    assert no_tty.returncode == 1
    assert "no terminal to ask on" in no_tty.stderr
    assert "`coffer setup --dry-run`" in no_tty.stderr and "`coffer setup --yes`" in no_tty.stderr
    assert snapshot(home) == before
    accepted = coffer("setup", input="y\n")
    assert accepted.returncode == 0, accepted.stderr
    assert "coffer" in json.loads((home / ".claude.json").read_text())["mcpServers"]


def test_absent_agents_are_skipped_unless_named(home: Path) -> None:
    nothing = coffer("setup", "--yes")
    assert nothing.returncode == 0, nothing.stderr
    assert "not found on this machine, skipped (" in nothing.stdout
    assert "claude" in nothing.stdout.split("not found on this machine, skipped (")[1]
    assert snapshot(home) == {}

    unknown = coffer("setup", "--agent", "vim")
    assert unknown.returncode == 2  # a usage error
    from coffer.adapter import registry

    known = ", ".join(registry.load_adapters().adapters)  # grows with every new agent
    assert f"unknown agent vim; known agents: {known}" in unknown.stderr

    forced = coffer("setup", "--yes", "--agent", "codex")
    assert forced.returncode == 0, forced.stderr
    assert (home / ".codex" / "config.toml").is_file()
    assert oct((home / ".codex" / "config.toml").stat().st_mode & 0o777) == "0o600"
    assert coffer("setup", "--undo").returncode == 0
    assert snapshot(home) == {}  # the files and the ~/.codex directory coffer created are gone


def test_a_broken_config_is_refused_and_left_alone(home: Path) -> None:
    realistic(home)
    broken = home / ".claude" / "settings.json"
    broken.write_text('{"model": "opus",}\n')
    done = coffer("setup", "--yes")
    assert done.returncode == 1
    assert "not valid JSON" in done.stderr
    assert broken.read_text() == '{"model": "opus",}\n'
    # Never half: without its hook file Claude gets no MCP server either; Codex is wired.
    assert "claude was not wired at all" in done.stderr
    assert (home / ".claude.json").read_text() == CLAUDE_JSON
    assert "[mcp_servers.coffer]" in (home / ".codex" / "config.toml").read_text()
    assert coffer("setup", "--undo").returncode == 0
    assert (home / ".codex" / "config.toml").read_text() == CODEX_TOML


def test_an_mcp_server_named_coffer_that_coffer_did_not_write_is_left_alone(home: Path) -> None:
    realistic(home)
    path = home / ".claude.json"
    data = json.loads(CLAUDE_JSON)
    data["mcpServers"]["coffer"] = {"command": "/opt/other/coffer", "args": ["mcp"]}
    path.write_text(json.dumps(data, indent=2) + "\n")
    before = path.read_bytes()
    done = coffer("setup", "--yes", "--agent", "claude")
    assert done.returncode == 1
    assert "already holds something coffer did not write" in done.stderr
    assert path.read_bytes() == before


def test_claude_config_dir_moves_the_mcp_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = home / "profiles" / "work"
    config.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    done = coffer("setup", "--yes", "--agent", "claude")
    assert done.returncode == 0, done.stderr
    assert "coffer" in json.loads((config / ".claude.json").read_text())["mcpServers"]
    assert (config / "settings.json").is_file()
    assert not (home / ".claude.json").exists()


def test_codex_hooks_switched_off_are_reported(home: Path) -> None:
    realistic(home)
    toml = home / ".codex" / "config.toml"
    toml.write_text(CODEX_TOML.replace("memories = false", "memories = false\nhooks = false"))
    shown = coffer("setup", "--dry-run", "--agent", "codex")
    assert "[features] hooks = false" in shown.stdout


def test_unproject_leaves_setup_alone(home: Path, tmp_path: Path) -> None:
    realistic(home)
    assert coffer("setup", "--yes").returncode == 0
    wired = snapshot(home)
    repo = make_repo(tmp_path / "repo")
    assert coffer("project", cwd=repo).returncode == 0
    assert coffer("unproject", "--all", cwd=repo).returncode == 0
    after = snapshot(home)
    for name in (".claude.json", ".codex/config.toml", ".codex/hooks.json"):
        assert after[name] == wired[name]
    assert len(setup_records()) == 8  # four config files and two skills of two files each


# ---- in-process ---------------------------------------------------------------------------


def test_a_new_coffer_location_replaces_the_old_entry_in_place(home: Path) -> None:
    originals = realistic(home, codex_hooks=True)
    root = store_root(os.environ)
    journal = Journal(root)
    loaded = registry.load_adapters()
    first = setup_mod.plan(root, os.environ, loaded, launch=Launch(("/old/bin/coffer",)))
    assert setup_mod.apply(journal, first).ok
    second = setup_mod.plan(root, os.environ, loaded, launch=Launch(("/new/bin/coffer",)))
    assert {f.path.name for f in second.pending} == {
        ".claude.json",
        "settings.json",
        "config.toml",
        "hooks.json",
    }
    assert setup_mod.apply(journal, second).ok
    text = (home / ".claude" / "settings.json").read_text()
    if platform.WINDOWS:  # Claude runs hooks through PowerShell there (without Git Bash)
        assert "& '/new/bin/coffer' project --hook --for claude" in text
    else:
        assert "/new/bin/coffer project --hook --for claude" in text
    assert "/old/bin" not in text
    assert text.count("project --hook") == 1
    assert unwiring.undo(journal).ok
    assert {p: p.read_bytes() for p in originals} == originals


def test_toml_undo_after_a_change_keeps_comments_and_the_end_of_file(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = 'model = "x"\n\n[mcp_servers.docs]\ncommand = "npx"\n# trailing comment\n'
    config.write_text(original)
    root = store_root(os.environ)
    journal = Journal(root)
    launch = Launch(("/x/coffer",))
    the_plan = setup_mod.plan(root, os.environ, registry.load_adapters(), ["codex"], launch=launch)
    assert setup_mod.apply(journal, the_plan).ok
    config.write_text(config.read_text().replace('model = "x"', 'model = "y"'))
    assert unwiring.undo(journal).ok
    assert config.read_text() == original.replace('"x"', '"y"')
    assert not (home / ".codex" / "hooks.json").exists()


def test_a_file_changed_between_plan_and_apply_is_edited_as_it_is_now(home: Path) -> None:
    """The edit is redone on the file as it is at apply time (docs/adr/0041): the change
    made after the plan stays, coffer's entry is added, and undo keeps the change."""
    realistic(home)
    root = store_root(os.environ)
    the_plan = setup_mod.plan(root, os.environ, registry.load_adapters(), ["claude"])
    settings = home / ".claude" / "settings.json"
    changed = SETTINGS_JSON.replace("opus", "sonnet")
    settings.write_text(changed)
    report = setup_mod.apply(Journal(root), the_plan)
    assert report.ok, report.problems
    after = json.loads(settings.read_text())
    assert after["model"] == "sonnet"
    # PowerShell's form on Windows (`& '…/coffer' project --hook`), a POSIX one elsewhere
    coffers = "coffer' project --hook" if platform.WINDOWS else "coffer project --hook"
    assert coffers in json.dumps(after["hooks"])
    assert unwiring.undo(Journal(root)).ok
    assert json.loads(settings.read_text()) == json.loads(changed)


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_the_launch_command_is_absolute_and_carries_a_chosen_store(tmp_path: Path) -> None:
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    script = bindir / "coffer"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    python = bindir / "python"
    store = tmp_path / "store"

    ran_as_script = launch.resolve_launch({}, store, argv0=str(script), executable="/x/py")
    assert ran_as_script.argv == (str(script),)
    beside = launch.resolve_launch({"PATH": ""}, store, argv0="-m", executable=str(python))
    assert beside.argv == (str(script),)
    fallback = launch.resolve_launch(
        {"PATH": str(tmp_path / "none")}, store, argv0="-m", executable="/usr/bin/python3"
    )
    assert fallback.argv == ("/usr/bin/python3", "-m", "coffer")
    # The store is always recorded: the hook's no-op reads it instead of asking platformdirs.
    assert fallback.env == {"COFFER_HOME": str(store)}
    chosen = launch.resolve_launch(
        {"COFFER_HOME": str(store)}, store, argv0=str(script), executable="/x/py"
    )
    assert chosen.env == {"COFFER_HOME": str(store)}
    assert chosen.session_start == f"COFFER_HOME={store} {script} project --hook"
    assert chosen.mcp_server("codex") == {
        "command": str(script),
        "args": ["mcp"],
        "env": {"COFFER_HOME": str(store), "ECC_MEMORY_HARNESS": "codex"},
    }
    spaced = Launch(("/opt/my tools/coffer",))
    assert spaced.session_start == "'/opt/my tools/coffer' project --hook"


HOOK = {"hooks": [{"type": "command", "command": "/x/coffer project --quiet"}]}


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "hooks": {\n    "SessionStart": []\n  }\n}\n',
        '{\n\t"a": [1, 2],\n\t"hooks": {"Stop": []}\n}',
        '{"a":1,"b":{"c":[true,null]}}',
        '{"a": 1, "b": {"c": [true, null]}}\n',
        '{\r\n  "a": 1\r\n}\r\n',
        "{}",
        '{\n    "hooks": {\n        "SessionStart": [\n            {"hooks": []}\n'
        "        ]\n    }\n}\n",
    ],
)
def test_json_edits_are_spliced_and_undone_byte_for_byte(text: str) -> None:
    doc = JsonText(text)
    created = doc.append(["hooks", "SessionStart"], HOOK)
    doc.set(["mcpServers", "coffer"], {"command": "/x/coffer", "args": ["mcp"]})
    edited = doc.text
    assert json.loads(edited)["hooks"]["SessionStart"][-1] == HOOK
    assert json.loads(edited)["mcpServers"]["coffer"]["args"] == ["mcp"]
    if "\r\n" in text:
        assert "\n" not in edited.replace("\r\n", "")
    undo = JsonText(edited)
    undo.remove(["mcpServers", "coffer"], None, 0)
    index = len(json.loads(edited)["hooks"]["SessionStart"]) - 1
    undo.remove(
        ["hooks", "SessionStart"],
        index,
        len(["hooks", "SessionStart"]) if created is None else created,
    )
    assert undo.text == text


def test_json_duplicate_keys_follow_json_loads() -> None:
    doc = JsonText('{"a": {"x": 1}, "a": {"y": 2}}')
    doc.set(["a", "z"], 3)
    assert json.loads(doc.text) == {"a": {"y": 2, "z": 3}}


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "setup"
EXAMPLE_LAUNCH = Launch(("/home/me/.local/bin/coffer",))


@pytest.fixture
def posix_shells(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hooks rendered for the POSIX shell agents use on Linux and macOS, also under
    ``COFFER_SIMULATE=windows``: examples/setup/ shows a Linux home. The Windows renderings
    are checked in tests/adapter/test_hookshell.py and tests/setup/test_hook_shells.py."""
    monkeypatch.setattr(platform, "WINDOWS", False)


@pytest.mark.usefixtures("posix_shells")
def test_examples_are_what_setup_writes(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/setup/<agent>/{before,after}/ mirror a home directory; regenerate the
    "after" trees with COFFER_REGEN_EXAMPLES=1."""
    root = store_root(os.environ)
    loaded = registry.load_adapters()
    for agent in ("claude", "codex", "gemini"):
        before = EXAMPLES / agent / "before"
        for path in before.rglob("*"):
            if path.is_file():
                target = home / path.relative_to(before)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
        the_plan = setup_mod.plan(root, os.environ, loaded, [agent], launch=EXAMPLE_LAUNCH)
        for fp in the_plan.files:
            expected = EXAMPLES / agent / "after" / fp.path.relative_to(home)
            if os.environ.get("COFFER_REGEN_EXAMPLES"):
                expected.parent.mkdir(parents=True, exist_ok=True)
                expected.write_bytes(fp.after)
            assert expected.read_bytes() == fp.after, f"{expected} is stale"


def test_setup_is_reachable_from_the_cli_help() -> None:
    shown = coffer("--help")
    assert "setup" in shown.stdout and "mcp" in shown.stdout


GEMINI_SETTINGS = """\
{
  "general": {"vimMode": true},
  "mcpServers": {
    "docs": {"command": "npx", "args": ["-y", "docs-mcp"]}
  },
  "hooks": {
    "SessionEnd": [{"hooks": [{"type": "command", "command": "~/bin/bye.sh"}]}]
  }
}
"""


def test_gemini_setup_and_undo(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(GEMINI_SETTINGS)
    before = snapshot(home)
    done = coffer("setup", "--yes", "--agent", "gemini")
    assert done.returncode == 0, done.stderr
    data = json.loads(settings.read_text())
    assert list(data["mcpServers"]) == ["docs", "coffer"]
    assert data["mcpServers"]["coffer"]["env"]["ECC_MEMORY_HARNESS"] == "gemini"
    hook = data["hooks"]["SessionStart"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["command"].endswith("project --hook --for gemini")
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == "~/bin/bye.sh"
    assert coffer("setup", "--undo").returncode == 0
    assert snapshot(home) == before


# ---- one record: the Undo button of `coffer ui`'s State view (unwiring.undo_one) ----------


def _record_of(path: Path) -> JournalRecord:
    (record,) = [r for r in setup_records() if Path(r.path) == path]
    return record


def test_undo_one_gives_back_the_hooked_settings_file_exactly(home: Path) -> None:
    originals = realistic(home)
    settings = home / ".claude" / "settings.json"
    assert coffer("setup", "--yes", "--agent", "claude").returncode == 0
    wired = snapshot(home)
    hooked = settings.read_bytes()
    assert b"project --hook --for claude" in hooked
    record = _record_of(settings)
    assert record.key.startswith("setup:") and record.adapters == ("claude",)
    journal = Journal(store_root(os.environ))

    planned = unwiring.undo_one(journal, record.key, dry_run=True)
    assert [(c.path, c.action) for c in planned.changes] == [(settings, "restore")]
    assert "the original bytes" in planned.changes[0].detail
    removed = [line for line in str(planned.changes[0].diff).splitlines() if line[:1] == "-"]
    assert any("project --hook --for claude" in line for line in removed)
    assert snapshot(home) == wired and _record_of(settings) == record

    done = unwiring.undo_one(journal, record.key)
    assert done.ok, done.problems
    assert settings.read_bytes() == originals[settings]
    assert not any(Path(r.path) == settings for r in setup_records())
    # Only that record: the MCP server and the guidance skill stay wired, journaled.
    assert {k: v for k, v in snapshot(home).items() if k != ".claude/settings.json"} == {
        k: v for k, v in wired.items() if k != ".claude/settings.json"
    }
    assert "coffer" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert any(Path(r.path) == home / ".claude.json" for r in setup_records())


def test_undo_one_by_one_takes_the_directories_setup_created(home: Path) -> None:
    realistic(home)
    assert coffer("setup", "--yes", "--agent", "claude").returncode == 0
    journal = Journal(store_root(os.environ))
    skill = home / ".claude" / "skills" / "coffer-memory" / "SKILL.md"
    interface = skill.parent / "agents" / "openai.yaml"
    assert _record_of(skill).created_file and _record_of(interface).created_file
    done = unwiring.undo_one(journal, _record_of(skill).key)
    assert [(c.path, c.action) for c in done.changes] == [(skill, "remove")]
    assert sorted(p.name for p in skill.parent.iterdir()) == ["agents"]  # still coffer's
    # The skill's directories now wait on the last file in them, which takes them along.
    done = unwiring.undo_one(journal, _record_of(interface).key)
    assert [(c.path, c.action) for c in done.changes] == [(interface, "remove")]
    assert not (home / ".claude" / "skills").exists()
    assert sorted(p.name for p in (home / ".claude").iterdir()) == ["settings.json"]


def test_undo_one_refuses_an_edited_entry_and_keeps_what_else_changed(home: Path) -> None:
    originals = realistic(home)
    assert coffer("setup", "--yes", "--agent", "claude").returncode == 0
    journal = Journal(store_root(os.environ))
    settings, claude_json = home / ".claude" / "settings.json", home / ".claude.json"
    edited = settings.read_text().replace('"timeout": 30', '"timeout": 90')
    settings.write_text(edited)
    refused = unwiring.undo_one(journal, _record_of(settings).key)
    assert [(p.path, p.state) for p in refused.problems] == [(settings, "refused")]
    assert "edited since coffer wrote it" in refused.problems[0].message
    assert refused.changes == []
    assert settings.read_text() == edited
    _record_of(settings)  # still journaled
    # A file changed elsewhere since setup loses coffer's entries only.
    changed = claude_json.read_text().replace('"numStartups": 41', '"numStartups": 42')
    claude_json.write_text(changed)
    done = unwiring.undo_one(journal, _record_of(claude_json).key)
    assert done.ok, done.problems
    assert "without coffer's entries" in done.changes[0].detail
    assert claude_json.read_text() == CLAUDE_JSON.replace('"numStartups": 41', '"numStartups": 42')
    assert originals[claude_json] != claude_json.read_bytes()


def test_undo_one_names_an_unknown_key_and_a_projection_key(home: Path, tmp_path: Path) -> None:
    from coffer.base.errors import InvalidInputError

    realistic(home)
    assert coffer("setup", "--yes", "--agent", "claude").returncode == 0
    repo = make_repo(tmp_path / "repo")
    (repo / "AGENTS.md").write_text("# rules\n")
    assert coffer("remember", "Deploys use make.", "--name", "deploy", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    journal = Journal(store_root(os.environ))
    wired = snapshot(home)
    with pytest.raises(InvalidInputError, match="no setup edit is journaled for setup:nowhere"):
        unwiring.undo_one(journal, "setup:nowhere")
    block = str(repo / "AGENTS.md")
    assert journal.get(block) is not None  # a projection record: not setup's to undo
    with pytest.raises(InvalidInputError, match="no setup edit is journaled for"):
        unwiring.undo_one(journal, block)
    assert snapshot(home) == wired
    assert "(`deploy`)" in (repo / "AGENTS.md").read_text()
