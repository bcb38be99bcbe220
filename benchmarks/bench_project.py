"""`coffer project` with nothing to do, at 10, 1,000 and 10,000 entries, against bare
interpreter start-up measured in the same run. Target: under 3x `python -c pass`.

Run: python benchmarks/bench_project.py [--runs N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import (
    TempDir,
    coffer_cmd,
    isolated_env,
    median,
    ms,
    time_cmd,
    write_entries,
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--sizes", default="10,1000,10000")
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        bare = time_cmd([sys.executable, "-c", "pass"], env=env, runs=args.runs)
        print(f"python -c pass            {ms(bare)}")
        for n in (int(x) for x in args.sizes.split(",")):
            root = base / f"repo-{n}"
            (root / ".git").mkdir(parents=True)
            home = Path(env["HOME"])
            (home / ".claude").mkdir(exist_ok=True)
            (home / ".codex").mkdir(exist_ok=True)
            cmd = coffer_cmd()
            subprocess.run(
                [*cmd, "remember", "seed", "--name", "seed"],
                env=env,
                cwd=root,
                check=True,
                capture_output=True,
            )
            tier = next((base / "coffer-home" / "projects").glob("*/memory/seed.md")).parent
            write_entries(tier, n - 1)
            first = subprocess.run(
                [*cmd, "project", "--quiet"], env=env, cwd=root, capture_output=True, text=True
            )
            if first.returncode != 0:
                raise SystemExit(first.stderr)
            runs = time_cmd([*cmd, "project", "--quiet"], env=env, cwd=root, runs=args.runs)
            ratio = median(runs) / median(bare)
            print(f"coffer project {n:>6} ent  {ms(runs)}  ratio {ratio:4.2f}x bare")
            # What Claude's session-start hook runs (docs/adr/0012): the no-op path
            # replays the recorded --for output instead of computing it.
            hook_cmd = [*cmd, "project", "--hook", "--for", "claude"]
            subprocess.run(hook_cmd, env=env, cwd=root, check=True, capture_output=True)
            hook = time_cmd(hook_cmd, env=env, cwd=root, runs=args.runs)
            print(
                f"  hook (--for claude)      {ms(hook)}  ratio "
                f"{median(hook) / median(bare):4.2f}x bare"
            )
            slow = time_cmd(
                [*cmd, "project", "--quiet", "--replace-edited"],
                env=env,
                cwd=root,
                runs=max(5, args.runs // 5),
                warmup=1,
            )
            print(
                f"  full path (no fast path) {ms(slow)}  ratio "
                f"{median(slow) / median(bare):4.1f}x bare"
            )


if __name__ == "__main__":
    main()
