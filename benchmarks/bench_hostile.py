"""Hostile input: every store-reading command on a tier holding one YAML alias bomb
("billion laughs", 9 levels of 9 aliases) plus ordinary entries, against the same tier
without it. Each command must take the same time either way (docs/adr/0018).

Before the fix (main at 80451e3) `list`, `project`, `recall`, `reindex` and `doctor` each
ran past a 60 s timeout under an 8 GB address-space limit (the issue saw ~35 s, ~6 GB and
an OverflowError).

Run: python benchmarks/bench_hostile.py [--runs N] [--levels 9]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, ms, write_entries

COMMANDS = (["list"], ["project"], ["recall", "deploy"], ["reindex"], ["doctor"])


def alias_bomb(levels: int) -> str:
    lines = ["---", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join([*lines, "name: bomb", "description: billion laughs", "---", "", "boom", ""])


def timed(cmd: list[str], env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=120)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--levels", type=int, default=9)
    args = ap.parse_args()
    cmd = coffer_cmd()
    for bomb in (False, True):
        with TempDir() as base:
            env = isolated_env(base)
            home = Path(env["HOME"])
            (home / ".claude").mkdir()
            (home / ".codex").mkdir()
            repo = base / "repo"
            (repo / ".git").mkdir(parents=True)
            subprocess.run(
                [*cmd, "remember", "deploy with make release"],
                env=env,
                cwd=repo,
                check=True,
                capture_output=True,
            )
            tier = next((base / "coffer-home" / "projects").glob("*/memory/*.md")).parent
            write_entries(tier, 100)
            if bomb:
                (tier / "bomb.md").write_text(alias_bomb(args.levels))
            label = "with alias bomb" if bomb else "without        "
            # The first command after the files appear parses them all (the cache is cold):
            # the worst case for a hostile file.
            cold = timed([*cmd, "list"], env, repo, 1)
            print(f"{label}  coffer list (cold)    {cold[0] * 1000:7.1f} ms")
            for command in COMMANDS:
                times = timed([*cmd, *command], env, repo, args.runs)
                print(f"{label}  coffer {' '.join(command):<14} {ms(times)}")


if __name__ == "__main__":
    main()
