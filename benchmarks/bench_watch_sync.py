"""`coffer watch`'s background sync (ADR 0035): what a tick and a round cost, that an idle
watcher with sync set up stays idle, and that a round stuck on the network does not delay
rendering.

For each project count (20 entries per tier): the own-write check (the store's entry
fingerprint, run on the worker before a change round), one round through the watcher's
round function against a local bare remote (the first, exporting everything, then quiet
ones), the daemon's idle CPU with sync on, and change-to-AGENTS.md latency while a round
hangs on an ssh remote that never answers (``GIT_SSH_COMMAND=sleep``).

Run: python benchmarks/bench_watch_sync.py [--projects 1,100] [--idle 20] [--changes 10]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env
from bench_watch import cpu_seconds, setup, status, wait


def _ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def _sync_init(env: dict[str, str], remote: str) -> None:
    done = subprocess.run(
        [*coffer_cmd(), "sync", "init", remote, "--host", "bench"],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)


def in_process(env: dict[str, str], repos: list[tuple[Path, Path]], runs: int) -> dict[str, float]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        from coffer.app import App
        from coffer.store import Store
        from coffer.sync import control
        from coffer.watch.sync_runner import fingerprint, run_round

        store = Store.from_environ(env)
        for i, (repo, _) in enumerate(repos):  # no remote, no commit: a key of their own
            control.link(App(env, store), repo, f"bench/p{i:03}")
        prints = []
        for _ in range(runs):
            t = time.perf_counter()
            fingerprint(store)
            prints.append(time.perf_counter() - t)
        app = App(env, store)
        t = time.perf_counter()
        first = run_round(app, True)
        first_s = time.perf_counter() - t
        quiet = []
        for _ in range(5):
            t = time.perf_counter()
            out = run_round(app, True)
            quiet.append(time.perf_counter() - t)
        if first.kind != "ok" or out.kind != "ok" or out.pushed:
            raise SystemExit(f"unexpected rounds: {first} / {out}")
        return {
            "fingerprint_ms": _ms(prints),
            "files": float(len(fingerprint(store))),
            "first_round_ms": first_s * 1000,
            "pushed": float(first.pushed),
            "quiet_round_ms": _ms(quiet),
        }
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _daemon(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    cmd = [*coffer_cmd(), "watch", "--log-file", str(log)]
    # Its own process group: a round's git (and the fake ssh) are ended with it.
    return subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)  # what the daemon left behind (a hung fetch)


def _sync_state(env: dict[str, str]) -> dict[str, object]:
    sync = status(env).get("sync")
    return sync if isinstance(sync, dict) else {}


def idle_cpu(env: dict[str, str], base: Path, seconds: float) -> float:
    proc = _daemon(env, base / "idle.log")
    try:
        wait(lambda: _sync_state(env).get("rounds") == 1, "the daemon's first sync round")
        time.sleep(2)
        cpu0 = cpu_seconds(proc.pid)
        time.sleep(seconds)
        return (cpu_seconds(proc.pid) - cpu0) / seconds * 100
    finally:
        _stop(proc)


def latency_while_hung(
    env: dict[str, str], base: Path, repos: list[tuple[Path, Path]], changes: int
) -> tuple[list[float], str]:
    """Change-to-block latency while a round waits on an ssh remote that never answers."""
    # git appends ssh's options and the host to the command: sh takes them as arguments.
    hung = {**env, "GIT_SSH_COMMAND": "sh -c 'sleep 600' --"}
    from coffer.sync import state  # `sync init` would wait on the remote: the config, by hand

    paths = state.SyncPaths.of(Path(env["COFFER_HOME"]))
    ssh = "ssh://git@sync.invalid/memory.git"
    state.save_config(paths, state.load_config(paths)._replace(remote=ssh))
    proc = _daemon(hung, base / "hung.log")
    try:
        wait(lambda: _sync_state(env).get("state") == "running", "a round to be in flight")
        latencies = []
        for j in range(changes):
            repo, agent_dir = repos[j % len(repos)]
            marker = f"hungmarker{j:04d}x"
            t0 = time.perf_counter()
            (agent_dir / f"hung-{j:04d}.md").write_text(
                f"---\nname: hung-{j:04d}\ndescription: {marker}\n---\n\n{marker}\n"
            )
            agents = repo / "AGENTS.md"
            end = t0 + 10
            while marker not in agents.read_text():
                if time.perf_counter() > end:
                    raise SystemExit(f"change {j} never reached {agents} while a round hung")
                time.sleep(0.001)
            latencies.append(time.perf_counter() - t0)
            time.sleep(0.3)
        return latencies, str(_sync_state(env).get("state"))
    finally:
        _stop(proc)


def run_one(n: int, args: argparse.Namespace) -> None:
    with TempDir() as base:
        env = isolated_env(base)
        repos = setup(base, env, n, 20)
        remote = base / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        _sync_init(env, str(remote))
        r = in_process(env, repos, args.runs)
        print(
            f"{n:>4} projects ({int(r['files'])} entry files): fingerprint median "
            f"{r['fingerprint_ms']:6.2f} ms | first round {r['first_round_ms']:7.1f} ms "
            f"(pushed {int(r['pushed'])}) | quiet round median {r['quiet_round_ms']:6.1f} ms"
        )
        cpu = idle_cpu(env, base, args.idle)
        print(f"{'':>4} idle CPU with sync on: {cpu:5.2f}% over {args.idle:g} s")
        lat, state = latency_while_hung(env, base, repos, args.changes)
        lat.sort()
        print(
            f"{'':>4} change -> AGENTS.md while a round hangs on the network: median "
            f"{_ms(lat):6.1f} ms, max {lat[-1] * 1000:6.1f} ms ({len(lat)} changes; "
            f"sync state at the end: {state})"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--projects", default="1,100")
    ap.add_argument("--idle", type=float, default=20.0)
    ap.add_argument("--changes", type=int, default=10)
    ap.add_argument("--runs", type=int, default=30, help="fingerprint runs")
    args = ap.parse_args()
    if not Path("/proc/self/stat").exists():
        raise SystemExit("this benchmark reads /proc (Linux only)")
    for n in (int(x) for x in args.projects.split(",")):
        run_one(n, args)


if __name__ == "__main__":
    main()
