"""What each layer of a write's imports costs: the modules `coffer remember` loads, grouped
in the order it loads them, each group's marginal CPU as a multiple of ``python -c pass``.

`coffer remember` loads more of coffer than any other command and is the one closest to its
budget of ten (docs/adr/0049): this says which layers it pays for, and so what a change to
each would save. Each row is a fresh interpreter that
imports every group up to and including its own; the rows run round-robin (each round
starts one row later), so a burst of load on the shared machine hits them alike. A row's
marginal cost is its median less the median of the row before it.

    python benchmarks/bench_write_parts.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

# (label, modules) in the order a remember loads them; each row adds its modules to the last.
GROUPS: list[tuple[str, tuple[str, ...]]] = [
    ("python -c pass", ()),
    (
        "CLI quick path and the store's face",
        ("coffer.main", "coffer.cli.quick", "coffer.cli.writing", "coffer.store"),
    ),
    (
        "the write itself (drafts, provenance, history, cache, index)",
        (
            "coffer.store.drafts",
            "coffer.store.provenance",
            "coffer.store.search_cache",
            "coffer.store.history",
            "coffer.store.index_file",
            "coffer.store.agent_writes",
            "coffer.projection.writes",
            "hashlib",
        ),
    ),
    ("the journal and its records", ("coffer.projection.journal",)),
    (
        "a block's render, apply and git hiding",
        (
            "coffer.projection.blocks.render",
            "coffer.projection.blocks.content",
            "coffer.projection.blocks.waiting",
            "coffer.projection.git.hiding",
        ),
    ),
    (
        "the engine and every adapter (what shows the tier)",
        ("coffer.app", "coffer.projection.engine", "coffer.adapter.registry"),
    ),
]


def _cpu_ms(argv: list[str], cwd: str, env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=31, help="timed runs of each row")
    args = ap.parse_args()
    rows: list[list[str]] = []
    loaded: list[str] = []
    for _, modules in GROUPS:
        loaded += modules
        code = f"import {', '.join(loaded)}" if loaded else "pass"
        rows.append([sys.executable, "-c", code])
    times: list[list[float]] = [[] for _ in rows]
    # Users' installs carry compiled bytecode (as bench_budgets.py, via _timing.isolated_env).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # An empty working directory: `-c` puts it first on the import path.
    with tempfile.TemporaryDirectory() as cwd:
        for r in range(args.rounds + 1):  # the first round warms the caches, untimed
            for k in range(len(rows)):
                i = (k + r) % len(rows)
                took = _cpu_ms(rows[i], cwd, env)
                if r:
                    times[i].append(took)
    medians = [statistics.median(t) for t in times]
    base = medians[0]
    print(f"python: {sys.executable}  clock: cpu  rounds: {args.rounds}")
    print()
    print("| layer | median ms (cpu) | marginal ms | marginal × pass |")
    print("|---|---:|---:|---:|")
    for k, (label, _) in enumerate(GROUPS):
        extra = medians[k] - (medians[k - 1] if k else 0.0)
        ratio = extra / base
        print(f"| {label} | {medians[k]:.1f} | {extra:+.1f} | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
