from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from coffer.base.errors import (
    EntryExistsError,
    InvalidInputError,
    ProjectError,
    SecretRefusedError,
)
from coffer.store import RememberOptions, Revision, index
from coffer.store.entry import parse
from tests.helpers import coffer, make_repo, make_worktree, store


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


@pytest.fixture
def tier(repo):
    return store().project_tier(repo, create=True)


@pytest.mark.posix_only("POSIX permission bits")
def test_layout_and_metadata_beside_entries(repo, tier):
    s = store()
    s.remember(tier, "We deploy with make release.")
    assert sorted(os.listdir(tier.dir)) == ["MEMORY.md", "we-deploy-with-make-release.md"]
    assert (tier.base / "project.json").is_file()
    assert len(tier.info.id) == 26
    assert tier.info.root == str(repo) and tier.info.name == "repo"
    assert oct(os.stat(tier.dir).st_mode & 0o777) == "0o700"
    assert oct(os.stat(tier.dir / "MEMORY.md").st_mode & 0o777) == "0o600"
    global_tier = s.global_tier(create=True)
    assert global_tier.base.name == "00000000000000000000000000"


def test_entry_file_format(tier):
    saved = store().remember(
        tier,
        "Body text here.\nMore.",
        name="Release Process",
        description="How releases work",
        type="reference",
    )
    text = (tier.dir / "release-process.md").read_text()
    e = parse(text, "release-process.md")
    assert saved.entry.name == e.name == "release-process"
    assert e.description == "How releases work"
    assert e.type == "reference"
    assert {"id", "created_at", "updated_at"} <= set(e.metadata)
    assert e.body == "Body text here.\nMore.\n"


def test_subdirectories_and_worktrees_share_one_store(repo, tmp_path):
    (repo / "src").mkdir()
    wt = make_worktree(repo, tmp_path / "wt")
    s = store()
    a = s.project_tier(repo, create=True)
    assert s.project_tier(repo / "src").base == a.base
    assert s.project_tier(wt).base == a.base


def test_non_git_directory_is_a_project_only_once_opted_in(tmp_path):
    d = tmp_path / "notes"
    d.mkdir()
    with pytest.raises(ProjectError, match="coffer init"):
        store().project_tier(d, create=True)
    assert store().here(d).project is None
    assert coffer("init", cwd=d).returncode == 0
    tier = store().project_tier(d, create=True)
    assert tier.info.root == str(d)


def test_home_directory_and_root_are_refused(fake_home):
    with pytest.raises(ProjectError, match="home directory"):
        store().project_tier(fake_home, create=True)
    with pytest.raises(ProjectError, match="filesystem root"):
        store().project_tier(Path("/"), create=True)


@pytest.mark.parametrize("name", ["../../escape", "/etc/passwd", "a/../../b", "x\x00y"])
def test_traversal_names_are_sanitised(tier, tmp_path, name):
    saved = store().remember(tier, "text", name=name)
    assert (tier.dir / saved.entry.filename).is_file()
    assert "/" not in saved.entry.filename and ".." not in saved.entry.filename
    assert not (tmp_path / "escape.md").exists()


@pytest.mark.parametrize("name", ["???", "..", "/", ""])
def test_name_that_cannot_be_a_name(tier, name):
    with pytest.raises(InvalidInputError, match="cannot make an entry name"):
        store().remember(tier, "text", name=name)


@pytest.mark.parametrize(
    ("secret", "label"),
    [
        ("ghp_" + "a" * 36, "GitHub token"),
        ("AKIA" + "B" * 16, "AWS access key"),
        ("-----BEGIN RSA PRIVATE KEY-----", "private key"),
        ("sk-ant-api03-" + "x" * 30, "provider API key"),
        ("eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4f", "JSON Web Token"),
    ],
)
def test_secrets_are_refused_and_never_echoed(tier, secret, label):
    with pytest.raises(SecretRefusedError) as info:
        store().remember(tier, f"the key is {secret} ok")
    assert label in str(info.value)
    assert secret not in str(info.value)
    assert not any(p.name != "MEMORY.md" for p in tier.dir.iterdir())


