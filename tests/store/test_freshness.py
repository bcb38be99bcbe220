"""Issue 25.3: an entry names what it is about (anchors) and when to look again; coffer says
when it may no longer be true, marks it where agents load it, or leaves it to recall."""

from __future__ import annotations

import datetime
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from coffer.base.errors import InvalidInputError
from coffer.store import freshness
from tests.helpers import coffer, make_repo


@pytest.fixture
def home(fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()  # Claude Code and Codex "installed"
    (fake_home / ".codex").mkdir()
    return fake_home


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    (root / "scripts").mkdir()
    (root / "scripts" / "release.sh").write_text("#!/bin/sh\nmake release\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def deploy():\n    pass\n")
    return root


def ok(*args: str, cwd: Path) -> str:
    out = coffer(*args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _meta(repo: Path, name: str) -> dict[str, object]:
    shown = json.loads(ok("show", name, "--json", cwd=repo))
    return dict(shown["metadata"])


# ---- units ------------------------------------------------------------------------------


def test_blob_ids_are_gits(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes(b"hello\n")
    git = subprocess.run(
        ["git", "hash-object", str(f)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert freshness.blob_id(f) == git
    assert freshness.blob_id(tmp_path / "missing") is None
    assert freshness.blob_id(tmp_path) is None  # a directory is no blob


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("src/app.py", freshness.Anchor("src/app.py")),
        ("./src/app.py#deploy", freshness.Anchor("src/app.py", "deploy")),
        ("src\\win.py", freshness.Anchor("src/win.py")),
    ],
)
def test_anchors_parse(given: str, expected: freshness.Anchor) -> None:
    assert freshness.parse_anchor(given) == expected


@pytest.mark.parametrize("bad", ["", "/etc/passwd", "../outside.py", "a//b", "#sym"])
def test_anchors_outside_the_repository_are_refused(bad: str) -> None:
    with pytest.raises(InvalidInputError, match="inside the repository"):
        freshness.parse_anchor(bad)


def test_review_dates_and_ages() -> None:
    today = datetime.date(2026, 12, 3)
    assert freshness.review_date("2027-03-01", today) == ("2027-03-01", None)
    assert freshness.review_date("90d", today) == ("2027-03-03", "90d")
    assert freshness.review_date("2w", today) == ("2026-12-17", "2w")
    assert freshness.review_date("1y", today) == ("2027-12-03", "1y")
    for bad in ("soon", "0d", "2027-13-01", "-3d"):
        with pytest.raises(InvalidInputError, match="review-after"):
            freshness.review_date(bad, today)


def test_paths_quoted_in_the_text_are_inferred_only_where_they_exist(repo: Path) -> None:
    text = (
        "Deploy with `scripts/release.sh` (see src/app.py, docs/missing.md, "
        "https://example.com/a/b.html and v1.2.3)."
    )
    assert [a.path for a in freshness.inferred(text, repo)] == [
        "scripts/release.sh",
        "src/app.py",
    ]


def test_judge_names_each_reason(repo: Path) -> None:
    meta = freshness.stamped({}, repo, anchors=[freshness.Anchor("src/app.py", "deploy")])
    meta["anchors"].append({"path": "gone.txt", "blob": "0" * 40})  # type: ignore[attr-defined]
    meta["review_after"] = "2026-01-01"
    assert freshness.judge(meta, repo, datetime.date(2025, 1, 1)) == freshness.Stale(
        ("gone.txt is gone",)
    )
    (repo / "src" / "app.py").write_text("def ship():\n    pass\n")
    reasons = freshness.judge(meta, repo, datetime.date(2026, 6, 1))
    assert reasons is not None and reasons.reasons == (
        "deploy is no longer in src/app.py",
        "gone.txt is gone",
        "review was due 2026-01-01",
    )
    assert freshness.judge({"type": "project"}, repo) is None


def test_a_hand_edited_anchor_list_is_read_leniently() -> None:
    meta = {"anchors": ["a.py", {"path": "b.py", "symbol": 3}, {"nope": 1}, 7]}
    assert freshness.anchors_of(meta) == [freshness.Anchor("a.py"), freshness.Anchor("b.py")]
    assert freshness.anchors_of({"anchors": "a.py"}) == []


# ---- end to end -------------------------------------------------------------------------


def test_an_edited_anchor_makes_the_entry_stale_and_marked_where_agents_load_it(
    repo: Path, home: Path
) -> None:
    ok("project", cwd=repo)
    ok("remember", "Deploys run `scripts/release.sh`.", "--name", "deploys", cwd=repo)
    meta = _meta(repo, "deploys")
    script = repo / "scripts" / "release.sh"
    assert meta["anchors"] == [{"path": "scripts/release.sh", "blob": freshness.blob_id(script)}]
    assert "nothing is stale" in ok("stale", cwd=repo)

    script.write_text("#!/bin/sh\n./ship\n")
    ok("project", "--hook", cwd=repo)  # the session start sees the edit, not only `watch`
    said = ok("stale", cwd=repo)
    assert "deploys (" in said and "scripts/release.sh changed since" in said
    agents = (repo / "AGENTS.md").read_text()
    assert "[stale: scripts/release.sh changed since" in agents
    (index,) = (home / ".claude" / "projects").glob("*/memory/MEMORY.md")
    assert "- [deploys](deploys.md) [stale: scripts/release.sh changed" in index.read_text()
    listed = json.loads(ok("list", "--json", cwd=repo))
    (entry,) = [e for t in listed["tiers"] for e in t["entries"] if e["name"] == "deploys"]
    assert entry["stale"].startswith("scripts/release.sh changed")
    doctor = coffer("doctor", cwd=repo)
    assert "stale: scripts/release.sh changed" in doctor.stdout + doctor.stderr

    verified = ok("verify", "deploys", cwd=repo)
    assert f"updated {repo / 'AGENTS.md'}" in verified
    assert "nothing is stale" in ok("stale", cwd=repo)
    assert "[stale:" not in (repo / "AGENTS.md").read_text()
    meta = _meta(repo, "deploys")
    assert meta["anchors"] == [{"path": "scripts/release.sh", "blob": freshness.blob_id(script)}]
    assert "verified_at" in meta


def test_a_vanished_anchor_and_a_symbol(repo: Path) -> None:
    ok(
        "remember",
        "The deploy entry point.",
        "--name",
        "entry",
        "--anchor",
        "src/app.py#deploy",
        cwd=repo,
    )
    (repo / "src" / "app.py").write_text("def ship():\n    pass\n")
    assert "deploy is no longer in src/app.py" in ok("stale", cwd=repo)
    (repo / "src" / "app.py").unlink()
    assert "src/app.py is gone" in ok("stale", cwd=repo)
    bad = coffer("remember", "x", "--anchor", "../etc/passwd", cwd=repo)
    assert bad.returncode != 0 and "inside the repository" in bad.stderr


def test_a_review_date_that_passed_is_stale_and_verify_starts_the_age_again(repo: Path) -> None:
    ok("remember", "We use pnpm.", "--name", "pm", "--review-after", "2020-01-01", cwd=repo)
    assert "review was due 2020-01-01" in ok("stale", cwd=repo)
    ok("update", "pm", "--review-after", "30d", cwd=repo)
    assert "nothing is stale" in ok("stale", cwd=repo)
    meta = _meta(repo, "pm")
    expected = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    assert (meta["review_after"], meta["review_every"]) == (expected, "30d")
    bad = coffer("remember", "x y z", "--review-after", "someday", cwd=repo)
    assert bad.returncode == 2 or "review-after" in bad.stderr


def test_verify_settles_a_fixed_review_date_that_has_come(repo: Path) -> None:
    # A fixed date asks for one review: verifying is that review, so the entry is fresh
    # afterwards (it stayed stale for ever before); a date still to come is kept.
    ok("remember", "We use pnpm.", "--name", "pm", "--review-after", "2020-01-01", cwd=repo)
    ok("remember", "We use ruff.", "--name", "lint", "--review-after", "2999-01-01", cwd=repo)
    ok("verify", "pm", cwd=repo)
    ok("verify", "lint", cwd=repo)
    assert "nothing is stale" in ok("stale", cwd=repo)
    assert "review_after" not in _meta(repo, "pm") and "verified_at" in _meta(repo, "pm")
    assert _meta(repo, "lint")["review_after"] == "2999-01-01"


def test_a_tier_can_leave_stale_entries_to_recall(repo: Path, home: Path) -> None:
    ok("project", cwd=repo)
    ok("remember", "Deploys run `scripts/release.sh`.", "--name", "deploys", cwd=repo)
    ok("remember", "Tests run with `make test`.", "--name", "tests", cwd=repo)
    (repo / "scripts" / "release.sh").write_text("changed\n")
    said = ok("stale", "--scope", "project", "--recall-only", cwd=repo)
    assert "recall only" in said
    ok("project", "--hook", cwd=repo)
    agents = (repo / "AGENTS.md").read_text()
    assert "make test" in agents and "release.sh" not in agents
    (index,) = (home / ".claude" / "projects").glob("*/memory/MEMORY.md")
    assert "deploys" not in index.read_text() and "tests" in index.read_text()
    hits = json.loads(ok("recall", "deploys release", "--json", cwd=repo))
    assert hits["results"][0]["name"] == "deploys" and "stale" in hits["results"][0]
    ok("stale", "--scope", "project", "--mark", cwd=repo)
    ok("project", "--hook", cwd=repo)
    assert "[stale: scripts/release.sh changed" in (repo / "AGENTS.md").read_text()


def test_the_global_tier_takes_review_dates_but_no_anchors(repo: Path) -> None:
    bad = coffer("remember", "x", "--scope", "global", "--anchor", "src/app.py", cwd=repo)
    assert bad.returncode != 0 and "global tier has none" in bad.stderr
    ok("remember", "Use UTC.", "--scope", "global", "--review-after", "1d", cwd=repo)
    # Paths quoted in a global entry are not anchored: they name no one repository.
    ok("remember", "See src/app.py everywhere.", "--scope", "global", cwd=repo)
    shown = json.loads(ok("show", "see-src-app-py-everywhere", "--json", cwd=repo))
    assert "anchors" not in shown["metadata"]


def test_anchors_survive_a_file_claude_keeps_writing(repo: Path) -> None:
    """The keys live under metadata, where Claude keeps what it does not know."""
    ok("remember", "Deploys run `scripts/release.sh`.", "--name", "deploys", cwd=repo)
    path = Path(json.loads(ok("show", "deploys", "--json", cwd=repo))["file"])
    text = path.read_text()
    assert text.startswith("---\nname: deploys\ndescription:")
    assert "metadata:\n" in text and "  anchors:\n" in text


def test_mcp_remember_stale_and_verify(repo: Path) -> None:
    from mcp.client.session import ClientSession

    from tests.mcp.test_server import data, drive  # the suite's own client over stdio

    async def body(session: ClientSession) -> None:
        saved = data(
            await session.call_tool(
                "remember", {"text": "Deploys run the app.", "anchors": ["src/app.py"]}
            )
        )
        name = saved["entry"]["name"]
        (repo / "src" / "app.py").write_text("changed\n")
        stale = data(await session.call_tool("stale_memory", {}))
        assert [e["name"] for e in stale["stale"]] == [name]
        assert "src/app.py changed" in stale["stale"][0]["stale"]
        data(await session.call_tool("verify_memory", {"name": name}))
        assert data(await session.call_tool("stale_memory", {}))["stale"] == []

    drive(repo, body)


def test_the_blob_id_is_read_once_per_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes(b"one")
    reads: list[Path] = []
    real = Path.read_bytes

    def counting(self: Path) -> bytes:
        reads.append(self)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    first = freshness.blob_id(f)
    assert freshness.blob_id(f) == first and len(reads) == 1
    f.write_bytes(b"two!")
    assert freshness.blob_id(f) == hashlib.sha1(b"blob 4\0two!").hexdigest()
    assert len(reads) == 2


def test_a_long_lived_process_keeps_a_bounded_few_blob_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher judges anchors in every project for as long as it runs: the blob ids it
    remembers start over past a bound, and each is still git's."""
    monkeypatch.setattr(freshness, "_BLOBS", {})
    monkeypatch.setattr(freshness, "_MAX_BLOBS", 3)
    files = []
    for n in range(7):
        f = tmp_path / f"anchor-{n}.txt"
        f.write_text(f"release {n}\n")
        files.append(f)
        assert freshness.blob_id(f) is not None
        assert len(freshness._BLOBS) <= 3
    made = subprocess.run(
        ["git", "hash-object", str(files[0])], capture_output=True, text=True, check=True
    )
    assert freshness.blob_id(files[0]) == made.stdout.strip()
