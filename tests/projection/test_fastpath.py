from __future__ import annotations

import ast
import json
import os
import sys

import pytest

from coffer.base import locations
from coffer.projection import fastpath
from tests.helpers import coffer, imported_after, make_repo, python_code, store

# Every coffer module the session-start no-op loads: the check itself and the stdlib-only
# helpers of coffer.base it stands on (docs/architecture.md, "Start-up rules"). A new one
# here is a cost paid at every agent launch: add it only with its measured price.
NOOP_MODULES = {
    "coffer",
    "coffer.main",
    "coffer.base",
    "coffer.base.consoles",
    "coffer.base.identity",
    "coffer.base.locations",
    "coffer.base.platform",
    "coffer.projection",
    "coffer.projection.fastpath",
}


@pytest.fixture
def repo(tmp_path, fake_home):
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    assert coffer("project", cwd=r).returncode == 0
    return r


def noop(repo, *args):
    return fastpath.unchanged(["project", *args], dict(os.environ), str(repo)) is not None


def test_noop_after_a_clean_run(repo):
    assert noop(repo)
    assert noop(repo, "--quiet")
    assert noop(repo, "--hook")  # what `coffer setup` puts in the agents' hooks
    assert noop(repo / "src" if (repo / "src").exists() else repo, "-q")


def test_other_arguments_take_the_full_path(repo):
    assert not noop(repo, "--dry-run")
    assert fastpath.unchanged(["project", "--replace-edited"], dict(os.environ), str(repo)) is None
    assert fastpath.unchanged(["project", "--for", "Bad Name"], dict(os.environ), str(repo)) is None


def test_entry_edited_in_place_is_seen(repo):
    path = store().project_tier(repo).dir / "deploy.md"
    with open(path, "a") as fh:
        fh.write("More detail.\n")
    assert not noop(repo)


def test_new_entry_is_seen(repo):
    s = store()
    s.remember(s.global_tier(), "Prefer tabs.", name="tabs")
    assert not noop(repo)


def test_a_recall_is_seen(repo):
    # How often an entry is recalled orders what agents load (ADR 0055): the next session
    # start renders that order, and until then `adapter list` calls the block behind.
    s = store()
    tier = s.project_tier(repo)
    # newest, and first by name within the same second: listed first
    s.remember(tier, "Prefer tabs.", name="a-tabs", type="project")
    assert coffer("project", cwd=repo).returncode == 0
    index = tier.dir / "MEMORY.md"
    assert index.read_text().index("[a-tabs]") < index.read_text().index("[deploy]")
    assert coffer("recall", "deploy", cwd=repo).returncode == 0
    # the recall rewrote MEMORY.md in its new order: what is looked up comes first
    assert index.read_text().index("[deploy]") < index.read_text().index("[a-tabs]")
    assert not noop(repo)
    listed = coffer("adapter", "list", cwd=repo)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert coffer("project", cwd=repo).returncode == 0
    assert noop(repo)


# One session start's full run, in a fresh interpreter, counting the tiers' scans by phase:
# the run's, the stamp's (stamp.record) and then the stamp's again from a new engine,
# which has read nothing and so scans the tiers itself.
_SCANS = """
import os, sys
from pathlib import Path
from coffer.app import App
from coffer.projection import stamp
from coffer.store import Store
calls, phase = {}, ["run"]
real_scan, real_record = Store.scan, stamp.record
def scan(self, tier):
    calls[phase[0]] = calls.get(phase[0], 0) + 1
    return real_scan(self, tier)
def record(engine, here):
    phase[0] = "record"
    try:
        return real_record(engine, here)
    finally:
        phase[0] = "after"
Store.scan, stamp.record = scan, record
sys.argv = ["coffer", "project", "--hook", "--for", "claude"]
from coffer.main import main
try:
    main()
except SystemExit as exc:
    code = exc.code
stamps = list((Path(os.environ["COFFER_HOME"]) / "state").glob("project-*.stamp"))
signed = [p.read_bytes() for p in stamps]
phase[0] = "fallback"
engine = App(os.environ).engine()
real_record(engine, engine.store.here(Path.cwd()))
same = [p.read_bytes() for p in stamps] == signed
print(repr((code, len(stamps), same, calls)), file=sys.stderr)
"""


def test_the_stamp_signs_what_the_run_read_without_scanning_again(repo, monkeypatch):
    monkeypatch.setenv("COFFER_HOOK_TIMEOUT", "60")  # a loaded machine is no deadline here
    s = store()
    s.remember(s.global_tier(), "Prefer tabs.", name="tabs")  # the full path runs
    out = python_code(_SCANS, repo)
    code, stamps, same, calls = ast.literal_eval(out.stderr.strip().splitlines()[-1])
    assert (code, stamps) == (0, 1), out.stderr
    # The run reads both tiers (six scans when this was written); the stamp reuses them.
    assert calls.get("run", 0) >= 2 and "record" not in calls, calls
    # A stamp written from scans of its own (an engine that ran nothing) is the same stamp.
    assert calls.get("fallback", 0) == 2 and same, calls
    assert noop(repo, "--hook")


def test_target_removed_is_seen(repo):
    (repo / "AGENTS.md").unlink()
    assert not noop(repo)
    assert coffer("project", cwd=repo).returncode == 0
    assert (repo / "AGENTS.md").exists()
    assert noop(repo)


