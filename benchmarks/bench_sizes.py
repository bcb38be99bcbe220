"""The worst case of the entry size limit (issue 22 §11, docs/adr/0043): N entries of SIZE
bytes each (default: 300 at the limit) pushed by machine A, then on machine B (a fresh
store) the first `coffer sync` (pull, import, index, project), a `coffer remember`, and the
session-start hook (`coffer project --hook`) right after the pull and once more. Every step
is the real CLI in a fresh process, and each machine syncs once more with nothing new;
prints wall seconds and peak memory of each.

With ``--size`` above the limit the entries go to the remote by plain git (as a machine
running an older coffer, or a hostile one, would push them): B must then skip each, by
name, at the limit's cost.

Run: python benchmarks/bench_sizes.py [--entries 300] [--size BYTES] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, median
from bench_sync import GIT, _machine, _run

from coffer.store.incoming import MAX_ENTRY_FILE

KEY = "projects/github.com/me/app"
_WORDS = [
    "deploy",
    "release",
    "database",
    "cache",
    "queue",
    "schema",
    "migration",
    "staging",
    "metrics",
    "retry",
]


def entry(i: int, size: int) -> bytes:
    """An entry file of exactly ``size`` bytes: frontmatter, then lines of prose."""
    head = (
        f"---\nname: big-{i:04}\ndescription: a long note number {i} on the release\n"
        "type: project\n---\n\n"
    ).encode()
    line = (" ".join(_WORDS[(i + k) % len(_WORDS)] for k in range(12)) + ".\n").encode()
    body = (line * (size // len(line) + 1))[: max(0, size - len(head) - 1)] + b"\n"
    return head + body


def child_run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB (of the process, or the largest it waited for) and
    output of ``cmd``."""
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=out)
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        said = out.read().decode("utf-8", "replace")
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed: {said}")
    return took, usage.ru_maxrss / 1024, said


def push_by_git(base: Path, remote: Path, entries: int, size: int) -> None:
    """Commit the entries to the remote's main with plain git (no coffer, no limit)."""
    scratch = base / "scratch"
    _run([*GIT, "init", "-q", "-b", "main", str(scratch)])
    folder = scratch / KEY
    folder.mkdir(parents=True)
    for i in range(entries):
        (folder / f"big-{i:04}.md").write_bytes(entry(i, size))
    _run([*GIT, "add", "-A"], cwd=scratch)
    _run([*GIT, "commit", "-q", "-m", "a: entries"], cwd=scratch)
    _run([*GIT, "push", "-q", str(remote), "main:main"], cwd=scratch)


def one_world(base: Path, entries: int, size: int) -> dict[str, tuple[float, float]]:
    origin = base / "origin"
    _run([*GIT, "init", "-q", str(origin)])
    _run([*GIT, "commit", "-q", "--allow-empty", "-m", "root"], cwd=origin)
    remote = base / "remote.git"
    _run([*GIT, "init", "-q", "--bare", "-b", "main", str(remote)])
    a, clone_a = _machine(base, "a", origin, remote, "git@github.com:me/app.git")
    out: dict[str, tuple[float, float]] = {}
    cmd = coffer_cmd()
    if size <= MAX_ENTRY_FILE:
        tier = a.store.all_tiers()[1]
        for i in range(entries):
            (tier.dir / f"big-{i:04}.md").write_bytes(entry(i, size))
        took, mb, said = child_run([*cmd, "sync"], dict(a.environ), clone_a)
        assert f"pushed {entries} files" in said, said
        out["A: sync, push"] = (took, mb)
        out["A: sync, nothing new"] = child_run([*cmd, "sync"], dict(a.environ), clone_a)[:2]
    else:
        push_by_git(base, remote, entries, size)
    b, clone_b = _machine(base, "b", origin, remote, "https://github.com/me/app")
    env = dict(b.environ)
    took, mb, said = child_run([*cmd, "sync"], env, clone_b)
    expect = f"pulled {entries} files" if size <= MAX_ENTRY_FILE else f"{entries} pulled files"
    assert expect in said, said
    out["B: sync, pull"] = (took, mb)
    out["B: sync, nothing new"] = child_run([*cmd, "sync"], env, clone_b)[:2]
    remember = [*cmd, "remember", "Tabs, not spaces.", "--name", "tabs"]
    out["B: remember"] = child_run(remember, env, clone_b)[:2]
    hook = [*cmd, "project", "--hook", "--for", "claude"]
    took, mb, said = child_run(hook, env, clone_b)
    assert "gave up" not in said, said
    out["B: hook after the pull"] = (took, mb)
    out["B: hook, nothing new"] = child_run(hook, env, clone_b)[:2]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=300)
    ap.add_argument("--size", type=int, default=MAX_ENTRY_FILE)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.environ.pop("COFFER_HOOK_TIMEOUT", None)  # the hook's own default bound (5 s)
    runs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        with TempDir() as base:
            for step, value in one_world(base, args.entries, args.size).items():
                runs.setdefault(step, []).append(value)
    print(
        f"{args.entries} entries of {args.size} bytes (limit {MAX_ENTRY_FILE}), "
        f"{args.runs} runs, median wall time and worst peak RSS of a process:"
    )
    for step, values in runs.items():
        took = median([v[0] for v in values])
        mb = max(v[1] for v in values)
        print(f"  {step:<26} {took:7.2f} s  {mb:7.1f} MB")


if __name__ == "__main__":
    main()
