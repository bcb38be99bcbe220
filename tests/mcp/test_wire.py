"""``coffer mcp`` on the wire (docs/adr/0028): its own JSON-RPC loop, no SDK on the server.

The lifecycle, version negotiation, errors and the client's roots as raw lines; the SDK's
default client (which probes ``server/discover`` first); and the guard that keeps the SDK,
pydantic and typer out of the server process for good.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from coffer.mcp import server, wire
from tests.helpers import (
    MCP_INIT,
    MCP_INITIALIZED,
    make_repo,
    mcp_call,
    mcp_lines,
    mcp_serve,
)

# Modules the server must never load: the SDK's server side and what it stands on.
SDK = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "httpx", "starlette")
CLI = ("typer", "click", "rich")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def test_every_handshake_version_is_echoed_and_others_get_the_latest(repo: Path) -> None:
    asked = [*server.VERSIONS, "2026-07-28", "2099-01-01", "2024-10-07"]
    requests = [
        {**MCP_INIT, "id": i, "params": {**MCP_INIT["params"], "protocolVersion": v}}  # type: ignore[dict-item]
        for i, v in enumerate(asked)
    ]
    answers = mcp_serve(repo, mcp_lines(*requests))
    got = [a["result"]["protocolVersion"] for a in answers]
    assert got == [*server.VERSIONS, "2025-11-25", "2025-11-25", "2025-11-25"]
    first = answers[0]["result"]
    assert first["serverInfo"] == {"name": "coffer", "version": __import__("coffer").__version__}
    assert first["capabilities"] == {"tools": {"listChanged": False}}
    assert "nothing in a memory is ever executed" in first["instructions"]


def test_protocol_errors_and_the_server_keeps_going(repo: Path) -> None:
    answers = mcp_serve(
        repo,
        mcp_lines(
            b"not json",
            b"[1, 2]",
            {"jsonrpc": "1.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": None, "method": "ping"},
            {"jsonrpc": "2.0", "id": True, "method": "ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "resources/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {}},
            {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"x": 1}},
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}},
            {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": []},
            mcp_call(7, "recall", []),
            {"jsonrpc": "2.0", "id": 99, "result": {}},  # a response nobody asked for
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            b'{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"'
            + b"x" * wire.MAX_LINE
            + b'"}}',
            {"jsonrpc": "2.0", "id": "s", "method": "ping", "params": None},
            mcp_call(8, "no_such_tool", {}),
        )
        + b'{"jsonrpc":"2.0","id":"last","method":"ping"}',  # no final LF: still read
    )
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [
        (None, -32700),
        (None, -32600),
        (None, -32600),
        (None, -32600),
        (None, -32600),
        (2, -32601),
        (3, -32601),
        (4, -32602),
        (5, -32602),
        (6, -32602),
        (7, -32602),
        (None, -32700),
    ]
    results = [a for a in answers if "result" in a]
    assert [a["id"] for a in results] == ["s", 8, "last"]
    unknown = results[1]["result"]
    assert unknown["isError"] is True
    assert unknown["structuredContent"]["error"]["code"] == "UNKNOWN_TOOL"


def test_a_call_still_in_the_pipe_at_eof_is_answered(repo: Path) -> None:
    answers = mcp_serve(
        repo,
        mcp_lines(
            MCP_INIT, MCP_INITIALIZED, mcp_call(1, "remember", {"text": "EOF is not the end."})
        ),
    )
    saved = answers[-1]["result"]
    assert saved["isError"] is False
    assert saved["structuredContent"]["action"] == "created"
    assert json.loads(saved["content"][0]["text"]) == saved["structuredContent"]


def _roots_client(repo: Path, other: Path, answer: dict[str, Any]) -> list[dict[str, Any]]:
    """A client with roots: it reads the server's roots/list request, sends a ping first,
    then ``answer`` (with the request's id filled in)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "coffer", "mcp"],
        cwd=other,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert proc.stdin is not None and proc.stdout is not None
    init = {**MCP_INIT, "params": {**MCP_INIT["params"], "capabilities": {"roots": {}}}}  # type: ignore[dict-item]
    proc.stdin.write(
        mcp_lines(init, MCP_INITIALIZED, mcp_call(1, "remember", {"text": "Roots rule."}))
    )
    proc.stdin.flush()
    seen = [json.loads(proc.stdout.readline())]
    asked = json.loads(proc.stdout.readline())
    assert asked["method"] == "roots/list" and "params" not in asked
    ping = {"jsonrpc": "2.0", "id": "p", "method": "ping"}
    proc.stdin.write(mcp_lines(ping, {"jsonrpc": "2.0", "id": asked["id"], **answer}))
    out, _ = proc.communicate(timeout=60)
    return [*seen, asked, *(json.loads(line) for line in out.splitlines())]


def test_the_project_is_the_clients_first_root_asked_mid_call(repo: Path, tmp_path: Path) -> None:
    elsewhere = make_repo(tmp_path / "elsewhere")
    roots = {"result": {"roots": [{"uri": repo.as_uri(), "name": "repo"}]}}
    answers = _roots_client(repo, elsewhere, roots)
    # The call finishes first (the ping waited), in the root's project, not the cwd's.
    assert [a.get("id") for a in answers[2:]] == [1, "p"]
    assert answers[2]["result"]["structuredContent"]["entry"]["tier"]["root"] == str(repo)


def test_a_roots_error_falls_back_to_the_working_directory(repo: Path, tmp_path: Path) -> None:
    elsewhere = make_repo(tmp_path / "elsewhere")
    refused = {"error": {"code": -32601, "message": "no roots here"}}
    answers = _roots_client(repo, elsewhere, refused)
    entry = answers[2]["result"]["structuredContent"]["entry"]
    assert entry["tier"]["root"] == str(elsewhere)


def test_the_sdk_default_client_falls_back_from_discover(repo: Path) -> None:
    """mcp 2.3's ``Client`` (mode ``auto``) probes ``server/discover`` at 2026-07-28; the
    server answers -32601 and the client falls back to ``initialize`` at 2025-11-25."""

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "coffer", "mcp"],
            cwd=repo,
            env={**os.environ, "ECC_MEMORY_HARNESS": "claude"},
        )
        async with Client(params) as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info is not None and client.server_info.name == "coffer"
            tools = await client.list_tools()
            assert len(tools.tools) == 12
            saved = await client.call_tool("remember", {"text": "Auto mode works."})
            assert not saved.is_error
            hits = await client.call_tool("recall", {"query": "auto mode"})
            assert isinstance(hits.structured_content, dict)
            assert [h["name"] for h in hits.structured_content["results"]] == ["auto-mode-works"]

    anyio.run(main)