def test_environment_change_is_seen(repo, monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "other-codex"))
    assert not noop(repo)


def test_agent_installed_later_is_seen(tmp_path, fake_home):
    (fake_home / ".claude").mkdir()
    r = make_repo(tmp_path / "r2")
    assert coffer("project", cwd=r).returncode == 0
    assert noop(r)
    (fake_home / ".codex").mkdir()
    assert not noop(r)


def test_run_with_problems_leaves_no_stamp(tmp_path, fake_home):
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "bad")
    (r / "AGENTS.md").write_text("<!-- coffer:memory:start (managed, do not edit) -->\n")
    assert coffer("project", cwd=r).returncode == 1
    assert not noop(r)


def test_without_coffer_home_only_platformdirs_knows_the_store(monkeypatch):
    # Issue 28 §1: no hand-written copy of a platform's rule; the no-op path knows the store
    # only from COFFER_HOME (what `coffer setup` writes into every hook).
    import platformdirs

    monkeypatch.delenv("COFFER_HOME")
    assert locations.known_store_root(os.environ) is None
    assert locations.store_root(os.environ) == platformdirs.user_data_dir("coffer", False)
    monkeypatch.delenv("XDG_DATA_HOME")
    assert locations.store_root(os.environ) == platformdirs.user_data_dir("coffer", False)


def test_noop_cli_prints_nothing_and_imports_no_typer(repo):
    probe = coffer("project", cwd=repo, env={"PYTHONVERBOSE": ""})
    assert (probe.returncode, probe.stdout, probe.stderr) == (0, "", "")
    heavy = ("typer", "yaml", "watchdog", "mcp", "sqlite3", "importlib.metadata", "pathlib")
    # typing too: ~3 ms, a sixth of a bare interpreter start (TYPE_CHECKING is a constant).
    heavy += ("typing",)
    assert imported_after(["project"], repo, heavy) == (0, [])
    hook = ["project", "--hook", "--for", "claude"]
    assert coffer(*hook, cwd=repo).returncode == 0  # records what --for prints
    assert imported_after(hook, repo, heavy) == (0, [])


def test_the_no_op_imports_its_modules_and_the_standard_library_only(repo):
    hook = ["project", "--hook", "--for", "claude"]
    assert coffer(*hook, cwd=repo).returncode == 0  # records the stamp the no-op then finds
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"sys.argv = ['coffer', *{hook!r}]\n"
        "from coffer.main import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        # coffer's own modules whenever loaded (the simulated Windows seam loads
        # coffer.base.platform at start-up); everything else only if the run loaded it
        "mine = sorted(m for m in sys.modules if m.partition('.')[0] == 'coffer')\n"
        "new = sorted(set(sys.modules) - before - set(mine))\n"
        "print(repr((code, mine, new)), file=sys.stderr)\n"
    )
    session = json.dumps({"session_id": "abc", "hook_event_name": "SessionStart"})
    out = python_code(code, repo, input=session)
    status, mine, new = ast.literal_eval(out.stderr.strip().splitlines()[-1])
    assert status == 0 and "`abc`" in out.stdout  # the session's id, read from the hook's input
    assert set(mine) == NOOP_MODULES
    assert [m for m in new if m.partition(".")[0] not in sys.stdlib_module_names] == []


def test_home_directory_projects_the_global_tier_quietly(fake_home):
    (fake_home / ".claude").mkdir()
    s = store()
    s.remember(s.global_tier(create=True), "Prefer tabs.", name="tabs")
    out = coffer("project", "--quiet", cwd=fake_home)
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    assert "tabs" in (fake_home / ".claude" / "CLAUDE.md").read_text()
    assert not list((fake_home / ".claude").glob("projects/*"))  # no project tier for ~
    loud = coffer("project", cwd=fake_home)
    assert loud.returncode == 0
    assert fastpath.unchanged(["project", "-q"], dict(os.environ), str(fake_home)) is not None
    for_claude = coffer("project", "--quiet", "--for", "claude", cwd=fake_home)
    assert (for_claude.returncode, for_claude.stdout) == (0, "")


# What a no-op never carries: each changes what the run does, so the full path takes it.
FULL_PATH_ONLY = {"--dry-run", "--replace-edited", "--resume", "--no-resume", "--git-block"}


def test_the_no_op_reads_the_options_typer_declares_for_project():
    # typer's `project` command is the one declaration of its grammar; the no-op's parse
    # runs before typer loads (docs/adr/0050), so it is held to that declaration here: a
    # flag is a flag, a value takes one, and an option added to typer is placed on one side.
    import typer.main

    from coffer.cli import typer_app

    typer_app.register_commands(["project"])
    command = typer.main.get_command(typer_app.app).commands["project"]  # type: ignore[attr-defined]
    declared = {o: p for p in command.params for o in (*p.opts, *p.secondary_opts)}
    for name in fastpath.NOOP_FLAGS:
        assert declared[name].is_flag, name
    for name in fastpath.NOOP_VALUES:
        assert not declared[name].is_flag and declared[name].nargs == 1, name
    accepted = {*fastpath.NOOP_FLAGS, *fastpath.NOOP_VALUES}
    assert set(declared) == accepted | FULL_PATH_ONLY
    assert not accepted & FULL_PATH_ONLY
