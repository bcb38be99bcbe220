"""What loading and asking the adapters costs: a fresh interpreter that loads every adapter
through the entry points (the registry checks each one) and asks each for its targets and
inputs in a project, as every full `coffer project` does; and `coffer adapter list`.
Prints medians, and each as a ratio to `python -c pass` in the same interpreter.

Run: python benchmarks/bench_adapters.py [--runs N]
(To compare with another tree: PYTHONPATH=/path/to/tree:/path/to/tree/adapters python
benchmarks/bench_adapters.py; the entry points are the same names in both.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, median, ms, time_cmd

ASK = """
import os
from pathlib import Path
from coffer.adapter import registry
from coffer.adapter import Context
ctx = Context(Path.home(), dict(os.environ), Path(os.environ["COFFER_HOME"]), Path.cwd())
loaded = registry.load_adapters()
assert not loaded.errors, loaded.errors
for adapter in loaded.adapters.values():
    adapter.detect(ctx), adapter.targets(ctx), adapter.inputs(ctx)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with TempDir() as base:
        env = isolated_env(base)
        home = Path(env["HOME"])
        for d in (".claude", ".codex", ".gemini", ".cursor"):
            (home / d).mkdir()
        (Path(env["XDG_CONFIG_HOME"]) / "opencode").mkdir(parents=True)
        (Path(env["CODEX_HOME"]) / "config.toml").write_text("model = 'o4'\n")
        project = base / "p"
        (project / ".git").mkdir(parents=True)
        # Project once, so `adapter list` finds every target in place (and exits 0).
        time_cmd([*coffer_cmd(), "project"], env=env, cwd=project, runs=1, warmup=0)
        rows = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "load + ask adapters": [sys.executable, "-c", ASK],
            "coffer adapter list": [*coffer_cmd(), "adapter", "list"],
        }
        base_median = None
        for label, cmd in rows.items():
            times = time_cmd(cmd, env=env, cwd=project, runs=args.runs)
            base_median = base_median or median(times)
            print(f"{label:22} {ms(times)}  {median(times) / base_median:5.1f}x")


if __name__ == "__main__":
    main()
