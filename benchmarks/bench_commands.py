"""Whole-process cost of each coffer command, as a ratio to ``python -c pass`` (issue 11).

Superseded for the budgets by ``benchmarks/bench_budgets.py`` (docs/adr/0049: every everyday
command within 10× ``python -c pass`` at 10,000 entries, the session-start hook's no-op
within 2.5×), which times the commands ADR 0049 names in a store set up as a user's. This
script stays for what that one does not time (``--help``, ``--version``, ``watch --status``,
``project`` with one entry changed, the MCP servers' start) and for before/after runs of two
venvs (``--python``); its targets are ADR 0049's budgets.

Every command runs as its own process through the console script of one virtualenv, the way
a user or an agent's hook starts it; all commands of a round run one after another
(interleaved), so a burst of load on the machine hits them alike. Prints, per command, the
median time, its ratio to the median of ``python -c pass`` in the same venv and run, the
target and whether it is met. ``--clock cpu`` (the default) times the process's own CPU
(user + system, from the kernel's accounting of the finished child): on a shared two-core
machine a neighbour's load stretches wall time but hardly this. ``--clock wall`` times
what a user waits. The MCP rows are always wall time to the ``initialize`` answer.

    python benchmarks/bench_commands.py [--runs N] [--python PATH] [--entries N] [--clock cpu|wall]

``--python`` times another checkout's venv (its ``coffer`` script beside that python), so
before and after can be compared on the same machine: run it once with each.
The store is built with the venv under test, in a throwaway home (benchmarks/_timing.py).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, isolated_env, write_entries

# docs/adr/0049's budgets, as multiples of `python -c pass` (bench_budgets.py has the same).
EVERYDAY = 10.0
HOOK_NOOP = 2.5
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


@dataclass
class Case:
    label: str
    argv: list[str]
    target: float  # ratio to `python -c pass`, or milliseconds when absolute
    cwd: Path
    before: Callable[[], None] | None = None  # untimed step before each run
    absolute: bool = False
    times: list[float] = field(default_factory=list)


@dataclass
class Setup:
    python: str
    script: list[str]
    env: dict[str, str]

    def run(self, *args: str, cwd: Path, stdin: str | None = None) -> str:
        done = subprocess.run(
            [*self.script, *args],
            env=self.env,
            cwd=cwd,
            capture_output=True,
            text=True,
            input=stdin,
            check=False,
        )
        if done.returncode not in (0, 1):
            raise SystemExit(f"coffer {' '.join(args)} failed: {done.stderr}")
        return done.stdout


def _script(python: str) -> list[str]:
    script = Path(python).with_name("coffer")
    return [str(script)] if script.exists() else [python, "-m", "coffer"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CLOCK = {"clock": "cpu"}


def _timed(cmd: list[str], setup: Setup, cwd: Path) -> float:
    t, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(cmd, env=setup.env, cwd=cwd, capture_output=True, check=False)
    dt = _children_cpu() - cpu if CLOCK["clock"] == "cpu" else time.perf_counter() - t
    if done.returncode not in (0, 1, 3):  # list/adapter list/watch --status may say "not ok"
        raise SystemExit(f"{cmd} exited {done.returncode}: {done.stderr.decode()}")
    return dt


def _mcp_start(setup: Setup, cwd: Path, argv: list[str]) -> float:
    """Process start to the ``initialize`` answer, over stdio as an agent does it."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env={**setup.env, "ECC_MEMORY_HARNESS": "claude"},
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    dt = time.perf_counter() - t
    _, err = proc.communicate(timeout=30)  # closes stdin: the server ends
    if '"result"' not in line:
        raise SystemExit(f"{argv}: no initialize answer: {line!r} {err}")
    return dt


