"""What shell completion (typer's --install-completion / --show-completion) costs at start-up.

Interleaves commands that go through typer (`--help`, `doctor`) with completion on (as
shipped) and switched off in the child process before coffer runs, so both sides see the
same machine load; prints medians. Also
times the step completion adds to (building the click command tree, in-process), and the
session-start paths that never build that tree: `coffer project` (no-op) and `coffer vault`.

Run: python benchmarks/bench_cli.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, ms, time_cmd


def _launcher(completion: bool) -> list[str]:
    toggle = (
        "" if completion else "from coffer.cli.typer_app import app; app._add_completion = False\n"
    )
    code = f"import sys\n{toggle}from coffer.main import main\nsys.argv[0] = 'coffer'\nmain()\n"
    return [sys.executable, "-c", code]


def interleaved(
    args: list[str], env: dict[str, str], cwd: Path, runs: int
) -> dict[bool, list[float]]:
    out: dict[bool, list[float]] = {True: [], False: []}
    for i in range(2 * (runs + 2)):
        on = bool(i % 2)
        t = time.perf_counter()
        done = subprocess.run([*_launcher(on), *args], env=env, cwd=cwd, capture_output=True)
        dt = time.perf_counter() - t
        if done.returncode != 0:
            raise SystemExit(f"{args} failed: {done.stderr.decode()}")
        if i >= 4:  # two warm-up runs each
            out[on].append(dt)
    return out


def tree_build(runs: int) -> dict[bool, float]:
    import typer.main

    from coffer.cli.typer_app import app, register_commands

    register_commands()
    times: dict[bool, list[float]] = {True: [], False: []}
    for i in range(2 * runs):
        on = bool(i % 2)
        app._add_completion = on
        t = time.perf_counter()
        typer.main.get_command(app)
        times[on].append(time.perf_counter() - t)
    app._add_completion = True
    return {k: statistics.median(v) * 1000 for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        repo = base / "repo"
        (repo / ".git").mkdir(parents=True)
        for argv in (["--help"], ["doctor"]):  # both go through typer (ADR 0023)
            res = interleaved(argv, env, repo, args.runs)
            label = f"coffer {' '.join(argv)}"
            print(f"{label:<28} completion off: {ms(res[False])}")
            print(f"{'':<28} completion on:  {ms(res[True])}")
        built = tree_build(args.runs * 10)
        print(f"command tree build (in-process) off {built[False]:.2f} ms, on {built[True]:.2f} ms")
        cmd = coffer_cmd()
        subprocess.run([*cmd, "project", "--quiet"], env=env, cwd=repo, check=True)
        for argv in (["project"], ["vault", "--help"]):
            times = time_cmd([*cmd, *argv], env=env, cwd=repo, runs=args.runs)
            print(f"{'coffer ' + ' '.join(argv):<28} {ms(times)}")


if __name__ == "__main__":
    main()
