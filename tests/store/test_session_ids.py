"""Issue 28 §3: an entry records the agent session it came from.

``coffer remember --origin-session-id`` and the MCP ``remember`` tool's ``origin_session_id``
set ``metadata.origin_session_id``; the session-start hook reads the ``session_id`` the
agent writes to its hook's stdin (Claude Code's and Codex's SessionStart input) and hands it
to the model, on the full path and on the no-op path alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import (
    MCP_INIT,
    MCP_INITIALIZED,
    coffer,
    imported_after,
    make_repo,
    mcp_call,
    mcp_lines,
    mcp_serve,
    store,
)

# What Claude Code 2.1 writes to a SessionStart hook's stdin (its hooks reference).
CLAUDE_INPUT = {
    "session_id": "3f9a1c2e-7b4d-4e6f-9a0b-1c2d3e4f5a6b",
    "transcript_path": "/home/u/.claude/projects/-repo/3f9a1c2e.jsonl",
    "cwd": "/repo",
    "hook_event_name": "SessionStart",
    "source": "startup",
}
# What Codex writes (codex-rs/hooks/schema/generated/session-start.command.input.schema.json).
CODEX_INPUT = {
    "session_id": "019d036d-c7fa-72d2-b6fd-78878bfe34e4",
    "transcript_path": None,
    "cwd": "/repo",
    "hook_event_name": "SessionStart",
    "model": "gpt-5-codex",
    "permission_mode": "default",
    "source": "startup",
}


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    return make_repo(tmp_path / "repo")


def metadata(repo: Path, name: str) -> dict[str, object]:
    tier = store().project_tier(repo)
    assert tier is not None
    text = (tier.dir / f"{name}.md").read_text(encoding="utf-8")
    head = text.split("---\n")[1]
    meta = yaml.safe_load(head)["metadata"]
    assert isinstance(meta, dict)
    return meta


def test_remember_records_the_origin_session_id(repo: Path) -> None:
    done = coffer(
        "remember", "We deploy with make release.", "--name", "deploy",
        "--origin-session-id", "sess-42", cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert metadata(repo, "deploy")["origin_session_id"] == "sess-42"
    # Without the option the entry has none (it is only written when known).
    assert coffer("remember", "Tabs, not spaces.", "--name", "tabs", cwd=repo).returncode == 0
    assert "origin_session_id" not in metadata(repo, "tabs")
    # Replacing an entry's text records the session the new text comes from.
    replaced = coffer(
        "remember", "Tabs, width 4.", "--name", "tabs", "--replace",
        "--origin-session-id", "sess-43", cwd=repo,
    )  # fmt: skip
    assert replaced.returncode == 0, replaced.stderr
    assert metadata(repo, "tabs")["origin_session_id"] == "sess-43"


@pytest.mark.parametrize("bad", ["has space", "-leading-dash", "x" * 129, "line\nbreak", "é"])
def test_a_bad_session_id_is_refused_and_nothing_is_written(repo: Path, bad: str) -> None:
    done = coffer("remember", "A fact.", "--name", "fact", "--origin-session-id", bad, cwd=repo)
    assert done.returncode == 1
    assert done.stderr.startswith("coffer: error: ") and "is not a session id" in done.stderr
    tier = store().project_tier(repo)
    assert tier is None or not (tier.dir / "fact.md").exists()


def test_the_mcp_remember_tool_takes_origin_session_id(repo: Path) -> None:
    answers = mcp_serve(
        repo,
        mcp_lines(
            MCP_INIT,
            MCP_INITIALIZED,
            mcp_call(1, "remember", {"text": "Make.", "name": "tests", "origin_session_id": "s-1"}),
            mcp_call(
                2, "remember", {"text": "Other.", "name": "other", "origin_session_id": "a b"}
            ),
        ),
        env={"ECC_MEMORY_HARNESS": "claude"},
    )
    by_id = {a.get("id"): a for a in answers}
    assert by_id[1]["result"].get("isError") is not True, by_id[1]
    assert metadata(repo, "tests")["origin_session_id"] == "s-1"
    refused = by_id[2]["result"]
    assert refused["isError"] is True
    assert "origin_session_id must match" in json.dumps(refused)
    tier = store().project_tier(repo)
    assert tier is not None and not (tier.dir / "other.md").exists()


def hook(repo: Path, agent: str, payload: object | None) -> str:
    text = None if payload is None else json.dumps(payload)
    done = coffer("project", "--hook", "--for", agent, cwd=repo, input=text)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_session_start_hook_hands_the_session_id_over(repo: Path) -> None:
    assert coffer("remember", "We deploy with make release.", cwd=repo).returncode == 0
    sid = CLAUDE_INPUT["session_id"]
    first = hook(repo, "claude", CLAUDE_INPUT)  # the full path: it projects, then says the id
    assert f"This session's id is `{sid}`" in first
    assert f"--origin-session-id {sid}" in first
    # The next start has nothing to project: the no-op path says the new session's id.
    again = {**CLAUDE_INPUT, "session_id": "0b1c2d3e-aaaa-bbbb-cccc-000000000001"}
    second = hook(repo, "claude", again)
    assert second.startswith("This session's id is `0b1c2d3e-aaaa-bbbb-cccc-000000000001`")
    assert sid not in second and "make release" not in second  # memory is in CLAUDE's files
    # Codex's input shape, through Codex's own hook.
    assert f"`{CODEX_INPUT['session_id']}`" in hook(repo, "codex", CODEX_INPUT)
    # No input, or input without a usable id: nothing about a session (and no wait).
    assert "session's id" not in hook(repo, "claude", None)
    assert "session's id" not in hook(repo, "claude", {"session_id": "not an id!"})
    assert "session's id" not in hook(repo, "claude", {"hook_event_name": "SessionStart"})
    # A person's `coffer project --for` never reads stdin.
    plain = coffer("project", "--for", "claude", cwd=repo, input=json.dumps(CLAUDE_INPUT))
    assert plain.returncode == 0 and "session's id" not in plain.stdout


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ('{\n  "session_id" : "pretty-1",\n  "cwd": "/r"\n}', "pretty-1"),  # spaced, multi-line
        ('{"cwd": "/r", "session_id": "last-1"}', "last-1"),
        ('{"session_id": "no-end', None),  # cut short
        ('{"session_id": 42}', None),
        ('{"session_id": "a\\"b"}', None),  # an escape: not an id coffer stores
        ("not json at all", None),
    ],
)
def test_the_hook_input_is_read_strictly(repo: Path, raw: str, said: str | None) -> None:
    done = coffer("project", "--hook", "--for", "claude", cwd=repo, input=raw)
    assert done.returncode == 0, done.stderr
    if said is None:
        assert "session's id" not in done.stdout
    else:
        assert f"This session's id is `{said}`" in done.stdout


def test_the_no_op_path_reads_the_id_without_importing_more(repo: Path) -> None:
    argv = ["project", "--hook", "--for", "claude"]
    assert hook(repo, "claude", CLAUDE_INPUT)  # the full run that records the stamp
    heavy = ("typer", "yaml", "json", "typing", "pathlib", "coffer.cli", "coffer.store.entry")
    payload = json.dumps({**CLAUDE_INPUT, "session_id": "fast-1"})
    assert imported_after(argv, repo, heavy, input=payload) == (0, [])
    assert hook(repo, "claude", {**CLAUDE_INPUT, "session_id": "fast-1"}).startswith(
        "This session's id is `fast-1`"
    )


def test_the_id_the_hook_gave_reaches_the_entry_end_to_end(repo: Path) -> None:
    # The agent starts: its hook tells the model the id; the model remembers through MCP
    # with that id; the entry carries it.
    said = hook(repo, "codex", CODEX_INPUT)
    sid = said.split("`")[1]
    assert sid == CODEX_INPUT["session_id"]
    answers = mcp_serve(
        repo,
        mcp_lines(
            MCP_INIT,
            MCP_INITIALIZED,
            mcp_call(
                1, "remember", {"text": "Use ruff.", "name": "lint", "origin_session_id": sid}
            ),
        ),
        env={"ECC_MEMORY_HARNESS": "codex"},
    )
    assert answers[-1]["result"].get("isError") is not True
    assert metadata(repo, "lint")["origin_session_id"] == sid


def test_an_agent_that_reads_json_gets_the_id_in_its_frame(repo: Path, fake_home: Path) -> None:
    # Gemini CLI takes context only as hookSpecificOutput JSON: the id is put into the
    # framed text on the no-op path too, and the result is still valid JSON.
    (fake_home / ".gemini").mkdir()
    payload = {"session_id": "gem-1", "hook_event_name": "SessionStart", "cwd": str(repo)}
    for sid in ("gem-1", "gem-2"):  # the full run, then the no-op
        out = hook(repo, "gemini", {**payload, "session_id": sid})
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert context.startswith(f"This session's id is `{sid}`")


def test_a_hook_whose_stdin_stays_open_does_not_wait(repo: Path) -> None:
    # An agent that keeps the hook's stdin open and writes nothing: the hook reads what is
    # there (nothing) and finishes; the session start is never held up by coffer.
    for _ in range(2):  # the full path, then the no-op path
        proc = subprocess.Popen(
            [sys.executable, "-m", "coffer", "project", "--hook", "--for", "claude"],
            cwd=repo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ),
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            code = proc.wait(timeout=30)  # stdin is still open here
            out = proc.stdout.read()
        finally:
            proc.stdin.close()
            proc.kill()
        assert code == 0 and b"session's id" not in out
