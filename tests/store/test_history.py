"""No memory lost to an agent or a hand (docs/adr/0052): every change coffer did not make keeps
the version it replaced, found by stat at the next run, and `coffer restore` brings it back."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coffer.base.errors import InvalidInputError
from coffer.store import Revision
from coffer.store.history import RETENTION_DAYS, History, history_dir
from tests.helpers import coffer, make_repo, store, write_entry
from tests.watch import test_daemon as watching
from tests.watch.test_daemon import Daemon, wait_for

project, start = watching.project, watching.start  # the real daemon's fixtures


@pytest.fixture
def home(fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()  # Claude Code and Codex "installed"
    (fake_home / ".codex").mkdir()
    return fake_home


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    (root / "AGENTS.md").write_text("# Team rules\n\nRun the tests.\n")
    return root


def ok(*args: str, cwd: Path) -> str:
    out = coffer(*args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


def versions(name: str, cwd: Path) -> list[dict[str, object]]:
    return json.loads(ok("history", name, "--json", cwd=cwd))


def claude_memory(home: Path) -> Path:
    (link,) = (home / ".claude" / "projects").glob("*/memory")
    assert link.is_symlink()  # Claude's folder is the project tier after `coffer project`
    return link


# ---- the store ---------------------------------------------------------------------------


def test_the_check_reads_only_files_whose_stat_changed(tmp_path: Path) -> None:
    s = store()
    tier = s.project_tier(make_repo(tmp_path / "r"), create=True)
    assert tier is not None
    for n in range(3):
        write_entry(tier.dir, f"e{n}", f"entry {n}")
    kept = History(s.root, tier)
    assert kept.check() == []  # first look: every file's bytes kept, nothing replaced
    hist = history_dir(s.root, tier)
    assert hist.parent.parent == s.root / "state" and len(os.listdir(hist / "objects")) == 3
    assert not (tier.dir / "seen.json").exists()  # nothing of it where agents read
    with pytest.MonkeyPatch.context() as mp:  # an unchanged stat never opens a file
        real = Path.read_bytes

        def read(path: Path) -> bytes:
            assert path.parent != tier.dir, f"read {path}"
            return real(path)

        mp.setattr(Path, "read_bytes", read)
        assert kept.check() == []
    (tier.dir / "e0.md").unlink()
    write_entry(tier.dir, "e2", "entry two, rewritten")
    events = {(r["filename"], r["event"]) for r in kept.check()}
    assert events == {("e0.md", "deleted"), ("e2.md", "changed")}
    assert [v.event for v in kept.versions("e2")] == ["changed"]
    assert b"entry 2" in kept.blob(kept.versions("e2")[0].digest)


def test_coffer_writes_keep_what_they_replace(tmp_path: Path) -> None:
    s = store()
    tier = s.project_tier(make_repo(tmp_path / "r"), create=True)
    assert tier is not None
    s.remember(tier, "Releases are cut on Thursdays.", name="releases")
    s.update(tier, "releases", Revision(text="Releases are cut on Fridays."))
    s.forget(tier, "releases")
    kept = History(s.root, tier)
    assert [(v.event, v.replaced_by is None) for v in kept.versions("releases")] == [
        ("written", False),
        ("written", True),
    ]
    assert b"Thursdays" in kept.blob(kept.versions("releases")[0].digest)


def test_versions_older_than_the_retention_are_pruned(tmp_path: Path) -> None:
    s = store()
    tier = s.project_tier(make_repo(tmp_path / "r"), create=True)
    assert tier is not None
    write_entry(tier.dir, "old", "an old entry")
    kept = History(s.root, tier)
    kept.check()
    (tier.dir / "old.md").unlink()
    kept.check()
    assert len(kept.versions("old")) == 1
    assert kept.prune(time.time() + (RETENTION_DAYS - 1) * 86_400) == 0
    assert len(kept.versions("old")) == 1
    later = time.time() + (RETENTION_DAYS + 2) * 86_400
    assert kept.prune(later) == 1 and kept.versions("old") == []
    assert kept.prune(later + 60) == 0  # once a day at most


# ---- end to end, through the CLI and Claude's linked folder ------------------------------


def test_a_file_deleted_in_claudes_folder_is_restorable_after_the_hook(
    repo: Path, home: Path
) -> None:
    ok("project", cwd=repo)
    ok("remember", "Releases are cut on Thursdays.", "--name", "releases", cwd=repo)
    memory = claude_memory(home)
    (memory / "releases.md").unlink()  # Claude's consolidation deleting a memory
    ok("project", "--hook", cwd=repo)
    (v,) = versions("releases", repo)
    assert v["event"] == "deleted" and v["origin"] == "cli"  # who wrote what was lost
    assert "Thursdays" in str(v["description"])
    said = ok("history", "releases", cwd=repo)
    assert f"kept {RETENTION_DAYS} days" in said
    assert "releases" not in (repo / "AGENTS.md").read_text()
    ok("restore", "releases", cwd=repo)
    assert "Thursdays" in (memory / "releases.md").read_text()
    assert "Releases are cut on Thursdays." in (repo / "AGENTS.md").read_text()
    assert "releases" in (memory / "MEMORY.md").read_text()


def test_a_file_rewritten_there_keeps_its_previous_version(repo: Path, home: Path) -> None:
    ok("project", cwd=repo)
    ok("remember", "We deploy with make release.", "--name", "deploy", cwd=repo)
    memory = claude_memory(home)
    write_entry(memory, "deploy", "We deploy by hand now.")  # an agent rewriting it
    ok("project", "--hook", cwd=repo)
    (v,) = versions("deploy", repo)
    assert v["event"] == "changed" and "make release" in str(v["description"])
    ok("restore", "deploy", cwd=repo)
    assert "make release" in (memory / "deploy.md").read_text()


def test_a_hand_rm_and_restore_version_n_change_agents_md_back(repo: Path, home: Path) -> None:
    ok("project", cwd=repo)
    ok("remember", "Use pnpm.", "--name", "tool", cwd=repo)
    ok("update", "tool", "Use npm.", cwd=repo)
    ok("update", "tool", "Use yarn.", cwd=repo)
    tier = store().project_tier(repo)
    assert tier is not None
    (tier.dir / "tool.md").unlink()  # a hand rm in the tier itself
    ok("project", cwd=repo)
    assert [v["event"] for v in versions("tool", repo)] == ["written", "written", "deleted"]
    assert "Use yarn." not in (repo / "AGENTS.md").read_text()
    ok("restore", "tool", "--version", "1", cwd=repo)
    assert "Use pnpm." in (repo / "AGENTS.md").read_text()
    ok("restore", "tool", "--version", "3", cwd=repo)
    agents = (repo / "AGENTS.md").read_text()
    assert "Use yarn." in agents and "Use pnpm." not in agents
    again = coffer("restore", "tool", "--version", "9", cwd=repo)
    assert again.returncode == 1 and "between 1 and" in again.stderr
    assert coffer("restore", "nothing-here", cwd=repo).returncode == 1


def test_default_restore_skips_what_the_file_already_holds(tmp_path: Path) -> None:
    from coffer.store.history import Version, chosen, digest_of

    a = Version(1, "n", "n.md", digest_of(b"a"), "", "written", None)
    b = Version(2, "n", "n.md", digest_of(b"b"), "", "changed", None)
    assert chosen([a, b], b"b", None) == a
    assert chosen([a, b], None, None) == b
    with pytest.raises(InvalidInputError):
        chosen([a], b"a", None)


def test_with_coffer_watch_running_a_deletion_is_kept_at_once(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    repo = project("repo")
    d = start()
    tier = store().project_tier(repo)
    assert tier is not None
    entry = write_entry(tier.dir, "deploy-freeze", "deploys freeze on fridays zqxv")
    agents = repo / "AGENTS.md"
    wait_for(lambda: "zqxv" in agents.read_text(), "the entry in AGENTS.md", d.log)
    entry.unlink()  # no `coffer project` after this: the watcher's refresh keeps it
    wait_for(lambda: "zqxv" not in agents.read_text(), "the entry to leave AGENTS.md", d.log)
    (v,) = History(store().root, tier).versions("deploy-freeze")
    assert v.event == "deleted"
    assert d.stop() == 0
    ok("restore", "deploy-freeze", cwd=repo)
    assert "zqxv" in agents.read_text()
