"""ECC checklist items 30–38: the CLI surface, in-process and through ``coffer vault``.

Section numbers (§n) are those of docs/vault-format.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coffer.vault import api

from .conftest import golden, project_root, sha256

USAGE = golden("usage.txt").decode()


# 30
@pytest.mark.parametrize("args", [(), ("--help",), ("-h",), ("help",), ("save", "--help")])
def test_c30_usage_text(repo: Path, vault_cli, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    result = vault_cli(*args)
    assert (result.code, result.out, result.err) == (0, USAGE, "")
    assert len(USAGE.encode()) == 1450
    assert sha256(USAGE.encode()) == (
        "d93aa0bceeac5b90456e5818f391fb4fb17e66efb88cead51374f4f4877662cc"
    )


def test_c30_help_only_after_a_successful_parse(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    result = vault_cli("save", "--help", "--bogus")
    assert (result.code, result.out, result.err) == (1, "", "Error: Unknown option: --bogus\n")


def test_c30_through_coffer_vault(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from coffer.cli.typer_app import run

    assert run(["vault"]) == 0
    assert capsys.readouterr().out == COFFER_USAGE
    assert run(["vault", "--json"]) == 1
    assert capsys.readouterr().err == "coffer vault: error: Unknown vault command: --json\n"


# `coffer vault` names itself (issue 9, point 8); `python -m coffer.vault` stays the reference.
COFFER_USAGE = (
    USAGE.replace("ECC Memory Vault", "coffer vault: the ECC memory vault (ecc.memory.v1)")
    .replace("ecc memory ", "coffer vault ")
    .replace(
        "  ecc-memory-mcp             Start the opt-in local stdio MCP server\n",
        "  coffer mcp                 Start coffer's stdio MCP server (vault tools need\n"
        "                             ECC_MEMORY_HARNESS set to the agent's name)\n",
    )
)


def test_c30_subprocess_coffer_vault_speaks_as_coffer_vault(repo: Path) -> None:
    def run(*args: str, module: str = "coffer") -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, "ECC_DRY_RUN": "1"}
        cmd = [sys.executable, "-m", module, *args]
        return subprocess.run(cmd, capture_output=True, env=env, check=False)

    done = run("vault", "--help")
    assert (done.returncode, done.stdout, done.stderr) == (0, COFFER_USAGE.encode(), b"")
    assert b"ecc memory" not in done.stdout and b"ecc-memory-mcp" not in done.stdout
    bogus = run("vault", "bogus")
    assert (bogus.returncode, bogus.stdout) == (1, b"")
    assert bogus.stderr == b"coffer vault: error: Unknown vault command: bogus\n"
    dry = run("vault", "save", "--title", "t", "--stdin")
    assert dry.stderr == (
        b"coffer vault: error: vault save is disabled in dry-run mode; no files were written.\n"
    )
    # The reference CLI itself is unchanged, byte for byte.
    reference = run("--help", module="coffer.vault")
    assert (reference.returncode, reference.stdout) == (0, USAGE.encode())
    assert run("bogus", module="coffer.vault").stderr == b"Error: Unknown memory command: bogus\n"


# 31
def test_c31_errors_go_to_stderr_only(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    result = vault_cli("read", "--json")
    assert (result.code, result.out, result.err) == (
        1,
        "",
        "Error: read requires exactly one memory ID.\n",
    )
    assert vault_cli("doctor").code == 0


# 32
def test_c32_dry_run_blocks_writes_only(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    env = {"ECC_DRY_RUN": "1"}
    for command in ("init", "save", "handoff"):
        result = vault_cli(command, "--title", "x", "--stdin", env=env, stdin=b"b")
        assert result.err == (
            f"Error: memory {command} is disabled in dry-run mode; no files were written.\n"
        )
    assert not (repo / ".ecc").exists()
    assert vault_cli("search", "x", env=env).code == 0


# 33
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("save", "--title", "x", "--dry-run"), "Unknown option: --dry-run"),
        (("save", "--title", "x", "--trust", "reviewed"), "Unknown option: --trust"),
        (("save", "--title", "--stdin"), "--title requires a value."),
        (("--json",), "Unknown memory command: --json"),
        (("search", "-x"), "Unknown option: -x"),
        (("search", "--", "x"), "Unknown option: --"),
        (("search", "--limit"), "--limit requires a value."),
    ],
)
def test_c33_argument_grammar(repo: Path, vault_cli, args: tuple[str, ...], message: str) -> None:  # type: ignore[no-untyped-def]
    assert vault_cli(*args).err == f"Error: {message}\n"


def test_c33_single_dash_values_are_accepted(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    assert vault_cli("search", "--limit", "-5").code == 0


# 34
def test_c34_handoff_requirements_and_kind(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    assert vault_cli("handoff", "--title", "t", "--stdin", stdin=b"b").err == (
        "Error: --from is required for handoffs.\n"
    )
    assert vault_cli("handoff", "--title", "t", "--from", "codex", "--stdin", stdin=b"b").err == (
        "Error: At least one --target is required for handoffs.\n"
    )
    ok = vault_cli(
        "handoff", "--title", "t", "--from", "codex", "--target", "claude",
        "--kind", "note", "--kind", "fact", "--stdin", "--json", stdin=b"b",
    )  # fmt: skip
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["memory"]["kind"] == "handoff"


# 35
def test_c35_single_use_options(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    save = ("save", "--title", "t", "--stdin")
    assert vault_cli(*save, "--kind", "note", "--kind", "fact", stdin=b"b").err == (
        "Error: --kind may be provided only once.\n"
    )
    assert vault_cli(*save, "--scope", "team", "--scope", "team", stdin=b"b").err == (
        "Error: --scope may be provided only once.\n"
    )
    (repo / "f").write_text("b")
    assert vault_cli(*save, "--body-file", "f").err == (
        "Error: Choose exactly one memory body source: --stdin or --body-file.\n"
    )


# 36
def test_c36_save_output(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    human = vault_cli(
        "save", "--title", "Authentication migration status", "--kind", "context",
        "--source-harness", "codex", "--target", "all", "--tag", "auth", "--stdin",
        stdin=b"The migration tests pass; rollout is still pending.\n",
    )  # fmt: skip
    lines = human.out.split("\n")
    memory_id = lines[1].removeprefix("ID: ")
    assert human.out == (
        "Saved unreviewed context: Authentication migration status\n"
        f"ID: {memory_id}\n"
        f"Path: project:contexts/{memory_id}.md\n"
    )
    # The saved file is byte-identical to Example A apart from the id and timestamps.
    saved = (project_root(repo) / "contexts" / f"{memory_id}.md").read_text()
    created = api.read(memory_id)["memory"]["createdAt"]
    expected = golden("example_a.md").decode()
    expected = expected.replace("mem_20261130_dbbaac390ca547528374", memory_id)
    assert saved == expected.replace("2026-11-30T00:07:00.438Z", created)
    as_json = vault_cli("save", "--title", "t", "--stdin", "--json", stdin=b"body")
    payload = json.loads(as_json.out)
    assert list(payload) == ["schemaVersion", "memory", "path"]
    assert payload["schemaVersion"] == "ecc.memory.write.v1"
    assert "body" not in payload["memory"]
    assert payload["path"] == f"project:notes/{payload['memory']['id']}.md"
    assert as_json.out == json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def test_example_b_handoff_reproduced_through_cli(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    result = vault_cli(
        "handoff", "--from", "codex", "--target", "claude", "--target", "hermes",
        "--title", "Finish auth migration", "--tag", "auth", "--tag", "migration", "--stdin",
        "--json", stdin=b"Token rotation tests pass.",
    )  # fmt: skip
    memory = json.loads(result.out)["memory"]
    saved = (project_root(repo) / "handoffs" / f"{memory['id']}.md").read_text()
    expected = golden("example_b.md").decode()
    expected = expected.replace("mem_20261130_c41aef187bea4b4693f5", memory["id"])
    assert saved == expected.replace("2026-11-30T00:07:00.584Z", memory["createdAt"])


# 37
def test_c37_init_output(repo: Path, vault_cli, fake_home: Path) -> None:  # type: ignore[no-untyped-def]
    human = vault_cli("init")
    project, team = project_root(repo), repo / ".ecc" / "memory" / "team"
    assert human.out == (
        f"Initialized ECC memory scopes: project, team\n- project: {project}\n- team: {team}\n"
    )
    payload = json.loads(vault_cli("init", "--json").out)
    assert payload["schemaVersion"] == "ecc.memory.init.v1"
    assert payload["roots"] == {
        "project": str(project),
        "team": str(team),
        "user": str(fake_home / ".ecc" / "memory"),
    }
    assert len(payload["directories"]) == 16
    assert payload["directories"][0] == str(project / "contexts")
    assert vault_cli("init", "x").err == "Error: init does not accept positional arguments.\n"
    assert vault_cli("init", "--scope", "team", "--scope", "team").err == (
        "Error: scopes must not contain duplicate values.\n"
    )


# 38
def test_c38_terminal_sanitization_and_json_preservation(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    saved = vault_cli(
        "save", "--title", "bidi\u200fand\u061cmarks", "--stdin", "--json", stdin=b"a\r\nb\tc"
    )
    memory_id = json.loads(saved.out)["memory"]["id"]
    human = vault_cli("read", memory_id)
    assert "[unreviewed] bidiandmarks\n" in human.out
    assert "\n\na\nb\tc\n\n" in human.out
    as_json = json.loads(vault_cli("read", memory_id, "--json").out)
    assert as_json["memory"]["body"] == "a\r\nb\tc"
    assert as_json["memory"]["title"] == "bidi\u200fand\u061cmarks"


def test_c38_sanitized_error_example(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    command = "x\x1b]8;;http://e\x07y\x1b[1mz\x9bq"
    assert vault_cli(command).err == "Error: Unknown memory command: xyz\n"
