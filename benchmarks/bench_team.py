"""The team tier's cost (docs/adr/0036): the no-op `coffer project` (session start) in a
repository without a team tier and with one of N entries, and the full `coffer project`
(stamp removed first, so it re-reads and re-renders everything) in both.

The no-op path may add one stat (``.coffer/memory``) and nothing else; the full path reads
the team files once (bounded) and renders the team block.

Run: python benchmarks/bench_team.py [--runs N] [--entries 200]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, median, time_cmd, write_entries


def _repo(base: Path, env: dict[str, str], team_entries: int) -> Path:
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (Path(env["HOME"]) / ".codex").mkdir(parents=True)
    (Path(env["HOME"]) / ".claude").mkdir(parents=True)
    cmd = coffer_cmd()
    fact = [*cmd, "remember", "Personal fact about deploys."]
    subprocess.run(fact, env=env, cwd=repo, capture_output=True, check=True)
    if team_entries:
        subprocess.run([*cmd, "team", "init"], env=env, cwd=repo, capture_output=True)
        write_entries(repo / ".coffer" / "memory", team_entries, prefix="team")
    subprocess.run([*cmd, "project"], env=env, cwd=repo, capture_output=True, check=True)
    if team_entries and b"coffer:team:start" not in (repo / "AGENTS.md").read_bytes():
        raise SystemExit("the team block was not rendered")
    return repo


def _full(cmd: list[str], env: dict[str, str], repo: Path, runs: int) -> list[float]:
    stamps = Path(env["COFFER_HOME"]) / "state"
    out = []
    for _ in range(runs):
        for stamp in stamps.glob("project-*.stamp"):
            stamp.unlink()
        t = time.perf_counter()
        subprocess.run(cmd, env=env, cwd=repo, capture_output=True, check=True)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--entries", type=int, default=200)
    args = ap.parse_args()
    cmd = [*coffer_cmd(), "project", "--hook"]
    sizes = (0, args.entries)
    noop: dict[int, list[float]] = {n: [] for n in sizes}
    full: dict[int, list[float]] = {n: [] for n in sizes}
    with TempDir() as a, TempDir() as b:
        setups = {n: (isolated_env(base), base) for n, base in zip(sizes, (a, b), strict=True)}
        repos = {n: _repo(base, env, n) for n, (env, base) in setups.items()}
        # Interleaved, a few runs at a time: the machine is shared, and drift between two
        # back-to-back series would read as a difference between them.
        for _ in range(max(1, args.runs // 3)):
            for n in sizes:
                env = setups[n][0]
                noop[n] += time_cmd(cmd, env=env, cwd=repos[n], runs=3, warmup=1)
                full[n] += _full(cmd, env, repos[n], 1)
    for n in sizes:
        label = f"team tier of {n} entries" if n else "no team tier"
        print(
            f"{label:>24}: no-op median {median(noop[n]) * 1000:6.1f} ms "
            f"({len(noop[n])} runs)   full median {median(full[n]) * 1000:6.1f} ms "
            f"({len(full[n])} runs)"
        )


if __name__ == "__main__":
    main()