def build(setup: Setup, base: Path, entries: int) -> list[Case]:
    # Claude Code and Codex are installed (their config dirs exist), as on a user's machine:
    # `coffer project` and `adapter list` do their real work for two agents, not for none.
    Path(setup.env["CLAUDE_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)
    Path(setup.env["CODEX_HOME"]).mkdir(parents=True, exist_ok=True)
    repo = base / "repo"
    (repo / ".git").mkdir(parents=True)
    for i in range(20):
        setup.run(
            "remember", f"deploy note {i} about the staging queue", "--name", f"n-{i}", cwd=repo
        )
    setup.run("project", "--quiet", cwd=repo)
    big = base / "big"
    (big / ".git").mkdir(parents=True)
    setup.run("remember", "seed entry", "--name", "seed", cwd=big)
    tier_dir = Path(json.loads(setup.run("where", "--json", cwd=big))["project"]["dir"])
    write_entries(tier_dir, entries)
    setup.run("recall", "deploy", cwd=big)  # builds the search cache once
    entry = Path(json.loads(setup.run("where", "--json", cwd=repo))["project"]["dir"]) / "n-0.md"
    counter = iter(range(10**9))

    def touch_one() -> None:
        # One entry changed since the last run: the full projection path, not the no-op one.
        text = entry.read_text()
        entry.write_text(text.rstrip("\n").rsplit(" #", 1)[0] + f" #{next(counter)}\n")

    return [
        Case("python -c pass", [setup.python, "-c", "pass"], 1.0, repo),
        Case("coffer --version", [*setup.script, "--version"], EVERYDAY, repo),
        Case("coffer --help", [*setup.script, "--help"], EVERYDAY, repo),
        Case("coffer where", [*setup.script, "where"], EVERYDAY, repo),
        Case("coffer list", [*setup.script, "list"], EVERYDAY, repo),
        Case("coffer show n-1", [*setup.script, "show", "n-1"], EVERYDAY, repo),
        Case("coffer watch --status", [*setup.script, "watch", "--status"], EVERYDAY, repo),
        Case("coffer adapter list", [*setup.script, "adapter", "list"], EVERYDAY, repo),
        Case(
            f"coffer recall ({entries} entries)",
            [*setup.script, "recall", "deploy queue"],
            EVERYDAY,
            big,
        ),
        Case(
            "coffer project (1 entry changed)",
            [*setup.script, "project"],
            EVERYDAY,
            repo,
            before=touch_one,
        ),
        Case("coffer project (no-op)", [*setup.script, "project"], HOOK_NOOP, repo),
        Case("coffer mcp start+initialize", [*setup.script, "mcp"], 250, repo, absolute=True),
        *_ecc_case(setup, repo),
    ]


def _ecc_case(setup: Setup, repo: Path) -> list[Case]:
    # A checkout from before ADR 0028 has no ecc-memory-mcp: its row is left out.
    script = Path(setup.python).with_name("ecc-memory-mcp")
    if not script.exists():
        return []
    return [Case("ecc-memory-mcp start+initialize", [str(script)], 250, repo, absolute=True)]


def measure(cases: list[Case], setup: Setup, runs: int, warmup: int) -> None:
    for i in range(warmup + runs):
        for case in cases:
            if case.before is not None:
                case.before()
            if case.label.endswith("start+initialize"):
                dt = _mcp_start(setup, case.cwd, case.argv)
            else:
                dt = _timed(case.argv, setup, case.cwd)
            if i >= warmup:
                case.times.append(dt)


def report(cases: list[Case], python: str) -> bool:
    base = statistics.median(cases[0].times)
    print(
        f"venv: {python}   clock: {CLOCK['clock']}   "
        f"baseline python -c pass: {base * 1000:.1f} ms (median)"
    )
    print(f"{'command':<36} {'median ms':>10} {'ratio':>7} {'target':>9}  result")
    ok = True
    for case in cases:
        med = statistics.median(case.times)
        ratio = med / base
        if case.absolute:
            passed = med * 1000 <= case.target
            target = f"<={case.target:g} ms"
        else:
            passed = ratio <= case.target
            target = f"<={case.target:g}x"
        ok &= passed
        print(
            f"{case.label:<36} {med * 1000:>10.1f} {ratio:>6.1f}x {target:>9}  "
            f"{'pass' if passed else 'FAIL'}"
        )
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--python", default=sys.executable, help="the venv's python to time")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = ap.parse_args()
    CLOCK["clock"] = args.clock
    with TempDir() as base:
        setup = Setup(args.python, _script(args.python), isolated_env(base))
        cases = build(setup, base, args.entries)
        measure(cases, setup, args.runs, args.warmup)
        report(cases, args.python)


if __name__ == "__main__":
    main()
