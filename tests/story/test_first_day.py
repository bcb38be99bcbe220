"""The first day, as a newcomer has it (issue 23): the README's set-up, previews that say
what the run does, no empty blocks, setup's words, and an uninstall that can finish.

Everything runs through the real CLI in a fake home, with real git where git is involved.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from coffer_adapters.claude_code import slug
from tests.helpers import coffer
from tests.projection.test_git import init_repo, ok

ENTRY = "---\nname: {name}\ndescription: {text}\nmetadata:\n  type: {kind}\n---\n\n{text}\n"


@pytest.fixture
def world(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude and Codex at their default places; the machine's git configuration shut out."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return fake_home


def claude_memory(home: Path, repo: Path, index: str = "") -> Path:
    """Claude has been used in ``repo`` before coffer: two topic files and its index."""
    native = home / ".claude" / "projects" / slug(str(repo)) / "memory"
    native.mkdir(parents=True)
    tests = ENTRY.format(name="run-tests", text="Run pytest with -vv.", kind="feedback")
    (native / "feedback_tests.md").write_text(tests)
    deploy = ENTRY.format(name="deploy", text="Deploy with make release.", kind="project")
    (native / "project_deploy.md").write_text(deploy)
    (native / "MEMORY.md").write_text(
        index or "- [Tests](feedback_tests.md) — pytest -vv\n- [Deploy](project_deploy.md)\n"
    )
    return native


_VERBS = "create|update|merge|link|disable|import|remove|restore"
_LINE = re.compile(rf"^(?:would )?({_VERBS})(?:e?d)? (/\S+): (.*)$")
_NEW_STORE = ("this project's new store (created on a real run)", "this project's new store")


def changes(out: str) -> dict[tuple[str, str], str]:
    """{(verb, path): detail} of a report's change lines (a dry run's or a real run's)."""
    return {(m[1], m[2]): m[3] for m in map(_LINE.match, out.splitlines()) if m}


# ---- 23.6: a dry run shows what the run will do --------------------------------------


