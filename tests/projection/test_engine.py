"""End-to-end projection in a fake home: project, re-run, merge, undo."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from coffer.adapter import registry
from coffer.projection import managed_block
from coffer.projection.engine import Engine
from coffer.testing import snapshot
from tests.helpers import coffer, make_repo, make_worktree, store

CODEX_CONFIG = b"""# Codex settings (hand written)
model = "o4-mini"   # fast

[features]
memories = true     # on for now
memories_extra = true

[memories]
use_memories = true
"""


@pytest.fixture
def home(fake_home):
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    return fake_home


@pytest.fixture
def repo(tmp_path, home):
    r = make_repo(tmp_path / "repo")
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    s.remember(s.global_tier(create=True), "Prefer tabs over spaces.", name="tabs", type="feedback")
    return r


def engine() -> Engine:
    return Engine(store(), dict(os.environ))


def claude_dir(home: Path, root: Path) -> Path:
    from coffer_adapters.claude_code import slug

    return home / ".claude" / "projects" / slug(str(root)) / "memory"


def outside(tmp_path: Path) -> dict:
    return snapshot(tmp_path, tmp_path / "coffer-home")


def test_fresh_machine(repo, home):
    r = engine().project(repo)
    assert r.ok, r.problems
    link = claude_dir(home, repo)
    tier = store().project_tier(repo)
    assert link.is_symlink() and os.path.realpath(link) == str(tier.dir)
    assert (link / "deploy.md").is_file()
    agents = (repo / "AGENTS.md").read_text()
    assert (
        managed_block.START_MARKER in agents
        and "- We deploy with make release. (`deploy`)" in agents
    )
    assert (
        "- Prefer tabs over spaces. (`tabs`, feedback)"
        in (home / ".claude" / "CLAUDE.md").read_text()
    )
    assert (
        "- Prefer tabs over spaces. (`tabs`, feedback)"
        in (home / ".codex" / "AGENTS.md").read_text()
    )
    assert not (repo / "CLAUDE.md").exists()  # never shadow AGENTS.md for Claude


def test_rerun_writes_nothing(repo, tmp_path):
    engine().project(repo)
    before = outside(tmp_path)
    tier = store().project_tier(repo)
    index_mtime = os.stat(tier.dir / "MEMORY.md").st_mtime_ns
    r = engine().project(repo)
    assert r.ok and r.changes == []
    assert outside(tmp_path) == before
    assert os.stat(tier.dir / "MEMORY.md").st_mtime_ns == index_mtime


def test_cli_fresh_then_noop_then_dry_run(repo):
    first = coffer("project", cwd=repo / ".git" / "..")
    assert first.returncode == 0, first.stderr
    assert "linked" in first.stdout and "created" in first.stdout
    again = coffer("project", cwd=repo)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    s = store()
    s.remember(s.project_tier(repo), "Staging is at staging.example.com.", name="staging")
    dry = coffer("project", "--dry-run", cwd=repo)
    assert dry.returncode == 0
    assert (
        "would update" in dry.stdout
        and "+- Staging is at staging.example.com. (`staging`)" in dry.stdout
    )
    assert "(`staging`)" not in (repo / "AGENTS.md").read_text()
    quiet = coffer("project", "--quiet", cwd=repo)
    assert (quiet.returncode, quiet.stdout) == (0, "")
    assert "(`staging`)" in (repo / "AGENTS.md").read_text()


def test_subdirectory_and_worktree_share_one_projection(repo, home, tmp_path):
    (repo / "src").mkdir()
    wt = make_worktree(repo, tmp_path / "wt")
    engine().project(repo / "src")
    r = engine().project(wt)
    # One store and one Claude directory; the worktree's own AGENTS.md, which agents started
    # there read, gets the block too (issue 22.18, docs/adr/0040).
    assert r.ok
    assert {c.path for c in r.changes if c.path.name == "AGENTS.md"} == {wt / "AGENTS.md"}
    assert claude_dir(home, repo).is_symlink()
    assert "We deploy with make release" in (wt / "AGENTS.md").read_text()
    assert engine().project(wt).changes == []


def test_existing_claude_memories_are_merged_with_collisions_kept(repo, home):
    native = claude_dir(home, repo)
    native.mkdir(parents=True)
    (native / "deploy.md").write_bytes(b"---\nname: deploy\ndescription: other\n---\nDifferent\n")
    (native / "user_role.md").write_bytes(b"---\nname: user-role\ndescription: I am SRE\n---\nx\n")
    (native / "MEMORY.md").write_text(
        "# Memory Index\n\n- [deploy](deploy.md) — other\n- Remember: CI is flaky on Mondays\n"
    )
    originals = {p.name: p.read_bytes() for p in native.iterdir()}
    r = engine().project(repo)
    assert r.ok, r.problems
    tier = store().project_tier(repo)
    assert (tier.dir / "user_role.md").read_bytes() == originals["user_role.md"]
    # Same bytes but the name, which the store's deploy entry already has.
    assert (tier.dir / "deploy.imported-1.md").read_bytes() == originals["deploy.md"].replace(
        b"name: deploy\n", b"name: deploy-imported-1\n"
    )
    assert "We deploy with make release" in (tier.dir / "deploy.md").read_text()
    assert "- Remember: CI is flaky on Mondays" in (tier.dir / "MEMORY.md").read_text()
    backups = list((store().root / "backups" / "dirs").iterdir())
    assert len(backups) == 1
    assert {p.name: p.read_bytes() for p in backups[0].iterdir()} == originals
    assert native.is_symlink()


def test_merge_failure_leaves_native_directory_intact(repo, home, monkeypatch):
    native = claude_dir(home, repo)
    native.mkdir(parents=True)
    (native / "a.md").write_text("a\n")
    (native / "b.md").write_text("b\n")
    from coffer.projection.symlink import link

    calls = {"n": 0}
    real = link.fsutil.atomic_write_bytes

    def flaky(path, data, mode=0o600):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        real(path, data, mode)

    monkeypatch.setattr(link.fsutil, "atomic_write_bytes", flaky)
    with pytest.raises(OSError, match="disk full"):
        engine().project(repo)
    assert native.is_dir() and not native.is_symlink()
    assert sorted(p.name for p in native.iterdir()) == ["a.md", "b.md"]


@pytest.mark.needs_symlinks
def test_foreign_symlink_is_not_clobbered(repo, home, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = claude_dir(home, repo)
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere)
    r = engine().project(repo)
    assert [p.state for p in r.problems] == ["foreign"]
    assert os.readlink(link) == str(elsewhere)


def test_a_long_lived_engine_keeps_only_its_last_runs_reads(repo, tmp_path):
    """The watcher projects project after project with one engine: what it keeps of the
    tiers a run read (for the no-op stamp) is the last run's, not every project's."""
    other = make_repo(tmp_path / "other")
    s = store()
    s.remember(s.project_tier(other, create=True), "Other ships by hand.", name="ship")
    e = engine()
    assert e.project(repo).ok
    assert set(e.scanned) == {repo}
    assert e.project(other).ok
    assert set(e.scanned) == {other}
    names = {entry.name for _, entries in e.scanned[other] for entry in entries}
    assert names == {"ship", "tabs"}


def test_crlf_bom_agents_md_kept_byte_for_byte_and_undo_restores(repo, tmp_path):
    original = b"\xef\xbb\xbf# Team rules\r\n\r\nUse conventional commits.\r\nNo final newline"
    (repo / "AGENTS.md").write_bytes(original)
    before = outside(tmp_path)
    engine().project(repo)
    data = (repo / "AGENTS.md").read_bytes()
    assert data.startswith(original)
    assert b"\r\n<!-- coffer:memory:start" in data and b"\n" not in data.replace(b"\r\n", b"")
    r = engine().unproject(None, all_=True)
    assert r.ok, r.problems
    assert (repo / "AGENTS.md").read_bytes() == original
    after = outside(tmp_path)
    link = str(claude_dir(Path(os.environ["HOME"]), repo).relative_to(tmp_path))
    assert {
        k: v
        for k, v in after.items()
        if not k.startswith(link) and k not in before and v[0] != "dir"
    } == {}
    assert {k: v for k, v in after.items() if k in before} == before


def test_override_file_gets_the_block(repo):
    (repo / "AGENTS.override.md").write_text("Override rules.\n")
    (repo / "AGENTS.md").write_text("Ignored by Codex.\n")
    engine().project(repo)
    assert managed_block.START_MARKER in (repo / "AGENTS.override.md").read_text()
    assert (repo / "AGENTS.md").read_text() == "Ignored by Codex.\n"


@pytest.mark.parametrize(
    "text",
    [
        f"intro\n{managed_block.START_MARKER}\nno end\n",
        f"{managed_block.END_MARKER}\n{managed_block.START_MARKER}\n",
        f"{managed_block.START_MARKER}\n{managed_block.END_MARKER}\n{managed_block.START_MARKER}\n{managed_block.END_MARKER}\n",
    ],
)
def test_malformed_markers_are_refused_and_untouched(repo, text):
    (repo / "AGENTS.md").write_text(text)
    r = engine().project(repo)
    assert [p.state for p in r.problems] == ["malformed"]
    assert "line" in r.problems[0].message
    assert (repo / "AGENTS.md").read_text() == text


def test_hand_edit_inside_block_is_kept_and_reported(repo):
    engine().project(repo)
    path = repo / "AGENTS.md"
    edited = path.read_text().replace("We deploy with make release.", "We deploy on Fridays.")
    path.write_text(edited)
    s = store()
    s.remember(s.project_tier(repo), "New fact.", name="new")
    r = engine().project(repo)
    assert [p.state for p in r.problems] == ["drifted"]
    assert "coffer remember" in r.problems[0].message
    assert path.read_text() == edited
    r = engine().project(repo, replace_edited=True)
    assert r.ok
    assert "- New fact. (`new`)" in path.read_text()
    assert any(p.read_bytes() == edited.encode() for p in (s.root / "backups").glob("*.bak"))


def test_entry_text_cannot_break_out_of_the_block(repo):
    s = store()
    s.remember(
        s.project_tier(repo), f"evil {managed_block.END_MARKER}\n```\nunclosed fence", name="evil"
    )
    engine().project(repo)
    data = (repo / "AGENTS.md").read_bytes()
    span = managed_block.find(data)
    assert span is not None and not span.edited
    assert data.count(managed_block.END_MARKER.encode()) == 1


def test_secret_shaped_entries_are_never_rendered(repo):
    tier = store().project_tier(repo)
    (tier.dir / "leak.md").write_text(
        "---\nname: leak\ndescription: key\n---\ntoken ghp_" + "a" * 36 + "\n"
    )
    r = engine().project(repo)
    assert "ghp_" not in (repo / "AGENTS.md").read_text()
    assert any("leak" in n and "secret" in n for n in r.notices)


def test_codex_budget_is_respected_and_reported(repo):
    (repo / "AGENTS.md").write_text("x" * 32_300 + "\n")
    r = engine().project(repo)
    assert [p.state for p in r.problems] == ["over-budget"]
    (repo / "AGENTS.md").write_text("x" * 20_000 + "\n")
    s = store()
    tier = s.project_tier(repo)
    for i in range(300):
        (tier.dir / f"fact-{i:03}.md").write_text(
            f"---\nname: fact-{i:03}\ndescription: {'detail ' * 20}\n---\n{'body ' * 40}\n"
        )
    r = engine().project(repo)
    assert r.ok, r.problems
    assert len((repo / "AGENTS.md").read_bytes()) <= 32_768
    assert any("did not fit" in n for n in r.notices)
    assert "more: run `coffer recall" in (repo / "AGENTS.md").read_text()


def test_codex_native_memory_imported_then_disabled_and_restored(repo, home):
    config = home / ".codex" / "config.toml"
    config.write_bytes(CODEX_CONFIG)
    (home / ".codex" / "memories").mkdir()
    (home / ".codex" / "memories" / "memory_summary.md").write_text("Use pnpm, not npm.\n")
    r = engine().project(repo)
    assert r.ok, r.problems
    assert any("unproject --agent codex" in n for n in r.alerts)
    text = config.read_bytes()
    assert text == CODEX_CONFIG.replace(
        b"memories = true     # on for now", b"memories = false     # on for now"
    )
    g = store().global_tier()
    imported = store().find([g], "codex-memory-summary").entry
    assert imported.body.strip() == "Use pnpm, not npm."
    assert imported.metadata["source"].startswith("codex:")
    assert "Use pnpm" in (home / ".claude" / "CLAUDE.md").read_text()
    again = engine().project(repo)
    assert again.changes == [] and not again.alerts
    r = engine().unproject(repo, agents=["codex"])
    assert r.ok, r.problems
    assert config.read_bytes() == CODEX_CONFIG
    assert not (home / ".codex" / "AGENTS.md").exists()
    assert (
        managed_block.START_MARKER not in (repo / "AGENTS.md").read_text()
        if (repo / "AGENTS.md").exists()
        else True
    )
    # Remembered as disabled, so the next session start does not turn it off again.
    assert engine().project(repo).changes == []
    assert config.read_bytes() == CODEX_CONFIG


def test_codex_value_changed_by_user_is_not_undone(repo, home):
    config = home / ".codex" / "config.toml"
    config.write_bytes(CODEX_CONFIG)
    engine().project(repo)
    config.write_bytes(config.read_bytes().replace(b"memories = false", b"memories = 'x'"))
    r = engine().unproject(None, global_=True)
    assert [p.state for p in r.problems] == ["refused"]
    assert any(rec["kind"] == "native" for rec in engine().journal.records())


@pytest.mark.needs_symlinks
def test_undo_refuses_changed_symlink_and_keeps_journal(repo, home, tmp_path):
    engine().project(repo)
    link = claude_dir(home, repo)
    link.unlink()
    (tmp_path / "mine").mkdir()
    link.symlink_to(tmp_path / "mine")
    r = engine().unproject(repo)
    assert [p.state for p in r.problems] == ["refused"]
    assert os.readlink(link) == str(tmp_path / "mine")
    assert any(rec["kind"] == "symlink" for rec in engine().journal.records())
    # After the user puts things back, undo completes.
    link.unlink()
    link.symlink_to(store().project_tier(repo).dir)
    assert engine().unproject(None, all_=True).ok


def test_unproject_replaces_link_with_real_directory_of_current_memories(repo, home):
    engine().project(repo)
    s = store()
    s.remember(s.project_tier(repo), "Added after projection.", name="later")
    r = engine().unproject(repo)
    assert r.ok, r.problems
    link = claude_dir(home, repo)
    assert link.is_dir() and not link.is_symlink()
    assert {"deploy.md", "later.md", "MEMORY.md"} <= {p.name for p in link.iterdir()}
    assert not (repo / "AGENTS.md").exists()
    paused = engine().project(repo)
    assert paused.changes == [] and "paused" in paused.notices[0]
    assert engine().project(repo, resume=True).ok


def test_user_file_with_only_our_block_is_not_deleted(repo):
    (repo / "AGENTS.md").write_text("")
    engine().project(repo)
    engine().unproject(None, all_=True)
    assert (repo / "AGENTS.md").read_text() == ""


@pytest.mark.needs_symlinks
def test_adapter_list_states_and_exit_code(repo, home):
    pending = coffer("adapter", "list", "--json", cwd=repo)
    # Nothing projected yet: not an error (issue 23.9), but not ok either.
    assert pending.returncode == 0 and json.loads(pending.stdout)["ok"] is False
    assert coffer("project", cwd=repo).returncode == 0
    listed = coffer("adapter", "list", cwd=repo)
    assert listed.returncode == 0, listed.stdout
    assert "repo (" in listed.stdout
    (repo / "AGENTS.md").write_text((repo / "AGENTS.md").read_text().replace("deploy", "x"))
    drifted = coffer("adapter", "list", "--json", cwd=repo)
    assert drifted.returncode == 1 and "drifted" in drifted.stderr
    data = json.loads(drifted.stdout)
    states = {(a["name"], t["tier"]): t["state"] for a in data["adapters"] for t in a["targets"]}
    assert states[("codex", "project")] == "drifted"
    assert states[("claude", "project")] == "ok"
    assert data["ok"] is False
    link = claude_dir(home, repo)
    link.unlink()
    link.symlink_to(repo / "nowhere")
    data = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    states = {(a["name"], t["tier"]): t["state"] for a in data["adapters"] for t in a["targets"]}
    assert states[("claude", "project")] == "broken"
    (home / ".claude" / "settings.json").write_text('{"autoMemoryEnabled": false}')
    data = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    claude = next(a for a in data["adapters"] if a["name"] == "claude")
    project = next(t for t in claude["targets"] if t["tier"] == "project")
    assert project["state"] == "shadowed" and "autoMemoryEnabled" in project["detail"]


def test_disabled_adapter_is_not_projected(repo, home):
    assert coffer("adapter", "disable", "codex", cwd=repo).returncode == 0
    engine().project(repo)
    assert not (repo / "AGENTS.md").exists()
    bad = coffer("adapter", "enable", "nosuch", cwd=repo)
    assert bad.returncode == 2 and "unknown agent nosuch; known agents: " in bad.stderr


def test_broken_third_party_adapter_is_reported_and_skipped(repo, monkeypatch):
    class EP(registry.Plugin):
        def __init__(self, name, value, obj=None, exc=None):
            super().__init__(name, value, "thirdparty")
            self.obj, self.exc = obj, exc

        def load(self):
            if self.exc:
                raise self.exc
            return self.obj

    eps = [
        EP("boom", "tp.boom", exc=ImportError("no module tp")),
        EP("half", "tp.half", obj=object()),
    ]
    original = registry.lookup

    def lookup(group, environ=None):
        found, kept = original(group, environ)
        return [*found, *eps], kept

    monkeypatch.setattr(registry, "lookup", lookup)
    loaded = registry.load_adapters()
    assert {"claude", "codex"} <= set(loaded.adapters)
    assert "boom" not in loaded.adapters and "half" not in loaded.adapters
    assert any("failed to load" in e for e in loaded.errors)
    assert any("does not implement" in e for e in loaded.errors)
    r = Engine(store(), dict(os.environ), loaded).project(repo)
    assert (repo / "AGENTS.md").exists()  # the good adapters still ran
    assert any("failed to load" in p.message for p in r.problems)


def test_moved_project_root_keeps_undo_working(repo, tmp_path):
    engine().project(repo)
    moved = tmp_path / "moved"
    shutil.move(str(repo), str(moved))
    r = engine().unproject(None, all_=True)
    assert r.ok, r.problems  # records carry absolute paths; the old files went with the move


def test_block_left_behind_by_a_new_override_is_reported_shadowed(repo):
    import json

    assert coffer("project", cwd=repo).returncode == 0
    (repo / "AGENTS.override.md").write_text("Override.\n")
    data = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    codex = next(a for a in data["adapters"] if a["name"] == "codex")
    states = {t["path"]: t["state"] for t in codex["targets"]}
    assert states[str(repo / "AGENTS.md")] == "shadowed"
    assert states[str(repo / "AGENTS.override.md")] == "missing"
    assert coffer("project", cwd=repo).returncode == 0
    assert managed_block.START_MARKER in (repo / "AGENTS.override.md").read_text()
    assert engine().unproject(repo).ok
    assert not (repo / "AGENTS.md").exists()
    assert (repo / "AGENTS.override.md").read_text() == "Override.\n"


def test_file_changed_during_render_is_not_replaced(repo, monkeypatch):
    from coffer.projection.blocks import render

    (repo / "AGENTS.md").write_text("mine\n")
    real = render.Journal.put

    def racing_put(self, record):
        real(self, record)
        if record.get("kind") == "block" and record["path"] == str(repo / "AGENTS.md"):
            (repo / "AGENTS.md").write_text("changed meanwhile\n")

    monkeypatch.setattr(render.Journal, "put", racing_put)
    r = engine().project(repo)
    assert any(p.state == "refused" and "changed while" in p.message for p in r.problems)
    assert (repo / "AGENTS.md").read_text() == "changed meanwhile\n"


def test_dry_run_on_a_fresh_machine_writes_nothing_anywhere(tmp_path, home):
    fresh = make_repo(tmp_path / "fresh")
    (home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    # A global entry, so the dry run has a block to create (an empty tier gets none).
    assert coffer("remember", "Prefer short answers.", "--scope", "global").returncode == 0
    before = snapshot(tmp_path, tmp_path / "nothing-skipped")
    out = coffer("project", "--dry-run", cwd=fresh)
    assert out.returncode == 0, out.stderr
    assert "would link" in out.stdout and "would create" in out.stdout
    assert "would disable" in out.stdout and "+memories = false" in out.stdout
    assert snapshot(tmp_path, tmp_path / "nothing-skipped") == before


def test_agents_starting_at_once_do_not_race(repo, home):
    """Two session-start hooks firing together: both succeed, one link, one block."""
    import subprocess
    import sys

    native = claude_dir(home, repo)
    native.mkdir(parents=True)
    (native / "note.md").write_text("---\nname: note\ndescription: n\n---\nbody\n")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "coffer", "project", "--quiet"],
            cwd=repo,
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, results
    assert native.is_symlink()
    assert (repo / "AGENTS.md").read_text().count(managed_block.START_MARKER) == 1
    assert len(list((store().root / "backups" / "dirs").iterdir())) == 1
    assert (store().project_tier(repo).dir / "note.md").is_file()


def test_a_disable_switch_that_does_not_work_is_refused(repo, home):
    """Coffer verifies the effect of turning a native memory off, not just its edit."""
    from coffer.adapter import NativeMemory
    from coffer.base.report import Report
    from coffer.projection import native_memory as native

    config = home / "agent.toml"
    config.write_text("memories = true\n")
    broken = NativeMemory(
        config=config,
        enabled=lambda data: data is not None and b"memories = true" in data,
        disable=lambda data: ((data or b"") + b"# tried\n", {"memories": True}),
        restore=lambda data, previous: data or b"",
        describe="memories",
    )
    job = native.NativeJob(store(), store().global_tier(create=True), "x", broken)
    r = native.apply(engine().journal, native.plan(job))
    assert isinstance(r, Report)
    assert [p.state for p in r.problems] == ["error"]
    assert config.read_text() == "memories = true\n"


def test_native_subdirectories_are_kept_in_the_backup_and_reported(repo, home):
    native = claude_dir(home, repo)
    (native / "team").mkdir(parents=True)
    (native / "team" / "shared.md").write_text("team memory\n")
    (native / "mine.md").write_text("---\nname: mine\ndescription: m\n---\nx\n")
    r = engine().project(repo)
    assert r.ok, r.problems
    merged = next(c for c in r.changes if c.action == "merge")
    assert "not merged (kept in the backup): team" in merged.detail
    backup = next((store().root / "backups" / "dirs").iterdir())
    assert (backup / "team" / "shared.md").read_text() == "team memory\n"
    tier = store().project_tier(repo)
    assert (tier.dir / "mine.md").is_file() and not (tier.dir / "team").exists()


def test_no_symlinks_allowed_leaves_the_native_directory_in_place(repo, home, monkeypatch):
    native = claude_dir(home, repo)
    native.mkdir(parents=True)
    (native / "a.md").write_text("---\nname: a\ndescription: a\n---\na\n")

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    from coffer.projection.symlink import link

    monkeypatch.setattr(link.os, "symlink", refuse)
    r = engine().project(repo)
    assert any(p.path == native and "cannot create a symlink" in p.message for p in r.problems)
    assert native.is_dir() and not native.is_symlink()
    assert (native / "a.md").is_file()
    assert all(rec["kind"] != "symlink" for rec in engine().journal.records())


def test_turning_native_memory_off_is_said_even_with_quiet(repo, home):
    (home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    out = coffer("project", "--quiet", cwd=repo)
    assert out.returncode == 0 and out.stdout == ""
    assert "turned off codex's own memory" in out.stderr
    assert "coffer unproject --agent codex" in out.stderr
    again = coffer("project", "--quiet", cwd=repo)
    assert (again.stdout, again.stderr) == ("", "")
