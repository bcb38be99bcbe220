"""What `coffer ui` costs at 10,000 entries: the Memory page (every entry read and counted,
the first 100 rows shown) and a search (ranked as `coffer recall` ranks), each a GET to a
running server with the run's cookie. Prints medians and p95 over repeated requests, after
a warm-up request. Results: benchmarks/RESULTS.md.

Run: python benchmarks/bench_ui.py [--entries N] [--runs N]
"""

from __future__ import annotations

import argparse
import http.client
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, ms, time_cmd, write_entries

from coffer.ui.guard import cookie_name


def _get(port: int, path: str, token: str) -> float:
    headers = {"Host": f"127.0.0.1:{port}", "Cookie": f"{cookie_name(port)}={token}"}
    t = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path, headers=headers)
    reply = conn.getresponse()
    reply.read()
    conn.close()
    if reply.status != 200:
        raise SystemExit(f"GET {path}: {reply.status}")
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        project = base / "p"
        (project / ".git").mkdir(parents=True)
        cmd = [*coffer_cmd(), "remember", "Deploys use make release.", "--name", "deploy"]
        time_cmd(cmd, env=env, cwd=project, runs=1, warmup=0)
        (tier,) = Path(env["COFFER_HOME"]).glob("projects/*/memory")
        write_entries(tier, args.entries)
        server = subprocess.Popen(
            [*coffer_cmd(), "ui", "--no-open", "--project", str(project)],
            env=env, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            url = urlsplit(server.stdout.readline().split(" ", 2)[2].strip())
            port, token = int(url.port or 0), url.query.removeprefix("token=")
            for label, path in (("memory page", "/"), ("search", "/?q=deploy+cache")):
                _get(port, path, token)  # warm: the tier's index cache is built once
                times = [_get(port, path, token) for _ in range(args.runs)]
                print(f"{label:<12} {args.entries:>6} entries  {ms(times)}")
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
