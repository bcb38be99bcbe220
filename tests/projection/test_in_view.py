"""Issue 25.5: `coffer explain` says, per agent, how many entries reach the model at session
start and how many only recall finds; what agents load puts the often recalled first."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.helpers import coffer, make_repo


def ok(*args: str, cwd: Path) -> str:
    out = coffer(*args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _seed(repo: Path, n: int) -> Path:
    ok("remember", "seed entry", "--name", "seed", cwd=repo)
    tier = Path(json.loads(ok("show", "seed", "--json", cwd=repo))["file"]).parent
    for i in range(n):
        words = " ".join(f"word{(i * 7 + k) % 97}" for k in range(40))
        (tier / f"fact-{i:03}.md").write_text(
            f"---\nname: fact-{i:03}\ndescription: fact {i} {words[:60]}\n"
            f"metadata:\n  type: project\n  updated_at: '2026-01-01T00:00:{i % 60:02}Z'\n"
            f"---\n\nfact {i}: {words}\n"
        )
    return tier


def test_explain_counts_the_entries_each_agent_has_in_view(tmp_path: Path, fake_home: Path) -> None:
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    _seed(repo, 300)
    ok("project", cwd=repo)
    agents = (repo / "AGENTS.md").read_text()
    more = re.search(r"…and (\d+) more: run `coffer recall", agents)
    assert more is not None  # the block is full: the rest is left to recall
    data = json.loads(ok("explain", "--json", cwd=repo))
    (codex,) = [a for a in data["agents"] if a["name"] == "codex"]
    counts = codex["coffer_memory"]["entries"]["project"]
    assert counts["total"] == 301
    assert counts["total"] - counts["in_view"] == int(more.group(1))
    said = ok("explain", cwd=repo)
    line = (
        f"{counts['in_view']} of 301 entries in view, ~{codex['coffer_memory']['tokens']:,} tokens"
    )
    assert f"{line}; {int(more.group(1))} by recall only" in said


def test_what_recall_returns_often_moves_up_in_what_agents_load(
    tmp_path: Path, fake_home: Path
) -> None:
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    _seed(repo, 300)
    ok("project", cwd=repo)
    assert "fact 0 word0 word1 word2" not in (repo / "AGENTS.md").read_text()  # the oldest
    for _ in range(3):
        hits = json.loads(ok("recall", "fact-000", "--limit", "1", "--json", cwd=repo))
        assert hits["results"][0]["name"] == "fact-000"
    # Counts are a hint: they take effect when the tier's blocks are next written, not by
    # making every session start after a recall redo its work.
    ok("remember", "One more fact.", cwd=repo)
    agents = (repo / "AGENTS.md").read_text()
    first = agents.split("More, one line each")[0]  # the whole entries, shown first
    assert "fact 0 word0 word1 word2" in first
