"""The entry size limit on every way in (issue 22 §11, docs/adr/0043): a pull, the linked
agent folder, the team tier, `update` on the CLI and over MCP. An oversize entry is refused
by name with the limit, never rendered, and a pulled one stays in the remote."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from tests.helpers import coffer, make_repo
from tests.mcp.test_server import drive, error
from tests.sync_machines import World, git, make_world

MAX_ENTRY_FILE = 64 * 1024  # the documented limit (README, docs/adr/0043)
LIMIT = "an entry file holds at most 65536 (64 KiB)"


def big_entry(name: str, size: int) -> str:
    head = f"---\nname: {name}\ndescription: the {name} note\ntype: project\n---\n\n"
    line = "We deploy with make release, then watch the staging metrics.\n"
    return head + (line * (size // len(line) + 1))[: size - len(head)]


def test_the_limit_is_64_kib() -> None:
    from coffer.store import incoming, search_cache, team

    assert incoming.MAX_ENTRY_FILE == search_cache.MAX_ENTRY_BYTES == MAX_ENTRY_FILE
    assert team.MAX_FILE_BYTES == incoming.MAX_FILE == MAX_ENTRY_FILE


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


def test_pulled_oversize_entries_are_skipped_by_name_and_stay_in_the_remote(
    world: World, tmp_path: Path
) -> None:
    a, b = world.a, world.b
    # A machine on an older coffer (or a hostile one) pushes entries past the limit.
    other = tmp_path / "other"
    git("clone", "-q", str(world.remote), str(other))
    d = other / "projects" / "github.com" / "me" / "app"
    d.mkdir(parents=True)
    for i in range(3):
        (d / f"huge-{i}.md").write_text(big_entry(f"huge-{i}", 1024 * 1024))
    (d / "over.md").write_text(big_entry("over", MAX_ENTRY_FILE + 1))
    (d / "at-limit.md").write_text(big_entry("at-limit", MAX_ENTRY_FILE))
    git("add", "-A", cwd=other)
    git("commit", "-q", "-m", "big", cwd=other)
    git("push", "-q", "origin", "HEAD:main", cwd=other)
    said = b.ok("sync")
    assert "pulled 1 file" in said.out and "4 pulled files refused" in said.out
    for name, size in (("huge-0", 1024 * 1024), ("over", MAX_ENTRY_FILE + 1)):
        assert f"app/{name}.md: is {size} bytes; {LIMIT}" in said.err, said.err
    assert "skipped here, kept in the remote" in said.err
    assert sorted(p.name for p in b.memory_dir().iterdir()) == ["MEMORY.md", "at-limit.md"]
    assert "huge-0" not in (b.project / "AGENTS.md").read_text()
    # B's next push keeps them in the remote, untouched, for a machine that can take them.
    b.ok("remember", "Tabs, not spaces.", "--name", "tabs")
    assert "pushed 1 file" in b.ok("sync").out
    files = git("ls-tree", "-r", "-l", "main", cwd=world.remote)
    for name in ("huge-0.md", "huge-1.md", "huge-2.md", "over.md", "tabs.md"):
        assert f"/{name}" in files
    assert str(1024 * 1024) in files
    # A refuses them the same way: nothing of them enters its store either.
    said = a.ok("sync")
    assert "4 pulled files refused" in said.out
    assert not (a.memory_dir() / "huge-0.md").exists()


def test_an_oversize_file_in_the_linked_folder_is_named_and_never_rendered(
    world: World,
) -> None:
    a = world.a
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    # What an agent writes into its memory folder (the link into the store).
    (a.claude_memory() / "notes.md").write_text(big_entry("notes", 100 * 1024))
    listed = json.loads(a.ok("list", "--json").out)
    assert "notes" not in json.dumps(listed)
    a.ok("project")
    assert "staging metrics" not in (a.project / "AGENTS.md").read_text()
    doctor = coffer("doctor", cwd=a.project, env=a.env)
    assert doctor.returncode == 1
    assert f"notes.md: not a usable entry: is {100 * 1024} bytes; {LIMIT}" in doctor.stdout
    # Nor does it leave this machine; the round says one file stayed.
    said = a.ok("sync").out
    assert "pushed 1 file" in said and "1 file kept here, not entries" in said
    assert "notes.md" not in git("ls-tree", "-r", "--name-only", "main", cwd=world.remote)


def test_update_refuses_a_text_past_the_limit_and_keeps_the_entry(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "Deploy with make.", "--name", "deploy", cwd=repo).returncode == 0
    done = coffer("update", "deploy", "-", cwd=repo, input="x" * (100 * 1024))
    assert done.returncode == 1
    assert done.stderr.startswith("coffer: error: the text is 102400 bytes; entries hold at most")
    shown = coffer("show", "deploy", cwd=repo)
    assert "Deploy with make." in shown.stdout


def test_team_entries_past_the_limit_are_skipped_by_name(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert coffer("team", "init", cwd=repo).returncode == 0
    team = repo / ".coffer" / "memory"
    (team / "runbook.md").write_text(big_entry("runbook", 100 * 1024))
    doctor = coffer("doctor", cwd=repo)
    assert "runbook.md: is larger than 65536 bytes; an entry file holds at most 64 KiB" in (
        doctor.stdout
    )
    listed = json.loads(coffer("team", "list", "--json", cwd=repo).stdout)
    assert listed["entries"] == []
    assert [s["file"] for s in listed["skipped"]] == ["runbook.md"]


def test_mcp_update_memory_refuses_a_text_past_the_limit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "Deploy with make.", "--name", "deploy", cwd=repo).returncode == 0
    text = "€" * 20_000  # 20,000 characters (within the schema), 60,000 bytes

    async def body(session: ClientSession) -> None:
        err = error(await session.call_tool("update_memory", {"name": "deploy", "text": text}))
        assert "the text is 60000 bytes; entries hold at most 32768" in err["message"]

    drive(repo, body)
    assert "Deploy with make." in coffer("show", "deploy", cwd=repo).stdout


def _tier_with_big_entries(repo: Path, n: int) -> Path:
    assert coffer("remember", "Deploy with make.", "--name", "deploy", cwd=repo).returncode == 0
    tier = next(
        p / "memory"
        for p in (Path(os.environ["COFFER_HOME"]) / "projects").iterdir()
        if (p / "project.json").exists()
    )
    for i in range(n):
        (tier / f"big-{i}.md").write_text(big_entry(f"big-{i}", 20 * 1024))
    return tier


def test_a_command_gates_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # 30 entries of 20 KiB, each past the gate's own memo: once the cache has their
    # verdicts, `remember` scans the new entry's text, not the tier's (docs/adr/0043).
    from coffer import secrets
    from coffer.main import main

    repo = make_repo(tmp_path / "repo")
    _tier_with_big_entries(repo, 30)
    assert coffer("list", cwd=repo).returncode == 0  # the cache takes the verdicts
    scanned: list[int] = []
    real = secrets._find

    def counting(text: str, patterns: object) -> list[str]:
        scanned.append(len(text))
        return real(text, patterns)  # type: ignore[arg-type]

    monkeypatch.setattr(secrets, "_find", counting)
    monkeypatch.chdir(repo)
    with pytest.raises(SystemExit) as done:
        main(["remember", "Tabs, not spaces.", "--name", "tabs"])
    assert done.value.code in (0, None), capsys.readouterr()
    assert [n for n in scanned if n > 8192] == []


def test_verdicts_another_gate_took_are_not_trusted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    tier = _tier_with_big_entries(repo, 1)
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    (tier / "ci.md").write_text(f"---\nname: ci\ndescription: ci\n---\n\nCI token {token}\n")
    assert coffer("list", cwd=repo).returncode == 0  # every row and its verdict cached
    # As if an older coffer, whose gate missed this shape, had filled the cache.
    with sqlite3.connect(tier.parent / "cache.sqlite") as conn:
        assert conn.execute("UPDATE files SET secrets = '[]'").rowcount == 3
        conn.execute("UPDATE state SET value = 'older' WHERE key = 'gate'")
    (tmp_path / "home" / ".codex").mkdir(parents=True, exist_ok=True)
    said = coffer("project", cwd=repo)
    assert said.returncode == 0
    agents = (repo / "AGENTS.md").read_text()
    assert "Deploy with make." in agents and token not in agents and "(`ci`)" not in agents
    assert "not rendered" in said.stdout + said.stderr and "ci" in said.stdout + said.stderr


def test_a_scan_of_big_entries_cut_short_keeps_what_it_parsed(tmp_path: Path) -> None:
    # 60 entries at the limit are 3.75 MiB: a hook's deadline that ends the scan midway
    # still leaves the first batches parsed, so the next session start continues.
    from coffer.store import search_cache as catalog
    from coffer.store import tier_scan

    tier = tmp_path / "memory"
    tier.mkdir()
    for n in range(60):
        (tier / f"f-{n:02}.md").write_text(big_entry(f"f-{n:02}", MAX_ENTRY_FILE))
    conn = catalog.open_cache(tmp_path / "cache.sqlite")
    real = catalog._read_entry
    seen = {"n": 0}

    def cut(*args: object) -> object:
        seen["n"] += 1
        if seen["n"] > 50:
            raise KeyboardInterrupt  # the hook's watchdog ending the process, in effect
        return real(*args)  # type: ignore[arg-type]

    catalog._read_entry = cut  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            catalog.sync(conn, tier)
    finally:
        catalog._read_entry = real
    kept = conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    assert kept == 32  # one batch of 2 MiB committed
    assert len(tier_scan.scan(conn, tier).entries) == 60
