"""`coffer watch`: change-to-block latency, idle CPU and resident memory, at 1 and 100
projected projects. Targets: median latency under 300 ms, idle CPU under 1% of one core,
RSS under 80 MB.

Run: /work/venv/bin/python benchmarks/bench_watch.py [--projects 1,100] [--changes 50]
     [--idle 30] [--entries 20] [--poll]

Everything happens under a temporary HOME and COFFER_HOME. Each project is a fake git
repository with Claude Code and Codex "installed" (their config directories exist), projected
once, with ``--entries`` entries per tier. The daemon runs as a subprocess; each change is a
new entry file written through Claude's memory directory (the symlink into the store), and
its latency is the time until the marker shows in that project's AGENTS.md (polled every
millisecond by this script). Changes are spaced out so each is its own burst. Idle CPU is
the daemon's utime+stime over ``--idle`` seconds with nothing happening; RSS is VmRSS and
VmHWM (peak) from /proc (Linux only).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, write_entries


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of stat(5)
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> tuple[float, float]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def status(env: dict[str, str]) -> dict[str, object]:
    path = Path(env["COFFER_HOME"]) / "state" / "watch.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def wait(check: object, what: str, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if callable(check) and check():
            return
        time.sleep(0.01)
    raise SystemExit(f"timed out waiting for {what}")


def setup(base: Path, env: dict[str, str], n: int, entries: int) -> list[tuple[Path, Path]]:
    """n projected repositories; returns (repo, directory an agent writes entries into)."""
    home = Path(env["HOME"])
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".codex").mkdir(exist_ok=True)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # in-process projection: 100 subprocesses would take a minute
    try:
        from coffer.projection.engine import Engine
        from coffer.store import Store

        store = Store.from_environ(env)
        out = []
        for i in range(n):
            repo = base / f"repo-{i:03}"
            (repo / ".git").mkdir(parents=True)
            report = Engine(store, env).project(repo)
            if not report.ok:
                raise SystemExit("\n".join(p.line() for p in report.problems))
            tier = store.project_tier(repo)
            assert tier is not None
            write_entries(tier.dir, entries, prefix=f"seed{i}")
            claude_dir = next(
                (
                    p
                    for p in (home / ".claude" / "projects").glob("*/memory")
                    if p.resolve() == tier.dir.resolve()
                ),
                tier.dir,
            )
            out.append((repo, claude_dir))
        write_entries(store.global_tier().dir, entries, prefix="global")
        via = sum(1 for _, d in out if d.is_symlink())
        print(f"  {n} projects set up; {via} written to through Claude's memory symlink")
        return out
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_one(n: int, args: argparse.Namespace) -> dict[str, float]:
    with TempDir() as base:
        env = isolated_env(base)
        t = time.perf_counter()
        repos = setup(base, env, n, args.entries)
        setup_s = time.perf_counter() - t
        cmd = [*coffer_cmd(), "watch", "--log-file", str(base / "watch.log")]
        if args.poll:
            cmd += ["--poll"]
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:

            def caught_up() -> bool:
                if proc.poll() is not None:
                    raise SystemExit(proc.stderr.read().decode() if proc.stderr else "exited")
                s = status(env)
                renders = s.get("renders")
                return (
                    s.get("pid") == proc.pid
                    and s.get("state") == "watching"
                    and s.get("pending") == 0
                    and isinstance(renders, int)
                    and renders >= n + 1
                )

            wait(caught_up, "the daemon's catch-up pass")
            startup = time.perf_counter() - t
            time.sleep(0.5)
            cpu0 = cpu_seconds(proc.pid)
            latencies = []
            for j in range(args.changes):
                repo, agent_dir = repos[j % n]
                marker = f"benchmarkmarker{j:04d}x"
                agents = repo / "AGENTS.md"
                t0 = time.perf_counter()
                (agent_dir / f"bench-change-{j:04d}.md").write_text(
                    f"---\nname: bench-change-{j:04d}\ndescription: change {j} {marker}\n"
                    f"metadata:\n  type: feedback\n---\n\n{marker}\n"
                )
                end = t0 + 10
                while marker not in agents.read_text():
                    if time.perf_counter() > end:
                        raise SystemExit(f"change {j} never reached {agents}")
                    time.sleep(0.001)
                latencies.append(time.perf_counter() - t0)
                time.sleep(args.gap)
            busy_cpu = cpu_seconds(proc.pid) - cpu0
            time.sleep(2)  # let the last self-write pass finish
            idle0 = cpu_seconds(proc.pid)
            time.sleep(args.idle)
            idle_cpu = cpu_seconds(proc.pid) - idle0
            rss, hwm = memory_mb(proc.pid)
            final = status(env)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        latencies.sort()
        p95 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))]
        return {
            "projects": n,
            "setup_s": setup_s,
            "startup_s": startup,
            "median_ms": statistics.median(latencies) * 1000,
            "p95_ms": p95 * 1000,
            "max_ms": latencies[-1] * 1000,
            "cpu_ms_per_change": busy_cpu / args.changes * 1000,
            "idle_cpu_pct": idle_cpu / args.idle * 100,
            "rss_mb": rss,
            "peak_rss_mb": hwm,
            "renders": _num(final.get("renders")),
            "suppressed": _num(final.get("suppressed")),
            "exit": float(code),
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--projects", default="1,100")
    ap.add_argument("--changes", type=int, default=50)
    ap.add_argument("--idle", type=float, default=30.0)
    ap.add_argument("--entries", type=int, default=20, help="entries per tier")
    ap.add_argument("--gap", type=float, default=0.4, help="seconds between changes")
    ap.add_argument("--poll", action="store_true", help="benchmark polling mode")
    args = ap.parse_args()
    if not Path("/proc/self/stat").exists():
        raise SystemExit("this benchmark reads /proc (Linux only)")
    mode = "polling (2 s)" if args.poll else "native events"
    print(f"coffer watch, {mode}, {args.changes} changes, {args.entries} entries per tier")
    for n in (int(x) for x in args.projects.split(",")):
        r = run_one(n, args)
        print(
            f"{n:>4} projects: latency median {r['median_ms']:6.1f} ms  p95 {r['p95_ms']:6.1f} ms"
            f"  max {r['max_ms']:6.1f} ms | idle CPU {r['idle_cpu_pct']:5.2f}% over "
            f"{args.idle:g} s | RSS {r['rss_mb']:5.1f} MB (peak {r['peak_rss_mb']:5.1f}) | "
            f"{r['cpu_ms_per_change']:5.1f} ms CPU per change | start-up + catch-up "
            f"{r['startup_s']:5.2f} s | {int(r['renders'])} refreshes, "
            f"{int(r['suppressed'])} own writes ignored | exit {int(r['exit'])}"
        )
    print("targets: median < 300 ms, idle CPU < 1%, RSS < 80 MB")


if __name__ == "__main__":
    main()
