"""Many writers at once, through every door, with `coffer watch` and `coffer project` running.

At the same moment: `coffer remember` processes (the CLI), `coffer mcp` servers answering
concurrent `remember` calls, files written straight into Claude's linked memory directory (as
Claude's own Write tool does, in place, no coffer involved) and `coffer project` runs, while
one `coffer watch` reacts to all of it. Then: no entry lost, none stored twice, no duplicate
line in MEMORY.md, every process done within a generous deadline (no deadlock), and once the
watcher has settled the AGENTS.md block is exactly what the store renders. The sizes are what
the default suite can afford; COFFER_CONCURRENCY_SCALE=<n> multiplies every kind of writer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from coffer.projection import managed_block
from coffer.projection.engine import Engine
from coffer.store import watch_state
from coffer_adapters.claude_code import slug
from tests.helpers import coffer, make_repo, store

SCALE = max(1, int(os.environ.get("COFFER_CONCURRENCY_SCALE", "1") or "1"))
CLI_WRITERS = 10 * SCALE
MCP_SERVERS = 3 * SCALE
MCP_CALLS = 2  # concurrent calls per server
FILE_WRITERS = 10 * SCALE
PROJECT_RUNS = 3 * SCALE
DEADLINE = 120.0  # seconds for everything; a deadlock shows up as this timeout


def fact(kind: str, i: int) -> str:
    # Distinct words up front: names derive from them, and the same text is the same memory.
    return f"{kind} writer {i:02d} remembers token {kind}{i:02d}zq"


def wait_for(check: Any, what: str, log: Path, timeout: float = DEADLINE) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}\n--- watch log ---\n{log.read_text()}")


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    log = tmp_path / "watch.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "coffer", "watch", "--log-file", str(log), "--debounce", "50"],
        env=os.environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield proc, log
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _mcp_writers(repo: Path, results: list[dict[str, Any]], errors: list[str]) -> None:
    async def one_server(n: int) -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "coffer", "mcp"], cwd=repo, env=dict(os.environ)
        )
        with open(repo.parent / f"mcp-{n}.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()

                async def call(k: int) -> None:
                    text = fact("mcp", n * MCP_CALLS + k)
                    result = await session.call_tool("remember", {"text": text})
                    if result.is_error:
                        errors.append(f"{text}: {result.structured_content}")
                    else:
                        assert isinstance(result.structured_content, dict)
                        results.append(result.structured_content)

                async with anyio.create_task_group() as calls:
                    for k in range(MCP_CALLS):
                        calls.start_soon(call, k)

    async def main() -> None:
        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as servers:
                for n in range(MCP_SERVERS):
                    servers.start_soon(one_server, n)

    try:
        anyio.run(main)
    except BaseException as exc:  # reported by the test, not lost in the thread
        errors.append(f"MCP writers: {type(exc).__name__}: {exc}")


def _write_like_claude(directory: Path, i: int, go: threading.Event) -> None:
    name = f"claude-note-{i:02d}"
    text = fact("file", i)
    go.wait()
    # In place, in two writes, as an editor or Claude's Write tool does: the watcher may
    # well see the half-written file first.
    with open(directory / f"{name}.md", "w", encoding="utf-8") as fh:
        fh.write(f"---\nname: {name}\ndescription: {text}\n")
        fh.flush()
        fh.write(f"metadata:\n  type: project\n---\n\n{text}\n")


def test_writers_through_every_door_lose_nothing_and_settle(
    tmp_path: Path, fake_home: Path, watcher: tuple[subprocess.Popen[bytes], Path]
) -> None:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    first = coffer("project", "--project", str(repo))
    assert first.returncode == 0, first.stderr
    tier = store().project_tier(repo)
    assert tier is not None
    claude_dir = fake_home / ".claude" / "projects" / slug(str(repo)) / "memory"
    assert claude_dir.is_symlink() and claude_dir.resolve() == tier.dir.resolve()

    proc, log = watcher
    wait_for(
        lambda: (
            watch_state.read_status(store().root).get("state") == "watching"
            and watch_state.read_status(store().root).get("pending") == 0
        ),
        "the watcher to start",
        log,
    )

    started = time.monotonic()
    go = threading.Event()
    files = [
        threading.Thread(target=_write_like_claude, args=(claude_dir, i, go))
        for i in range(FILE_WRITERS)
    ]
    mcp_results: list[dict[str, Any]] = []
    mcp_errors: list[str] = []
    mcp = threading.Thread(target=_mcp_writers, args=(repo, mcp_results, mcp_errors))
    env = dict(os.environ)
    cli = [
        subprocess.Popen(
            [sys.executable, "-m", "coffer", "remember", fact("cli", i)],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(CLI_WRITERS)
    ]
    mcp.start()
    for t in files:
        t.start()
    go.set()
    projects = [
        subprocess.Popen(
            [sys.executable, "-m", "coffer", "project", "--project", str(repo)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(PROJECT_RUNS)
    ]
    failures = []
    for p in cli + projects:
        try:
            _, err = p.communicate(timeout=max(1.0, DEADLINE - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            p.kill()
            failures.append(f"{p.args[3:]}: still running after {DEADLINE:.0f}s (deadlock?)")
            continue
        if p.returncode != 0:
            failures.append(f"{p.args[3:]} exited {p.returncode}: {err.decode()}")
    for t in files:
        t.join()
    mcp.join(timeout=max(1.0, DEADLINE - (time.monotonic() - started)))
    assert not mcp.is_alive(), "MCP writers still running (deadlock?)"
    writes_done = time.monotonic() - started
    assert not failures, "\n".join(failures)
    assert not mcp_errors, "\n".join(mcp_errors)
    assert [r["action"] for r in mcp_results] == ["created"] * (MCP_SERVERS * MCP_CALLS)

    # The watcher settles: nothing pending, MEMORY.md and the AGENTS.md block current.
    def settled() -> bool:
        s = store()
        rendered, current = s.render_index(tier)
        if current != rendered.text.encode("utf-8", "surrogateescape"):
            return False
        if watch_state.read_status(s.root).get("pending") != 0:
            return False
        statuses, _ = Engine(s, dict(os.environ)).status(repo)
        states = {(st.name, t.tier): t.state for st in statuses for t in st.targets}
        return (
            states.get(("codex", "project")) == "ok" and states.get(("claude", "project")) == "ok"
        )

    wait_for(settled, "the watcher to settle", log)
    total = time.monotonic() - started
    assert proc.poll() is None, "the watcher died"

    expected = (
        [fact("cli", i) for i in range(CLI_WRITERS)]
        + [fact("mcp", i) for i in range(MCP_SERVERS * MCP_CALLS)]
        + [fact("file", i) for i in range(FILE_WRITERS)]
    )
    scan = store().scan(tier)
    assert not scan.problems, scan.problems
    bodies = Counter(e.body.strip() for e in scan.entries)
    assert [t for t in expected if bodies[t] != 1] == [], "lost or doubled entries"
    assert len(scan.entries) == len(expected)

    index_lines = [
        ln for ln in (tier.dir / "MEMORY.md").read_text().splitlines() if ln.startswith("- ")
    ]
    assert len(index_lines) == len(set(index_lines)), "duplicate MEMORY.md lines"
    listed = Counter(e.filename for e in scan.entries for ln in index_lines if e.filename in ln)
    assert all(listed[e.filename] == 1 for e in scan.entries), listed

    agents = (repo / "AGENTS.md").read_bytes()
    span = managed_block.find(agents)
    assert span is not None and not span.edited
    assert [t for t in expected if span.body.count(t) != 1] == []
    print(
        f"\n{len(expected)} entries from {CLI_WRITERS} CLI, {MCP_SERVERS}x{MCP_CALLS} MCP and "
        f"{FILE_WRITERS} file writers with {PROJECT_RUNS} `coffer project` runs: writes done "
        f"in {writes_done:.1f}s, settled in {total:.1f}s"
    )