def test_a_dry_run_over_a_claude_directory_says_what_the_run_writes(
    world: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    claude_memory(world, repo)
    dry = ok(coffer("project", "--dry-run", cwd=repo)).stdout
    real = ok(coffer("project", cwd=repo)).stdout
    planned, done = changes(dry), changes(real)
    assert set(planned) == set(done), (dry, real)
    store_dir = next(d for (v, _), d in done.items() if v == "link").removeprefix("-> ")
    for key, detail in planned.items():
        # The dry run cannot name a store it has not created; everything else is the same.
        for words in _NEW_STORE:
            detail = detail.replace(words, store_dir)
        assert detail == done[key], key
    agents = ("create", str(repo / "AGENTS.md"))
    assert planned[agents] == done[agents] == "2 project entries"
    assert dry.count("into this project's new store") == 1


# ---- 23.8: an empty tier costs no context ---------------------------------------------


def test_an_empty_tier_gets_no_block_until_its_first_entry(world: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    claude_md, codex_md = world / ".claude" / "CLAUDE.md", world / ".codex" / "AGENTS.md"
    dry = ok(coffer("project", "--dry-run", cwd=repo)).stdout
    assert str(claude_md) not in dry and str(repo / "AGENTS.md") not in dry
    ok(coffer("project", cwd=repo))
    assert not claude_md.exists() and not codex_md.exists()
    assert not (repo / "AGENTS.md").exists()
    listed = coffer("adapter", "list", cwd=repo)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "no global entries yet: the first one writes the block" in listed.stdout

    # The tier's first entry writes the block, where `coffer project` would have.
    said = ok(coffer("remember", "Prefer small commits.", "--scope", "global", cwd=repo)).stdout
    assert f"updated {claude_md}" in said.splitlines()
    assert "Prefer small commits." in claude_md.read_text()
    assert "Prefer small commits." in codex_md.read_text()
    assert not (repo / "AGENTS.md").exists()  # the project tier is still empty
    ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert "make release" in (repo / "AGENTS.md").read_text()
    assert ok(coffer("project", cwd=repo)).stdout == ""  # nothing left to do

    # A tier that becomes empty keeps its block, shown empty (docs/adr/0045): a forget
    # never deletes a file; `coffer unproject` does, from the journal.
    ok(coffer("forget", "prefer-small-commits", "--scope", "global", cwd=repo))
    assert "_No memories yet._" in claude_md.read_text()
    ok(coffer("unproject", "--all", cwd=repo))
    assert not claude_md.exists() and not codex_md.exists()
    assert not (repo / "AGENTS.md").exists()


def test_a_write_after_unproject_writes_no_waiting_block(world: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    ok(coffer("project", cwd=repo))
    ok(coffer("unproject", "--global", cwd=repo))
    ok(coffer("unproject", cwd=repo))  # pauses the project
    ok(coffer("remember", "Prefer small commits.", "--scope", "global", cwd=repo))
    ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert not (world / ".claude" / "CLAUDE.md").exists()
    assert not (repo / "AGENTS.md").exists()


# ---- 23.3: uninstall for a user who had a Claude memory directory ---------------------


def _tail(out: str) -> list[str]:
    """Uninstall's own lines after the undo report, with "would "/tense taken out."""
    said = [
        x
        for x in out.splitlines()
        if x.startswith(
            ("only in the store", "would delete", "deleted ", "do not delete", "everything coffer")
        )
    ]
    return [
        x.replace("would delete", "deleted").replace("would be undone", "is undone") for x in said
    ]


def test_uninstall_after_claude_memory_was_merged_deletes_the_store(
    world: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    native = claude_memory(
        world, repo, "- [Tests](feedback_tests.md) — pytest -vv\n- ask about the staging DB\n"
    )
    ok(coffer("project", cwd=repo))  # coffer regenerates MEMORY.md: the backup's differs
    store_root = Path(os.environ["COFFER_HOME"])
    dry = coffer("uninstall", "--delete-store", "--dry-run", cwd=repo)
    real = coffer("uninstall", "--delete-store", cwd=repo)
    assert real.returncode == 0, real.stdout + real.stderr
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert _tail(dry.stdout) == _tail(real.stdout)
    assert any(x.startswith(f"deleted {store_root}") for x in _tail(real.stdout))
    assert not store_root.exists()
    # What was the user's is back where they had it: the entries, and the hand line.
    assert "ask about the staging DB" in (native / "MEMORY.md").read_text()
    assert "Run pytest with -vv." in (native / "feedback_tests.md").read_text()


def test_uninstall_names_the_users_only_copy_and_how_to_keep_it(
    world: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    native = claude_memory(world, repo)
    ok(coffer("project", cwd=repo))
    # An agent rewrote an entry since: the original is only in the store's backup.
    rewritten = ENTRY.format(name="deploy", text="Deploy on Fridays.", kind="project")
    (native / "project_deploy.md").write_text(rewritten)
    dry = coffer("uninstall", "--delete-store", "--dry-run", cwd=repo)
    real = coffer("uninstall", "--delete-store", cwd=repo)
    assert (dry.returncode, real.returncode) == (1, 1)
    assert _tail(dry.stdout) == _tail(real.stdout)
    (kept,) = [x for x in real.stdout.splitlines() if x.startswith("only in the store")]
    assert "project_deploy.md" in kept and f"(from {native})" in kept  # not MEMORY.md
    # Doing what it says keeps the original beside the rewritten file, and then the
    # store can go.
    args = shlex.split(kept.split("to keep it: ", 1)[1])
    assert args[:2] == ["cp", "-p"] and Path(args[-1]).parent == native
    subprocess.run(args, check=True)
    assert (native / "project_deploy.md").read_text() == rewritten
    assert "Deploy with make release." in Path(args[-1]).read_text()
    again = coffer("uninstall", "--delete-store", cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "deleted " in again.stdout


def test_uninstall_force_deletes_the_store_once_the_user_kept_what_they_need(
    world: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    native = claude_memory(world, repo)
    ok(coffer("project", cwd=repo))
    (native / "project_deploy.md").unlink()
    refused = coffer("uninstall", "--delete-store", cwd=repo)
    assert refused.returncode == 1 and "`--force` deletes the store anyway" in refused.stdout
    dry = coffer("uninstall", "--delete-store", "--force", "--dry-run", cwd=repo)
    forced = coffer("uninstall", "--delete-store", "--force", cwd=repo)
    assert (dry.returncode, forced.returncode) == (0, 0), forced.stdout + forced.stderr
    assert _tail(dry.stdout) == _tail(forced.stdout)
    assert "deleted " in forced.stdout


def test_the_docs_uninstall_options_exist() -> None:
    root = Path(__file__).resolve().parents[2]
    section = (root / "docs" / "uninstall.md").read_text()
    readme = (root / "README.md").read_text()
    section += readme.split("**Uninstalling.**", 1)[1].split("\n\n", 1)[0]
    helped = coffer("uninstall", "--help").stdout
    for option in set(re.findall(r"`(--[a-z-]+)`", section)) | set(
        re.findall(r"coffer uninstall (--[a-z-]+)", section)
    ):
        assert option in helped, option


# ---- 23.2: the first run wires the hooks, or says once what does ----------------------


def test_project_says_once_what_wires_the_hooks(world: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    hint = "`coffer setup` wires the agents' hooks"
    first = ok(coffer("project", cwd=repo)).stdout
    assert hint in first
    ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert hint not in ok(coffer("project", cwd=repo)).stdout  # said once
    # Once a hook is wired there is nothing to say, even to a store that never said it.
    env = {"COFFER_HOME": str(tmp_path / "other-store")}
    second = init_repo(tmp_path / "second", {"README.md": b"# second\n"})
    assert ok(coffer("setup", "--yes", "--no-service", cwd=second, env=env))
    assert hint not in ok(coffer("project", cwd=second, env=env)).stdout
    assert hint not in ok(coffer("project", "--quiet", cwd=repo)).stdout


def test_the_readmes_set_up_wires_the_hooks_and_shadows_no_python() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    line = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert "coffer setup" in line and line.index("coffer setup") < line.index("coffer project")
    # Only `coffer` goes onto PATH: the venv's python3 and pip never shadow the user's.
    assert "PATH=" not in line and "activate" not in line
    assert "ln -sf ~/.coffer-venv/bin/coffer ~/.local/bin/coffer" in line
    words = " ".join(section.split())
    assert "pipx install /path/to/coffer" in words and "uv tool install" in words


# ---- 23.9 (setup): Ctrl-C, the plan said once, notes not repeated ---------------------


@pytest.mark.posix_only("POSIX signals (SIGINT to a child)")
def test_ctrl_c_at_setups_prompt_exits_130(world: Path) -> None:
    import os as _os
    import signal
    import sys
    import time

    master, slave = _os.openpty()  # a terminal, so setup asks
    proc = subprocess.Popen(
        [sys.executable, "-m", "coffer", "setup", "--no-service"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=dict(_os.environ),
        # As a terminal's shell starts it: a run started in the background by a
        # non-interactive shell (`nohup … &`) inherits SIGINT ignored, and so would setup.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    _os.close(slave)
    seen, until = b"", time.monotonic() + 60
    try:
        while b"Apply these changes?" not in seen and time.monotonic() < until:
            seen += _os.read(master, 4096)
        assert b"Apply these changes?" in seen, seen
        proc.send_signal(signal.SIGINT)  # what the terminal does on Ctrl-C
        # Keep reading, as a terminal does: a process writing to a terminal nobody reads
        # blocks once the buffer is full, which would be the test's hang, not setup's.
        import select

        while proc.poll() is None and time.monotonic() < until + 60:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    seen += _os.read(master, 4096)
                except OSError:  # the terminal closed with the process
                    break
        assert proc.wait(timeout=5) == 130, seen[-2000:]
    finally:
        proc.kill() if proc.poll() is None else None
        _os.close(master)
    assert not (world / ".claude" / "settings.json").exists()  # nothing changed


def test_setup_says_its_plan_once_and_its_notes_once(world: Path) -> None:
    first = coffer("setup", "--no-service", input="y\n")
    assert first.returncode == 0, first.stdout + first.stderr
    settings = str(world / ".claude" / "settings.json")
    mentions = [x for x in first.stdout.splitlines() if settings in x]
    assert len(mentions) == 1 and mentions[0].startswith(f"would create {settings}: ")
    # The plan's lines, said once, are the edits the summary counts.
    planned = [x for x in first.stdout.splitlines() if x.startswith("would ")]
    assert f"`coffer setup --undo` reverses the {len(planned)} edits above exactly" in first.stdout
    notes = [x for x in first.stdout.splitlines() if x.startswith("note:")]
    assert any("not found on this machine" in x for x in notes)
    again = ok(coffer("setup", "--no-service"))
    assert [x for x in again.stdout.splitlines() if x.startswith("note:")] == []
    assert "already wired: claude, codex; nothing to change" in again.stdout
    # The dry run still shows them all.
    dry = ok(coffer("setup", "--no-service", "--dry-run")).stdout
    assert any(x.startswith("note: not found on this machine") for x in dry.splitlines())
    # --yes shows no plan first: each edit is said once, done.
    ok(coffer("setup", "--undo", "--no-service"))
    yes = ok(coffer("setup", "--yes", "--no-service")).stdout
    assert [x for x in yes.splitlines() if settings in x] == [
        x for x in yes.splitlines() if x.startswith(f"created {settings}")
    ]
