"""What hiding blocks from git costs `coffer project`, in a real repository with a tracked
AGENTS.md against a directory that only looks like one (no git runs there).

Three cases each: the no-op path; the full path with nothing to write (no git either);
and a session start after `git checkout` took the block away, so the block is written and
git's index entry refreshed (the only case that runs git).

Run: python benchmarks/bench_git.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env, ms, time_cmd

ORIGINAL = b"# Agents\n\nRun make test.\n"


def _git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _rewrite_runs(cmd: list[str], root: Path, env: dict[str, str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        (root / "AGENTS.md").write_bytes(ORIGINAL)  # as a branch switch leaves it
        t = time.perf_counter()
        proc = subprocess.run([*cmd, "project", "--quiet"], env=env, cwd=root, capture_output=True)
        out.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr.decode())
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    if shutil.which("git") is None:
        raise SystemExit("git is not installed")
    with TempDir() as base:
        env = isolated_env(base)
        config = base / "gitconfig"
        config.write_text("[user]\n\tname = bench\n\temail = bench@example.com\n")
        env.update(GIT_CONFIG_GLOBAL=str(config), GIT_CONFIG_NOSYSTEM="1")
        home = Path(env["HOME"])
        (home / ".claude").mkdir()
        (home / ".codex").mkdir()
        cmd = coffer_cmd()
        for real_git in (False, True):
            root = base / ("git-repo" if real_git else "fake-repo")
            root.mkdir()
            if real_git:
                _git(root, env, "init", "-q", "-b", "main")
            else:
                (root / ".git").mkdir()
            (root / "AGENTS.md").write_bytes(ORIGINAL)
            if real_git:
                _git(root, env, "add", "AGENTS.md")
                _git(root, env, "commit", "-q", "-m", "init")
            subprocess.run(
                [*cmd, "remember", "The build uses make release.", "--name", "build"],
                env=env,
                cwd=root,
                check=True,
                capture_output=True,
            )
            subprocess.run([*cmd, "project", "--quiet"], env=env, cwd=root, check=True)
            label = "real git " if real_git else "fake .git"
            noop = time_cmd([*cmd, "project", "--quiet"], env=env, cwd=root, runs=args.runs)
            print(f"{label} no-op path                 {ms(noop)}")
            full = time_cmd(
                [*cmd, "project", "--quiet", "--replace-edited"],
                env=env,
                cwd=root,
                runs=args.runs,
                warmup=1,
            )
            print(f"{label} full path, nothing to write {ms(full)}")
            rewrite = _rewrite_runs(cmd, root, env, args.runs)
            print(f"{label} block written again         {ms(rewrite)}")
            if real_git:
                status = subprocess.run(
                    ["git", "status", "--porcelain"], cwd=root, env=env, capture_output=True
                )
                print(f"git status after the runs: {status.stdout.decode()!r}")


if __name__ == "__main__":
    main()
