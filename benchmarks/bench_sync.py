"""What `coffer sync` costs with 1,000 entries: the first round on machine A (1,000 new
entries committed and pushed to a bare remote), the first round on machine B (1,000
pulled, imported, indexed and projected into B's AGENTS.md block), a round with nothing
new, and a round that carries one changed entry each way. Each case runs in fresh stores
(two homes as two machines, as in tests/sync/test_two_machines.py); prints medians.

Run: python benchmarks/bench_sync.py [--runs N] [--entries N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, median, write_entries

from coffer.app import App
from coffer.sync.api import sync_once

GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]


def _run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{cmd} failed: {done.stderr.decode()}")


def _machine(base: Path, name: str, origin: Path, remote: Path, url: str) -> tuple[App, Path]:
    env = isolated_env(base / name)
    env["XDG_STATE_HOME"] = str(base / name / "state")
    for d in (".claude", ".codex"):
        (Path(env["HOME"]) / d).mkdir(parents=True, exist_ok=True)
    clone = base / name / "work" / "app"
    _run([*GIT, "clone", "-q", str(origin), str(clone)])
    _run([*GIT, "remote", "set-url", "origin", url], cwd=clone)
    _run([*coffer_cmd(), "project", "--quiet"], env=env, cwd=clone)
    _run([*coffer_cmd(), "sync", "init", str(remote), "--host", name], env=env, cwd=clone)
    return App(env), clone


def _world(base: Path, entries: int) -> tuple[App, App, Path]:
    origin = base / "origin"
    _run([*GIT, "init", "-q", str(origin)])
    _run([*GIT, "commit", "-q", "--allow-empty", "-m", "root"], cwd=origin)
    remote = base / "remote.git"
    _run([*GIT, "init", "-q", "--bare", str(remote)])
    a, _ = _machine(base, "a", origin, remote, "git@github.com:me/app.git")
    b, clone_b = _machine(base, "b", origin, remote, "https://github.com/me/app")
    tier = a.store.all_tiers()[1]
    write_entries(tier.dir, entries)
    return a, b, clone_b


def _timed(app: App) -> float:
    t = time.perf_counter()
    sync_once(App(app.environ))  # a fresh composition root, as each CLI run has
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--entries", type=int, default=1000)
    args = parser.parse_args()
    push, pull, idle, one_a, one_b = [], [], [], [], []
    for _ in range(args.runs):
        with TempDir() as base:
            a, b, clone_b = _world(base, args.entries)
            push.append(_timed(a))
            pull.append(_timed(b))
            assert "coffer:memory:start" in (clone_b / "AGENTS.md").read_text()
            idle.append(_timed(a))
            tier = a.store.all_tiers()[1]
            first = sorted(tier.dir.glob("fact-*.md"))[0]
            first.write_text(first.read_text() + "\nOne more line.\n")
            one_a.append(_timed(a))
            one_b.append(_timed(b))
            pulled = len(list(b.store.all_tiers()[1].dir.glob("*.md"))) - 1
            assert pulled == args.entries, pulled
    n = args.entries
    print(f"coffer sync, {n} entries, {args.runs} runs (fresh stores each run), medians:")
    print(f"  A: first round, {n} entries committed and pushed  {median(push) * 1000:8.1f} ms")
    print(f"  B: first round, {n} entries pulled and projected  {median(pull) * 1000:8.1f} ms")
    print(f"  A: a round with nothing new                   {median(idle) * 1000:8.1f} ms")
    print(f"  A: one changed entry pushed                   {median(one_a) * 1000:8.1f} ms")
    print(f"  B: one changed entry pulled                   {median(one_b) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
