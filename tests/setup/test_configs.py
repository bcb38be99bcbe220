"""`coffer setup` leaves every config it edits meaning what it meant (issue 22 §3–§6,
docs/adr/0041): the parsed document after an edit is the original plus coffer's keys, or the
edit is refused; another program's write between coffer's read and its rename is never lost;
a file the user made read-only is not written. Through the real CLI, in the fake home."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from coffer.projection.journal import Journal
from tests.helpers import coffer

CODEX_DOTTED = """\
model = "gpt-5"
mcp_servers.github.command = "npx"
mcp_servers.github.args = ["-y", "@modelcontextprotocol/server-github"]
sandbox_mode = "workspace-write"
approval_policy = "on-request"
"""
CODEX_PLAIN = 'model = "gpt-5"\napproval_policy = "never"\n'


def _setup(agent: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return coffer("setup", "--yes", "--no-service", "--agent", agent, *extra)


def _without_coffer(doc: dict[str, Any], *keys: str) -> dict[str, Any]:
    node = doc
    for k in keys:
        node = node[k]
    del node["coffer"]
    return doc


# ---- §3: TOML dotted keys -------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        CODEX_DOTTED,
        # other orders: the top-level keys after the dotted ones are the ones that moved
        'mcp_servers.github.command = "npx"\napproval_policy = "never"\nmodel = "o3"\n',
        'sandbox_mode = "read-only"\nmcp_servers.github.command = "npx"\n\n[tui]\nx = 1\n',
        # a dotted key inside a table, then another table
        '[profiles.fast]\nmodel = "o3"\n\n[mcp_servers]\ngithub.command = "npx"\n'
        'approval_policy = "x"\n\n[tui]\ny = 2\n',
    ],
)
def test_codex_dotted_keys_keep_the_users_settings(fake_home: Path, config: str) -> None:
    path = fake_home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(config)
    done = _setup("codex")
    assert done.returncode == 0, done.stdout + done.stderr
    after = tomllib.loads(path.read_text())
    assert after["mcp_servers"]["coffer"]["args"] == ["mcp"]
    assert _without_coffer(after, "mcp_servers") == tomllib.loads(config)
    assert coffer("setup", "--undo").returncode == 0
    assert path.read_text() == config
    # and undone by removing only coffer's entries, after a hand edit elsewhere
    assert _setup("codex").returncode == 0
    path.write_text("# mine\n" + path.read_text())
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert tomllib.loads(path.read_text()) == tomllib.loads(config)


# ---- §4: YAML with a quoted key -------------------------------------------------------------


def strict_yaml(text: str) -> Any:
    """PyYAML's safe loader, refusing duplicate keys as Goose's (serde) parser does."""

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        keys = [loader.construct_object(k) for k, _ in node.value]
        assert len(keys) == len(set(keys)), f"duplicate keys: {keys}"
        return loader.construct_mapping(node)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Strict)  # a SafeLoader subclass: safe


def test_goose_quoted_empty_extensions_is_refused_untouched(fake_home: Path) -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "goose" / "config.yaml"
    path.parent.mkdir(parents=True)
    text = 'GOOSE_PROVIDER: openai\n"extensions": {}\nGOOSE_MODEL: gpt-4.1\n'
    path.write_text(text)
    done = _setup("goose")
    assert done.returncode == 1
    assert "coffer: refused:" in done.stderr
    assert "extensions is not a block mapping" in done.stdout + done.stderr
    assert path.read_text() == text
    strict_yaml(path.read_text())


@pytest.mark.parametrize("quote", ['"', "'"])
def test_goose_quoted_extensions_block_gets_coffer_inside_it(fake_home: Path, quote: str) -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "goose" / "config.yaml"
    path.parent.mkdir(parents=True)
    text = (
        f"GOOSE_PROVIDER: openai\n{quote}extensions{quote}:\n  developer:\n"
        "    enabled: true\n    type: builtin\nGOOSE_MODEL: gpt-4.1\n"
    )
    path.write_text(text)
    done = _setup("goose")
    assert done.returncode == 0, done.stdout + done.stderr
    after = strict_yaml(path.read_text())
    assert after["extensions"]["coffer"]["cmd"].endswith("coffer")
    assert _without_coffer(after, "extensions") == yaml.safe_load(text)
    path.write_text(path.read_text().replace("gpt-4.1", "gpt-5"))
    assert coffer("setup", "--undo").returncode == 0
    assert path.read_text() == text.replace("gpt-4.1", "gpt-5")


# ---- §5: a concurrent writer ----------------------------------------------------------------

# Another program (Claude Code, say) rewriting ~/.claude.json as it does: read, change one key,
# write a temporary file and rename it over the config, as fast as it can.
WRITER = r"""
import json, os, random, sys, time
path, stop, done = sys.argv[1], sys.argv[2], sys.argv[3]
i = 0
while not os.path.exists(stop):
    time.sleep(random.uniform(0, 0.03))
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        continue
    doc[f"w{i}"] = i
    tmp = f"{path}.writer-{i}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
    os.replace(tmp, path)
    i += 1
