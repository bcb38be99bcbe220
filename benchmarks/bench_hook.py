"""`coffer project --hook` (what the agents' session-start hooks run): the no-op path, and
the worst cases its deadline bounds: a cold first run over a large store, and a projection
lock held by a stuck process. Wall-clock medians; the deadline is COFFER_HOOK_TIMEOUT.

Run: python benchmarks/bench_hook.py [--runs N] [--sizes 10,10000,50000] [--timeout 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, median, ms, time_cmd, write_entries


def _cold_runs(
    cmd: list[str], env: dict[str, str], root: Path, tier_base: Path, runs: int, cold: bool = True
) -> tuple[list[float], int]:
    """Wall seconds of hook runs from a cold cache (unless not ``cold``) and no stamp; how
    many gave up."""
    out, gave_up = [], 0
    for _ in range(runs):
        if cold:
            (tier_base / "cache.sqlite").unlink(missing_ok=True)
        for stamp in (Path(env["COFFER_HOME"]) / "state").glob("project-*"):
            stamp.unlink()
        t = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
        out.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        if proc.stdout.startswith("{") and "gave up" in json.loads(proc.stdout)["systemMessage"]:
            gave_up += 1
    return out, gave_up


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--sizes", default="10,10000,50000")
    ap.add_argument("--timeout", default="5")
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        env["COFFER_HOOK_TIMEOUT"] = args.timeout
        home = Path(env["HOME"])
        (home / ".claude").mkdir(exist_ok=True)
        (home / ".codex").mkdir(exist_ok=True)
        cmd = coffer_cmd()
        hook = [*cmd, "project", "--hook", "--for", "claude"]
        bare = time_cmd([sys.executable, "-c", "pass"], env=env, runs=args.runs)
        print(f"python -c pass                      {ms(bare)}")
        for n in (int(x) for x in args.sizes.split(",")):
            root = base / f"repo-{n}"
            (root / ".git").mkdir(parents=True)
            subprocess.run(
                [*cmd, "remember", "seed", "--name", f"seed-{n}"],
                env=env,
                cwd=root,
                check=True,
                capture_output=True,
            )
            tier = next((base / "coffer-home" / "projects").glob(f"*/memory/seed-{n}.md")).parent
            write_entries(tier, n - 1)
            cold, gave_up = _cold_runs(hook, env, root, tier.parent, max(3, args.runs // 3))
            print(
                f"hook, cold, {n:>6} entries        {ms(cold)}  "
                f"gave up {gave_up}/{len(cold)} (deadline {args.timeout}s)"
            )
            starts = 1
            while _cold_runs(hook, env, root, tier.parent, 1, cold=False)[1]:
                starts += 1  # each start keeps what it parsed; count until one finishes
            print(f"  then, starts until one finishes the work: {starts}")
            noop = time_cmd(hook, env=env, cwd=root, runs=args.runs)
            print(
                f"hook, no-op, {n:>6} entries       {ms(noop)}  "
                f"ratio {median(noop) / median(bare):4.2f}x bare"
            )
        root = base / "repo-10"
        lock = base / "coffer-home" / "state" / "projection.lock"
        code = (
            f"from filelock import FileLock; l = FileLock({str(lock)!r}); l.acquire(); "
            "print('held', flush=True); import time; time.sleep(3600)"
        )
        holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "held"
            (root / "AGENTS.md").unlink(missing_ok=True)  # work to do: no fast path
            held = time_cmd(hook, env=env, cwd=root, runs=max(3, args.runs // 3), warmup=0)
            print(f"hook, lock held by another process  {ms(held)}")
        finally:
            holder.kill()
            holder.wait()
        shutil.rmtree(base / "coffer-home" / "state", ignore_errors=True)


if __name__ == "__main__":
    main()