# ---- the import set (as tests/cli/test_imports.py does for the CLI) ----------------------


def _imported(argv_code: str, cwd: Path, stdin: bytes, env: dict[str, str]) -> list[str]:
    """Run a server in a fresh interpreter over ``stdin``; the modules it had loaded."""
    code = (
        "import sys\n"
        f"{argv_code}\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(repr(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=60,
        env={**os.environ, **env},
        check=False,
    )
    assert b'"result"' in done.stdout, done.stderr
    modules: list[str] = ast.literal_eval(done.stderr.decode().strip().splitlines()[-1])
    return modules


def _roots(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(f"{n}.") for n in names))


COFFER_MCP = "from coffer.main import main\nsys.argv = ['coffer', 'mcp']"
ECC_MCP = "from coffer.mcp.ecc import main"


def test_coffer_mcp_start_and_initialize_load_no_sdk_no_store(repo: Path) -> None:
    modules = _imported(COFFER_MCP, repo, mcp_lines(MCP_INIT), {})
    assert _roots(modules, SDK + CLI) == []
    unneeded = ("coffer.store.store", "coffer.mcp.tools", "coffer.mcp.specs", "coffer.app")
    assert [m for m in unneeded if m in modules] == []


def test_a_whole_coffer_mcp_session_loads_no_sdk(repo: Path) -> None:
    session = mcp_lines(
        MCP_INIT,
        MCP_INITIALIZED,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        mcp_call(2, "remember", {"text": "Imports stay small."}),
        mcp_call(3, "recall", {"query": "imports"}),
        mcp_call(4, "memory_save", {"title": "t", "body": "b"}),
        mcp_call(5, "memory_search", {"query": "t"}),
    )
    modules = _imported(COFFER_MCP, repo, session, {"ECC_MEMORY_HARNESS": "claude"})
    assert _roots(modules, SDK + CLI) == []
    assert "coffer.vault.api" in modules  # the session did reach the tools


def test_ecc_memory_mcp_loads_no_sdk(repo: Path) -> None:
    env = {"ECC_MEMORY_HARNESS": "claude"}
    init = {**MCP_INIT, "params": {**MCP_INIT["params"], "protocolVersion": "2025-11-25"}}  # type: ignore[dict-item]
    started = _imported(ECC_MCP, repo, mcp_lines(init), env)
    assert _roots(started, SDK + CLI) == []
    assert [m for m in ("coffer.vault.api", "coffer.mcp.vault_tools") if m in started] == []
    session = mcp_lines(
        init,
        MCP_INITIALIZED,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        mcp_call(2, "memory_save", {"title": "t", "body": "b"}),
        mcp_call(3, "memory_search", {"query": "t"}),
    )
    assert _roots(_imported(ECC_MCP, repo, session, env), SDK + CLI + ("coffer.store",)) == []


