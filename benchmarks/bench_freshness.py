"""Freshness at scale (issue 25.3): `coffer stale` and the session-start hook's no-op over a
project tier of N entries, each anchored to one of the repository's files (500 files, so
20 entries share a file), against `python -c pass`. Wall-clock medians.

Run: python benchmarks/bench_freshness.py [--runs N] [--entries 10000] [--files 500]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, ms, time_cmd

from coffer.store.freshness import blob_id


def _anchored_entries(tier: Path, repo: Path, n: int, files: int) -> None:
    """n entries in Claude's format, each with one anchor and the blob id it had."""
    blobs = [blob_id(repo / "src" / f"mod{j:04}.py") for j in range(files)]
    for i in range(n):
        j = i % files
        (tier / f"fact-{i:05}.md").write_text(
            f"---\nname: fact-{i:05}\ndescription: module {j} does thing {i}\n"
            f"metadata:\n  type: project\n  updated_at: '2026-12-01T00:00:00Z'\n"
            f"  anchors:\n  - path: src/mod{j:04}.py\n    blob: {blobs[j]}\n"
            f"---\n\nModule {j} does thing {i}; see `src/mod{j:04}.py`.\n"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--files", type=int, default=500)
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        home = Path(env["HOME"])
        (home / ".claude").mkdir(exist_ok=True)
        (home / ".codex").mkdir(exist_ok=True)
        cmd = coffer_cmd()
        repo = base / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "src").mkdir()
        for j in range(args.files):
            (repo / "src" / f"mod{j:04}.py").write_text(f"def f{j}():\n    return {j}\n")
        run = {"env": env, "cwd": repo, "check": True, "capture_output": True}
        subprocess.run([*cmd, "remember", "seed", "--name", "seed"], **run)  # type: ignore[call-overload]
        tier = next((base / "coffer-home" / "projects").glob("*/memory/seed.md")).parent
        _anchored_entries(tier, repo, args.entries, args.files)
        subprocess.run([*cmd, "project"], **run)  # type: ignore[call-overload]
        hook = [*cmd, "project", "--hook", "--for", "claude-code"]
        subprocess.run(hook, **run)  # type: ignore[call-overload]

        bare = time_cmd([sys.executable, "-c", "pass"], env=env, runs=args.runs)
        noop = time_cmd(hook, env=env, cwd=repo, runs=args.runs)
        fresh = time_cmd([*cmd, "stale"], env=env, cwd=repo, runs=args.runs)
        for j in range(0, args.files, 10):  # 10% of the files edited: 1,000 entries stale
            (repo / "src" / f"mod{j:04}.py").write_text("changed\n")
        stale = time_cmd([*cmd, "stale"], env=env, cwd=repo, runs=args.runs)
        count = subprocess.run([*cmd, "stale"], **run).stdout.decode().count("\n") - 1  # type: ignore[call-overload]
        base_ms = statistics.median(bare)
        print(f"{args.entries} entries anchored to {args.files} files")
        print(f"python -c pass                    {ms(bare)}")
        for label, values in [
            ("hook no-op", noop),
            ("coffer stale, nothing stale", fresh),
            (f"coffer stale, {count} stale", stale),
        ]:
            ratio = statistics.median(values) / base_ms
            print(f"{label:<33} {ms(values)}  {ratio:5.1f}x python -c pass")


if __name__ == "__main__":
    main()
