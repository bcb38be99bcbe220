"""Shared helpers for the benchmarks: isolated homes and median timings of commands."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def coffer_cmd() -> list[str]:
    """The installed console script (what users run), else ``python -m coffer``."""
    script = Path(sys.executable).with_name("coffer")
    return [str(script)] if script.exists() else [sys.executable, "-m", "coffer"]


def isolated_env(base: Path) -> dict[str, str]:
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "ECC_"))}
    # Users' installs carry compiled bytecode (pip compiles on install): a sandbox that sets
    # PYTHONDONTWRITEBYTECODE would time every module being compiled from source instead.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(home),
        COFFER_HOME=str(base / "coffer-home"),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        CODEX_HOME=str(home / ".codex"),
        XDG_DATA_HOME=str(base / "xdg-data"),
        XDG_CONFIG_HOME=str(base / "xdg-config"),
    )
    return env


def time_cmd(
    cmd: list[str], *, env: dict[str, str], cwd: Path | None = None, runs: int = 30, warmup: int = 3
) -> list[float]:
    """Wall-clock seconds of each run (after warm-up runs)."""
    out = []
    for i in range(warmup + runs):
        t = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
        dt = time.perf_counter() - t
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} failed: {proc.stderr.decode()}")
        if i >= warmup:
            out.append(dt)
    return out


def ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return f"median {statistics.median(values) * 1000:7.1f} ms  p95 {p95 * 1000:7.1f} ms"


def median(values: list[float]) -> float:
    return statistics.median(values)


class TempDir:
    def __enter__(self) -> Path:
        self.path = Path(tempfile.mkdtemp(prefix="coffer-bench-"))
        return self.path

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def write_entries(directory: Path, n: int, prefix: str = "fact") -> None:
    """n Claude-format entries, written directly (as an agent would)."""
    directory.mkdir(parents=True, exist_ok=True)
    words = [
        "deploy",
        "release",
        "database",
        "cache",
        "queue",
        "auth",
        "token",
        "schema",
        "migration",
        "lint",
        "test",
        "build",
        "docker",
        "kubernetes",
        "staging",
        "production",
        "metrics",
        "logging",
        "retry",
        "timeout",
    ]
    for i in range(n):
        w = [words[(i * 7 + k) % len(words)] for k in range(12)]
        (directory / f"{prefix}-{i:05}.md").write_text(
            f"---\nname: {prefix}-{i:05}\ndescription: {' '.join(w[:8])} note {i}\n"
            f"metadata:\n  type: project\n---\n\n{' '.join(w * 4)} entry number {i}.\n"
        )