# ---- the transport in-process ------------------------------------------------------------


def _inbox(data: bytes, limits: wire.Limits | None = None) -> wire.Inbox:
    read, write = os.pipe()
    inbox = wire.Inbox(read, limits)
    if len(data) < 60_000:  # fits the pipe: the reader sees it as one chunk
        os.write(write, data)
        os.close(write)
        return inbox.start()

    def feed() -> None:
        with os.fdopen(write, "wb") as pipe:
            pipe.write(data)

    threading.Thread(target=feed, daemon=True).start()
    return inbox.start()


def _drain(inbox: wire.Inbox) -> list[wire.Item]:
    items = []
    while (item := inbox.next(10)) is not None:
        items.append(item)
    return items


def test_lines_markers_and_the_last_unterminated_line() -> None:
    big = b"x" * (wire.MAX_LINE + 1)
    items = _drain(_inbox(b"a\r\n\nb\n" + big + b"tail\nc\nlast"))
    assert items == [b"a\r", b"", b"b", wire.TOO_LARGE, b"c", b"last"]


def test_next_times_out_and_put_back_comes_first() -> None:
    read, write = os.pipe()
    inbox = wire.Inbox(read).start()
    assert inbox.next(0.05) is wire.TIMEOUT
    os.write(write, b"one\ntwo\n")
    assert inbox.next(10) == b"one"
    inbox.put_back([b"zero", wire.TOO_LARGE])
    os.close(write)
    assert _drain(inbox) == [b"zero", wire.TOO_LARGE, b"two"]


def test_the_queue_limit_drops_until_drained_then_says_so_once() -> None:
    lines_in = b"".join(b"%d\n" % i for i in range(10))
    items = _drain(_inbox(lines_in, wire.Limits(messages=3, bytes=1000)))
    # One handled at once, three waiting, the rest of the chunk dropped; then the notice.
    assert items == [b"0", b"1", b"2", b"3", wire.OVERFLOW]
    by_bytes = _drain(_inbox(b"aaaa\nbbbb\ncccc\n", wire.Limits(messages=64, bytes=6)))
    assert by_bytes == [b"aaaa", b"bbbb", wire.OVERFLOW]


def test_parse_is_strict_and_lenient_where_the_reference_is() -> None:
    assert wire.parse(b'{"a": 1}\r') == {"a": 1}
    assert wire.parse(b'"\xff"') == "\ufffd"  # invalid UTF-8 becomes U+FFFD, not an error
    for bad in (b"NaN", b'{"a": Infinity}', b"\xef\xbb\xbf{}", b"", b"{} {}"):
        with pytest.raises(wire.ParseFailure):
            wire.parse(bad)


def test_dumps_writes_lone_surrogates_as_escapes() -> None:
    text = wire.dumps({"t": "caf\u00e9 \ud800 \U0001f680"})
    assert text == '{"t":"caf\u00e9 \\ud800 \U0001f680"}'
    text.encode("utf-8")  # always encodable


def test_roots_are_asked_once_and_again_after_list_changed(repo: Path, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "coffer", "mcp"],
        cwd=make_repo(tmp_path / "elsewhere"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert proc.stdin is not None and proc.stdout is not None
    init = {**MCP_INIT, "params": {**MCP_INIT["params"], "capabilities": {"roots": {}}}}  # type: ignore[dict-item]
    roots = {"roots": [{"uri": repo.as_uri()}, {"uri": "https://example.com/not-a-file"}]}
    changed = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
    asked = []
    proc.stdin.write(mcp_lines(init, MCP_INITIALIZED))
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 0  # initialize
    for i, extra in enumerate(([], [], [changed]), start=1):
        proc.stdin.write(mcp_lines(*extra, mcp_call(i, "list_memory", {"scope": "project"})))
        proc.stdin.flush()
        message = json.loads(proc.stdout.readline())
        while message.get("method") == "roots/list":
            asked.append(message["id"])
            proc.stdin.write(mcp_lines({"jsonrpc": "2.0", "id": message["id"], "result": roots}))
            proc.stdin.flush()
            message = json.loads(proc.stdout.readline())
        assert message["id"] == i
        tiers = message["result"]["structuredContent"]["tiers"]
        assert [t["root"] for t in tiers] in ([], [str(repo)])  # no tier yet, or the root's
    proc.stdin.close()
    proc.wait(timeout=60)
    assert asked == ["coffer-roots-1", "coffer-roots-2"]