def test_secret_in_description_or_name_is_refused(tier):
    with pytest.raises(SecretRefusedError):
        store().remember(tier, "harmless", description="token ghp_" + "a" * 30)


def test_derived_name_collisions_get_suffixes_and_explicit_ones_refuse(tier):
    s = store()
    a = s.remember(tier, "Use tabs. First.")
    b = s.remember(tier, "Use tabs. Second.")
    assert a.entry.name != b.entry.name
    s.remember(tier, "one", name="fixed")
    with pytest.raises(EntryExistsError, match="--replace"):
        s.remember(tier, "two", name="fixed")
    assert s.remember(tier, "one", name="fixed").action == "unchanged"
    again = RememberOptions(replace_existing=True)
    assert s.remember(tier, "two", name="fixed", options=again).action == "updated"
    assert "two" in (tier.dir / "fixed.md").read_text()


def test_update_keeps_unknown_keys(tier):
    (tier.dir / "claude_note.md").write_text(
        "---\nname: note\ndescription: d\nfoo: bar\nmetadata:\n  originSessionId: s1\n---\nold\n"
    )
    store().update(tier, "note", Revision(text="new body"))
    e = parse((tier.dir / "claude_note.md").read_text(), "claude_note.md")
    assert e.metadata["foo"] == "bar" and e.metadata["originSessionId"] == "s1"
    assert e.body.strip() == "new body"


def test_forget_moves_to_trash(tier):
    s = store()
    s.remember(tier, "temporary fact", name="temp")
    s.forget(tier, "temp")
    assert not (tier.dir / "temp.md").exists()
    assert [p.name.endswith("-temp.md") for p in (tier.base / "trash").iterdir()] == [True]
    assert "temp" not in (tier.dir / "MEMORY.md").read_text()


def test_unparsable_file_is_reported_and_untouched(tier):
    s = store()
    bad = tier.dir / "broken.md"
    raw = b"---\nname: [oops\n---\nbody\n"
    bad.write_bytes(raw)
    s.remember(tier, "a good one")
    s.regenerate_index(tier)
    assert bad.read_bytes() == raw
    scan = s.scan(tier)
    assert [p.filename for p in scan.problems] == ["broken.md"]
    assert "[broken](broken.md)" in (tier.dir / "MEMORY.md").read_text()


def test_regeneration_of_unchanged_store_writes_nothing(tier):
    s = store()
    s.remember(tier, "fact one")
    path = tier.dir / "MEMORY.md"
    before = (path.read_bytes(), os.stat(path).st_mtime_ns, os.stat(path).st_ino)
    assert s.regenerate_index(tier) is False
    assert (path.read_bytes(), os.stat(path).st_mtime_ns, os.stat(path).st_ino) == before


def test_hand_written_index_lines_survive(tier):
    s = store()
    s.remember(tier, "fact one", name="one")
    path = tier.dir / "MEMORY.md"
    text = path.read_text()
    path.write_text(
        "# My memory index\n\n- [one](one.md) — edited hook by Claude\n"
        "- Always run `make lint` before pushing\n- [pending](pending.md) — not written yet\n"
        + text.split("\n", 2)[2]
    )
    s.regenerate_index(tier)
    out = path.read_text()
    assert "- Always run `make lint` before pushing" in out
    assert "- [pending](pending.md) — not written yet" in out
    assert out.count("(one.md)") == 1
    assert out.startswith("# Memory\n")
    s.remember(tier, "fact two", name="two")  # a later write keeps them too
    assert "- Always run `make lint` before pushing" in path.read_text()
    s.forget(tier, "two")  # and the generated line of a forgotten entry goes away
    assert "(two.md)" not in path.read_text()


