"""MCP ``recall`` round-trip latency over 1,000 entries, and the server's start-up.

Run: ``/work/venv/bin/python benchmarks/bench_mcp.py [--entries 1000] [--calls 300]``

Builds a throwaway home with a git project whose tier holds N entries (plus N/10 global
ones), starts ``coffer mcp`` as a subprocess through the official SDK's stdio client (as an
agent would), and times ``tools/call recall`` from the client's send to the parsed result:
JSON-RPC over pipes, argument validation, the BM25 search in both tiers, the result JSON.
Queries rotate over single words and pairs; the first calls (cache build) are warm-up.
Also reported: ``initialize`` (process start to a ready session) and ``tools/list``, and the
same ``recall`` from a raw JSON-RPC client (one line written, one read): the server's own
round trip, without the SDK client's validation of each result in this process, which an
agent's own client (Node, Rust) does not share.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, ms, write_entries

QUERIES = [
    "deploy",
    "release database",
    "cache queue",
    "auth token",
    "schema migration",
    "kubernetes staging",
    "metrics logging",
    "retry timeout",
    "docker build",
    "entry number 512",
]


async def measure(
    env: dict[str, str], repo: Path, calls: int, warmup: int
) -> tuple[float, list[float], list[float], int]:
    cmd = coffer_cmd()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp"], cwd=repo, env=env)
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter() - start
        listing = []
        for _ in range(20):
            t = time.perf_counter()
            await session.list_tools()
            listing.append(time.perf_counter() - t)
        recall = []
        hits = 0
        for i in range(warmup + calls):
            query = QUERIES[i % len(QUERIES)]
            t = time.perf_counter()
            result = await session.call_tool("recall", {"query": query, "limit": 10})
            dt = time.perf_counter() - t
            if result.is_error:
                raise SystemExit(f"recall failed: {result.structured_content}")
            if i >= warmup:
                recall.append(dt)
                assert isinstance(result.structured_content, dict)
                hits += len(result.structured_content["results"])
    return ready, listing, recall, hits


def measure_raw(env: dict[str, str], repo: Path, calls: int, warmup: int) -> list[float]:
    """``tools/call recall`` over the server's stdio with nothing but json and pipes."""
    cmd = coffer_cmd()
    proc = subprocess.Popen(
        [*cmd, "mcp"],
        cwd=repo,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def send(message: dict[str, object]) -> None:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw"}}
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
    stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    times = []
    for i in range(warmup + calls):
        call = {"name": "recall", "arguments": {"query": QUERIES[i % len(QUERIES)], "limit": 10}}
        t = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": call})
        answer = json.loads(stdout.readline())
        dt = time.perf_counter() - t
        if "result" not in answer or answer["result"].get("isError"):
            raise SystemExit(f"raw recall failed: {answer}")
        if i >= warmup:
            times.append(dt)
    stdin.close()
    proc.wait(timeout=30)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        os.environ.update(env)
        from coffer.store import Store

        repo = base / "repo"
        (repo / ".git").mkdir(parents=True)
        store = Store.from_environ(env)
        ptier = store.project_tier(repo, create=True)
        assert ptier is not None
        gtier = store.global_tier(create=True)
        write_entries(ptier.dir, args.entries)
        write_entries(gtier.dir, max(1, args.entries // 10), prefix="global")
        store.regenerate_index(ptier)
        store.regenerate_index(gtier)

        ready, listing, recall, hits = anyio.run(measure, env, repo, args.calls, args.warmup)
        n = len(store.entries(ptier)) + len(store.entries(gtier))
        print(f"coffer mcp, {n} entries ({args.entries} project + {n - args.entries} global)")
        print(f"  start + initialize : {ready * 1000:7.1f} ms")
        print(f"  tools/list         : {ms(listing)}")
        print(f"  recall round trip  : {ms(recall)}  ({len(recall)} calls, {hits} hits)")
        raw = measure_raw(env, repo, args.calls, args.warmup)
        print(f"  recall, raw client : {ms(raw)}  (JSON-RPC over the pipes, no SDK)")


if __name__ == "__main__":
    main()
