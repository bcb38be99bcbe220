"""End-to-end timing of ``coffer vault search`` and ``coffer vault doctor`` on 5,000 memories.

Run: ``/work/venv/bin/python benchmarks/bench_vault.py [--docs 5000] [--runs 7]``

Builds a throwaway git repository with a project vault of N canonical memory files, then
times each command as a subprocess (median of ``--runs``), next to ``python -c pass`` from
the same interpreter so the numbers can be compared across machines. Targets: search
< 200 ms, doctor < 1 s. Note the reference's 5,000-entry scan budget (docs/vault-format.md
§4) counts the kind directories and ``.gitignore`` too, so a 5,000-document vault is scanned
up to that cap.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coffer.vault.document import serialize
from coffer.vault.validate import KINDS

WORDS = [
    *[
        "auth",
        "migration",
        "token",
        "rotation",
        "deploy",
        "rollback",
        "cache",
        "index",
        "schema",
        "vault",
        "memory",
    ],
    *[
        "harness",
        "review",
        "lesson",
        "runbook",
        "incident",
        "latency",
        "budget",
        "queue",
        "worker",
        "retry",
    ],
    *[
        "backoff",
        "release",
        "branch",
        "merge",
        "conflict",
        "test",
        "fixture",
        "parser",
        "lexer",
        "scope",
    ],
]


def build_vault(root: Path, docs: int, seed: int = 7) -> Path:
    """A git repo with ``docs`` canonical memories under ``.ecc/memory/project``."""
    rng = random.Random(seed)
    (root / ".git").mkdir(parents=True)
    project = root / ".ecc" / "memory" / "project"
    project.mkdir(parents=True)
    (project / ".gitignore").write_text("*\n!.gitignore\n")
    for kind in KINDS:
        (project / f"{kind}s").mkdir()
    for index in range(docs):
        kind = KINDS[index % len(KINDS)]
        minute, second = divmod(index, 60)
        stamp = f"2026-11-30T{minute // 60:02d}:{minute % 60:02d}:{second:02d}.000Z"
        memory = {
            "schema": "ecc.memory.v1",
            "id": f"mem_20261130_{index:020x}",
            "title": " ".join(rng.choices(WORDS, k=4)).capitalize(),
            "kind": kind,
            "scope": "project",
            "trust": "unreviewed",
            "status": "active",
            "sourceHarness": rng.choice(["codex", "claude", "hermes"]),
            "targetHarnesses": ["all"],
            "tags": sorted(set(rng.choices(WORDS, k=2))),
            "links": [],
            "createdAt": stamp,
            "updatedAt": stamp,
            "body": " ".join(rng.choices(WORDS, k=rng.randint(20, 80))) + ".",
        }
        path = project / f"{kind}s" / f"{memory['id']}.md"
        path.write_text(serialize(memory), encoding="utf-8")
    return root


def time_command(
    argv: list[str], cwd: Path, runs: int, env: dict[str, str] | None = None
) -> tuple[float, str]:
    """Median wall time in ms over ``runs`` (after one warm-up), and the last stdout."""
    env = env if env is not None else dict(os.environ)
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    samples: list[float] = []
    out = ""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        samples.append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"{argv} failed: {done.stderr.decode()}")
        out = done.stdout.decode()
    return statistics.median(samples), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = build_vault(Path(tmp) / "repo", options.docs)
        # coffer's parse cache (docs/adr/0011) lives in its state directory: keep it in the
        # throwaway directory, and let the files age past the cache's 2 s "racily clean"
        # window so the timed runs see a vault at rest, as a session start does.
        cached = {**os.environ, "COFFER_HOME": str(Path(tmp) / "coffer-home")}
        uncached = {**cached, "COFFER_VAULT_CACHE": "0"}
        time.sleep(2.1)
        coffer = [sys.executable, "-m", "coffer", "vault"]
        direct = [sys.executable, "-m", "coffer.vault"]
        base, _ = time_command([sys.executable, "-c", "pass"], root, options.runs)
        search = ["search", "auth", "migration"]
        rows = [
            ("coffer vault search", [*coffer, *search], 200, cached),
            ("coffer vault doctor", [*coffer, "doctor", "--json"], 1000, cached),
            ("python -m coffer.vault search", [*direct, *search], 200, cached),
            ("python -m coffer.vault doctor", [*direct, "doctor", "--json"], 1000, cached),
            ("coffer vault search (no cache)", [*coffer, *search], 200, uncached),
            ("coffer vault doctor (no cache)", [*coffer, "doctor", "--json"], 1000, uncached),
        ]
        print(f"documents: {options.docs}; median of {options.runs} runs")
        print(f"{'python -c pass':32} {base:8.1f} ms")
        out = report = ""
        for label, argv, target, env in rows:
            median, stdout = time_command(argv, root, options.runs, env)
            out = stdout if "search" in label else out
            report = stdout if "doctor" in label else report
            verdict = "OK" if median < target else "MISSED"
            print(
                f"{label:32} {median:8.1f} ms  ({median / base:5.1f}x pass)  "
                f"target < {target} ms {verdict}"
            )
        truncated = '"truncated": true' in report
        print(f"scan truncated at the 5,000-entry cap: {truncated}")
        print(f"search result lines:   {len(out.splitlines())}")


if __name__ == "__main__":
    main()
