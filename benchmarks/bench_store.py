"""Store performance: `coffer recall` end to end and MEMORY.md regeneration at 100, 1,000
and 10,000 entries; `coffer --help` start-up against `python -c pass`; and which heavy
modules each command imports; the ranking alone, in process. Target: recall over 10,000
entries under 300 ms.

Run: python benchmarks/bench_store.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, median, ms, time_cmd, write_entries

HEAVY = ("watchdog", "mcp", "typer", "yaml", "sqlite3", "tomlkit", "filelock")


def imported(args: list[str], env: dict[str, str], cwd: Path) -> list[str]:
    code = (
        "import sys\n"
        f"sys.argv = ['coffer', *{args!r}]\n"
        "from coffer.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True
    )
    return [m for m in out.stderr.strip().splitlines()[-1].split(",") if m]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--sizes", default="100,1000,10000")
    args = ap.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        os.environ.update(env)
        from coffer.store import Store

        cmd = coffer_cmd()
        bare = time_cmd([sys.executable, "-c", "pass"], env=env, runs=args.runs)
        helped = time_cmd([*cmd, "--help"], env=env, runs=args.runs)
        print(f"python -c pass          {ms(bare)}")
        print(f"coffer --help           {ms(helped)}  ratio {median(helped) / median(bare):.1f}x")
        for n in (int(x) for x in args.sizes.split(",")):
            root = base / f"repo-{n}"
            (root / ".git").mkdir(parents=True)
            store = Store.from_environ(env)
            tier = store.project_tier(root, create=True)
            assert tier is not None
            write_entries(tier.dir, n)
            t = time.perf_counter()
            store.regenerate_index(tier)
            cold = time.perf_counter() - t
            warm = []
            for i in range(5):
                p = tier.dir / f"fact-{i:05}.md"
                p.write_text(p.read_text() + f"edit {i}\n")
                t = time.perf_counter()
                store.regenerate_index(tier)
                warm.append(time.perf_counter() - t)
            print(
                f"index {n:>6} entries: first build (parses all) {cold * 1000:7.1f} ms; "
                f"after one edit median {statistics.median(warm) * 1000:6.1f} ms"
            )
            recall = time_cmd(
                [*cmd, "recall", "database migration timeout", "--limit", "10"],
                env=env,
                cwd=root,
                runs=args.runs,
            )
            print(f"coffer recall {n:>6} entries  {ms(recall)}")
            # The ranking alone, in process on the warm cache: start-up noise left out.
            from coffer.store import search_cache

            conn = search_cache.open_cache(tier.base / "cache.sqlite")
            ranked = []
            for _ in range(args.runs):
                t = time.perf_counter()
                search_cache.search(conn, tier.dir, "database migration timeout", 10)
                ranked.append(time.perf_counter() - t)
            conn.close()
            print(f"search (in process) {n:>6} entries  {ms(ranked)}")
        for argv in (
            ["project"],
            ["recall", "x"],
            ["list"],
            ["remember", "y", "--name", "y"],
            ["--help"],
        ):
            print(
                f"imports for coffer {' '.join(argv):<22}: "
                f"{', '.join(imported(argv, env, base / 'repo-100')) or '(none heavy)'}"
            )


if __name__ == "__main__":
    main()
