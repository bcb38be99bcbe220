"""What keeping entry versions costs (docs/adr/0052): medians of a full `coffer project` run
(the fast path bypassed with --replace-edited, as when the tier changed) at 10,000 entries,
with the history check and with it stubbed out, in the same session; plus the first look,
which reads and keeps every file once, and the check alone in-process.

Run: python benchmarks/bench_history.py [--entries N] [--runs N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, median, ms, time_cmd, write_entries

# The same CLI with History.check doing nothing: the run as it was before the history.
_WITHOUT = (
    "import sys; from coffer.store import history; history.History.check = lambda self: []; "
    "from coffer.main import main; sys.argv[0] = 'coffer'; main()"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        root = base / "repo"
        (root / ".git").mkdir(parents=True)
        home = Path(env["HOME"])
        (home / ".claude").mkdir()
        (home / ".codex").mkdir()
        cmd = coffer_cmd()
        run = {"env": env, "cwd": root, "check": True, "capture_output": True}
        subprocess.run([*cmd, "remember", "seed", "--name", "seed"], **run)  # type: ignore[call-overload]
        tier = next((base / "coffer-home" / "projects").glob("*/memory/seed.md")).parent
        write_entries(tier, args.entries - 1)
        t = time.perf_counter()
        subprocess.run([*cmd, "project", "--quiet"], **run)  # type: ignore[call-overload]
        print(
            f"first run (every file read and kept once)  {(time.perf_counter() - t) * 1000:7.1f} ms"
        )
        full = ["project", "--quiet", "--replace-edited"]
        with_check = time_cmd([*cmd, *full], env=env, cwd=root, runs=args.runs, warmup=1)
        without = time_cmd(
            [sys.executable, "-c", _WITHOUT, *full], env=env, cwd=root, runs=args.runs, warmup=1
        )
        print(f"full run, with the check      {ms(with_check)}")
        print(f"full run, without the check   {ms(without)}")
        extra = (median(with_check) - median(without)) * 1000
        print(f"extra: {extra:+.1f} ms ({extra / (median(without) * 1000):+.1%})")
        sys.path.insert(0, str(Path(__file__).parents[1]))
        from coffer.store import Store
        from coffer.store.history import History

        store = Store(base / "coffer-home", home)
        ptier = next(t for t in store.all_tiers() if t.dir == tier)
        kept = History(store.root, ptier)
        alone = []
        for _ in range(args.runs):
            t = time.perf_counter()
            kept.check()
            alone.append(time.perf_counter() - t)
        print(f"the check alone (stat of {args.entries} files, manifest read)  {ms(alone)}")


if __name__ == "__main__":
    main()
