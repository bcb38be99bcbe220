"""Bytes of coffer's memory in Claude Code's and Codex's context, and how many copies of
each entry they read (docs/adr/0046), on a sample store: 10 project entries (3 of them
promoted to the team tier), 5 global, and a repository CLAUDE.md holding `@AGENTS.md`.

The layout is built by the coffer of ``--build`` (default: this interpreter's), the bytes
are read by this tree's `coffer explain --json`, so an older tree's layout can be measured:
    python benchmarks/bench_memory_bytes.py --build /work/main/.venv/bin/coffer
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import TempDir, coffer_cmd, isolated_env

PROJECT = "Project fact number {}: the service on port 70{} uses the blue deploy pipeline."
GLOBAL = "Global habit {}: prefer small commits and explain why in the message."


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", help="The coffer executable that builds the layout.")
    args = ap.parse_args()
    build = [args.build] if args.build else coffer_cmd()
    with TempDir() as base:
        env = isolated_env(base)
        for agent in (".claude", ".codex"):
            (base / "home" / agent).mkdir()
        repo = base / "repo"
        repo.mkdir()

        def run(cmd: list[str], *argv: str) -> str:
            done = subprocess.run(
                [*cmd, *argv], cwd=repo, env=env, capture_output=True, text=True, check=True
            )
            return done.stdout

        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        for i in range(1, 11):
            run(build, "remember", PROJECT.format(i, i), "--name", f"p{i}")
        for i in range(1, 6):
            run(build, "remember", GLOBAL.format(i), "--name", f"g{i}", "--scope", "global")
        run(build, "team", "init")
        for i in (1, 2, 3):
            run(build, "team", "add", f"p{i}")
        (repo / "CLAUDE.md").write_text("# Repo notes for Claude\n\n@AGENTS.md\n")
        run(build, "project")
        data = json.loads(run(coffer_cmd(), "explain", "--json"))
        for agent in data["agents"]:
            if agent["name"] not in ("claude", "codex"):
                continue
            text = "".join(
                Path(f["path"]).read_text()
                for f in agent["files"]
                if f["order"] is not None and f["coffer_bytes"]
            )
            copies = {
                "team": [text.count(PROJECT.format(i, i)[:22]) for i in (1, 2, 3)],
                "project": [text.count(PROJECT.format(i, i)[:23]) for i in range(4, 11)],
                "global": [text.count(GLOBAL.format(i)[:15]) for i in range(1, 6)],
            }
            memory = agent["coffer_memory"]
            print(
                f"{agent['name']}: {memory['bytes']:,} bytes (~{memory['tokens']:,} tokens); "
                f"repeated {memory['repeated_bytes']}; copies per entry {copies}"
            )


if __name__ == "__main__":
    main()
