"""Recall puts the best match first in small and large stores, through the real CLI.

In each store every query term occurs in at least half of the entries: FTS5's own bm25()
then gives each term an IDF of 1e-6, every score rounds to 0 and the order fell back to the
entry names. Each best answer's name sorts after every other name, so an order by name
alone puts it last.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import coffer, make_repo, store


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def recall(repo: Path, query: str, limit: int = 10) -> list[dict[str, Any]]:
    out = coffer("recall", query, "--json", "--limit", str(limit), "--scope", "project", cwd=repo)
    assert out.returncode == 0, out.stderr
    results: list[dict[str, Any]] = json.loads(out.stdout)["results"]
    return results


def remember(repo: Path, name: str, text: str) -> None:
    out = coffer("remember", text, "--name", name, cwd=repo)
    assert out.returncode == 0, out.stderr


def write_entry(directory: Path, name: str, description: str, body: str) -> None:
    # Written directly, as an agent writing through Claude's link would.
    (directory / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n---\n\n"
        f"{body}\n"
    )


def test_three_entries_best_first_with_a_score(repo: Path) -> None:
    remember(repo, "database-engine", "The database is PostgreSQL 15.")
    remember(repo, "migration-owner", "Ask Dana before any migration.")
    remember(repo, "schema-migrations", "Database migrations run with alembic before deploys.")
    hits = recall(repo, "database migration")
    assert hits[0]["name"] == "schema-migrations"
    scores = [h["score"] for h in hits]
    assert len(hits) == 3 and all(s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1]


def test_thirty_entries_best_first(repo: Path) -> None:
    remember(repo, "zz-cache-timeouts", "Redis cache timeouts are 5 s; raise them in prod.")
    tier = store().project_tier(repo)
    assert tier is not None
    terms = ("redis", "cache", "timeout")
    for i in range(29):
        # Two of the three query terms each: every term is in 2/3 of the entries.
        a, b = terms[i % 3], terms[(i + 1) % 3]
        text = f"Note {i} on the {a} and the {b} settings for service {i}."
        write_entry(tier.dir, f"note-{i:02}", text, text)
    hits = recall(repo, "redis cache timeout")
    assert hits[0]["name"] == "zz-cache-timeouts"
    assert hits[0]["score"] > hits[1]["score"] > 0


def test_ten_thousand_entries_best_first(repo: Path) -> None:
    remember(repo, "seed", "Seed entry so the project tier exists.")
    tier = store().project_tier(repo)
    assert tier is not None
    terms = ("deploy", "staging", "rollback")
    for i in range(9_999):
        a, b = terms[i % 3], terms[(i + 1) % 3]
        write_entry(
            tier.dir,
            f"fact-{i:05}",
            f"note {i} about the build",
            f"Entry {i} mentions {a} once and {b} once, among other words.",
        )
    write_entry(
        tier.dir,
        "staging-deploy-rollback",
        "How to roll back a staging deploy",
        "A failed staging deploy is rolled back with `make rollback ENV=staging`.",
    )
    hits = recall(repo, "staging deploy rollback", limit=5)
    assert hits[0]["name"] == "staging-deploy-rollback"
    assert hits[0]["score"] > hits[1]["score"] > 0


def test_recall_json_always_has_a_score(repo: Path) -> None:
    remember(repo, "alpha", "Alpha ships on Mondays.")
    remember(repo, "cjk", "部署在星期一")
    hits = recall(repo, "alpha mondays")
    assert set(hits[0]) >= {"name", "description", "type", "file", "tier", "body", "score"}
    # The substring fallback (scripts FTS5 does not split) has no rank: its score is 0.
    assert [(h["name"], h["score"]) for h in recall(repo, "星期")] == [("cjk", 0.0)]