def test_index_fits_claude_budget_with_footer(tier):
    s = store()
    for i in range(260):
        (tier.dir / f"e{i:03}.md").write_text(
            f"---\nname: e{i:03}\ndescription: {'word ' * 60}\nmetadata:\n  type: project\n---\nb\n"
        )
    (tier.dir / "prefs.md").write_text(
        "---\nname: prefs\ndescription: tabs\nmetadata:\n  type: feedback\n---\nb\n"
    )
    s.regenerate_index(tier)
    text = (tier.dir / "MEMORY.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= index.MAX_LINES
    assert index.utf16_units(text) <= index.MAX_UNITS
    assert lines[-1].startswith("- …and ") and "coffer recall" in lines[-1]
    assert lines[2].startswith("- [prefs]")  # feedback survives first
    shown = sum(1 for line in lines if line.startswith("- [e"))
    assert f"{261 - shown - 1} more entries" in lines[-1]


def test_utf16_budget_counts_astral_characters_twice():
    assert index.utf16_units("a🚀") == 3


def test_concurrent_writers_lose_nothing(tier, repo):
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from coffer.store import Store\n"
        "s = Store.from_environ(os.environ)\n"
        "t = s.project_tier(Path(sys.argv[1]), create=True)\n"
        "for i in range(10):\n"
        "    s.remember(t, f'worker {sys.argv[2]} fact {i} shared words')\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(repo), str(w)]) for w in range(6)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 6
    s = store()
    entries = s.entries(tier)
    assert len(entries) == 60
    bodies = {e.body.strip() for e in entries}
    assert all(f"worker {w} fact {i} shared words" in bodies for w in range(6) for i in range(10))
    assert s.regenerate_index(tier) is False  # the last writer left the index current
    assert (tier.dir / "MEMORY.md").read_text().count("\n- [") == 60


@pytest.mark.needs_symlinks
def test_symlink_in_tier_is_not_followed(tier, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: outside\ndescription: x\n---\nsecret-ish\n")
    (tier.dir / "link.md").symlink_to(outside)
    scan = store().scan(tier)
    assert [p.filename for p in scan.problems] == ["link.md"]
    assert all(e.name != "outside" for e in scan.entries)


def test_recall_ranks_and_spans_tiers(tier):
    s = store()
    s.remember(tier, "Deploy with make release. Deploy never by hand.", name="deploy")
    s.remember(tier, "The database is postgres.", name="db")
    g = s.global_tier(create=True)
    s.remember(g, "I like to deploy on Fridays.", name="friday")
    hits = s.recall(s.tiers(Path(tier.info.root), None), "deploy", 10)
    assert [h.entry.name for h in hits][:1] == ["deploy"]
    assert {h.tier.scope for h in hits} == {"project", "global"}
    assert "db" not in [h.entry.name for h in hits]


def test_recall_sees_files_edited_behind_its_back(tier):
    s = store()
    s.remember(tier, "alpha", name="x")
    s.recall([tier], "alpha", 5)
    (tier.dir / "x.md").write_text("---\nname: x\ndescription: beta now\n---\nbeta\n")
    assert [h.entry.name for h in s.recall([tier], "beta", 5)] == ["x"]


def test_recall_substring_fallback_for_cjk(tier):
    s = store()
    s.remember(tier, "部署使用发布命令", name="cjk")
    assert [h.entry.name for h in s.recall([tier], "发布", 5)] == ["cjk"]


def test_corrupt_cache_is_rebuilt(tier):
    s = store()
    s.remember(tier, "alpha", name="x")
    (tier.base / "cache.sqlite").write_bytes(b"garbage" * 100)
    assert [h.entry.name for h in s.recall([tier], "alpha", 5)] == ["x"]


@pytest.mark.posix_only("POSIX permission bits")
def test_store_directories_and_lock_are_private(repo, tier):
    store().remember(tier, "fact")
    root = store().root
    for d in (root, root / "projects", tier.base, tier.dir):
        assert oct(os.stat(d).st_mode & 0o777) == "0o700", d
    assert oct(os.stat(tier.base / ".lock").st_mode & 0o777) == "0o600"


def test_forget_in_the_wrong_tier_says_where_the_entry_is(tier):
    from coffer.base.errors import EntryNotFoundError

    s = store()
    s.remember(s.global_tier(create=True), "Prefer tabs.", name="tabs")
    with pytest.raises(EntryNotFoundError, match="it is in the global tier"):
        s.forget(tier, "tabs")
    with pytest.raises(EntryNotFoundError, match="no entry named 'nothing'"):
        s.forget(tier, "nothing")