with open(done, "w") as fh:
    fh.write(str(i))
"""


def _every_write_survives(path: Path, runs: list[tuple[str, ...]], tmp: Path) -> int:
    stop, done = tmp / "stop", tmp / "done"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(stop), str(done)])
    try:
        for args in runs:
            out = coffer(*args)
            # applied, or refused with a clear word; never a traceback
            assert "Traceback" not in out.stderr, out.stderr
    finally:
        stop.write_text("")
        writer.wait(timeout=30)
    writes = int(done.read_text())
    doc = json.loads(path.read_text())
    lost = [i for i in range(writes) if f"w{i}" not in doc]
    assert not lost, f"{len(lost)} of the other program's {writes} writes lost: {lost[:10]}"
    return writes


def test_claude_json_writes_by_another_program_survive_setup_and_undo(
    fake_home: Path, tmp_path: Path
) -> None:
    path = fake_home / ".claude" / ".claude.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"numStartups": 3, "mcpServers": {}}, indent=2))
    runs = [("setup", "--yes", "--no-service", "--agent", "claude"), ("setup", "--undo")] * 4
    assert _every_write_survives(path, runs, tmp_path) > 0


FIFO_READER = r"""
import os, sys
fifo, target, marker = sys.argv[1], sys.argv[2], sys.argv[3]
# Each of coffer's file-system steps opens the fifo (COFFER_FAULTS_LOG) and waits for this
# reader: on the step that makes the temporary copy of the target, rewrite the target, so
# the write lands after coffer's read and before its rename. Once: the retry must then work.
done = False
while True:
    with open(fifo, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    if not done and any(line.split(" ", 1)[-1] == f"tmpfile {target}" for line in lines):
        done = True
        with open(target, encoding="utf-8") as fh:
            doc = fh.read()
        tmp = target + ".other"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(doc.replace("{", '{"' + marker + '": 1, ', 1))
        os.replace(tmp, target)
"""


@pytest.mark.posix_only("os.mkfifo: Windows has no FIFOs")
def test_a_write_between_read_and_rename_is_redone_not_lost(
    fake_home: Path, tmp_path: Path
) -> None:
    path = fake_home / ".claude" / ".claude.json"
    path.parent.mkdir()
    path.write_text('{"numStartups": 3}\n')
    fifo = tmp_path / "steps"
    os.mkfifo(fifo)
    reader = subprocess.Popen(
        [sys.executable, "-c", FIFO_READER, str(fifo), str(path), "other"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        done = coffer(
            "setup", "--yes", "--no-service", "--agent", "claude",
            env={"COFFER_FAULTS_LOG": str(fifo)},
        )  # fmt: skip
    finally:
        reader.kill()
        reader.wait()
    doc = json.loads(path.read_text())
    assert doc.get("other") == 1, path.read_text() + done.stdout + done.stderr  # theirs
    assert doc["numStartups"] == 3
    assert done.returncode == 0, done.stdout + done.stderr
    assert "coffer" in doc["mcpServers"]


# ---- §6: read-only files --------------------------------------------------------------------


def test_a_read_only_config_is_refused_and_nothing_journaled(fake_home: Path) -> None:
    path = fake_home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX_PLAIN)
    path.chmod(0o444)
    done = _setup("codex")
    assert done.returncode == 1
    assert "read-only" in done.stdout + done.stderr
    assert path.read_text() == CODEX_PLAIN
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert not (fake_home / ".codex" / "hooks.json").exists()  # the agent is refused whole
    assert not list(Journal(Path(os.environ["COFFER_HOME"])).records())
    listed = coffer("setup", "--undo")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert path.read_text() == CODEX_PLAIN


def test_a_read_only_agents_md_is_not_rewritten(fake_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    agents = repo / "AGENTS.md"
    agents.write_text("# Team rules\n")
    agents.chmod(0o444)
    assert coffer("adapter", "enable", "codex", cwd=repo).returncode == 0
    assert coffer("remember", "the build uses make", cwd=repo).returncode == 0
    done = coffer("project", cwd=repo)
    assert "read-only" in done.stdout + done.stderr
    assert agents.read_text() == "# Team rules\n"
    assert stat.S_IMODE(agents.stat().st_mode) == 0o444


def test_a_read_only_codex_config_keeps_its_memory_switch(fake_home: Path, tmp_path: Path) -> None:
    """`coffer project` turns Codex's own memory off in config.toml: not in a 0444 one."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    config = fake_home / ".codex" / "config.toml"
    config.parent.mkdir()
    text = 'model = "gpt-5"\n\n[features]\nmemories = true\n'
    config.write_text(text)
    config.chmod(0o444)
    assert coffer("adapter", "enable", "codex", cwd=repo).returncode == 0
    done = coffer("project", cwd=repo)
    assert "read-only" in done.stdout + done.stderr
    assert config.read_text() == text
    records = Journal(Path(os.environ["COFFER_HOME"])).records()
    assert not [r for r in records if "config.toml" in str(r.get("path"))]
