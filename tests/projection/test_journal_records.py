"""Typed journal records (issue 11, point 1; docs/adr/0024).

A record file is read into the one record shape, as its kind, and written back as the same JSON: a
key an older coffer did not write stays absent, a key this coffer does not know is kept,
and a journal written before the records were typed is still undone byte for byte. The
projection kinds sit in one table, and coffer/projection has no import cycle.
"""

from __future__ import annotations

import ast
import copy
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from coffer.projection import kinds
from coffer.projection.journal import SHAPES, GitState, Journal, JournalRecord, parse, validate
from tests.helpers import coffer, store
from tests.projection.test_engine import CODEX_CONFIG, claude_dir
from tests.projection.test_git import init_repo

AGENTS_MD = b"# Team rules\r\n\r\nRun the tests before pushing.\r\n"

# Records as earlier coffers wrote them: some keys missing, one key coffer does not know.
OLD: list[dict[str, Any]] = [
    {
        "key": "/r/AGENTS.md",
        "path": "/r/AGENTS.md",
        "kind": "block",
        "adapters": ["codex"],
        "before_sha256": None,
        "written_by": "coffer 0.3",
    },
    {
        "key": "/h/memory",
        "path": "/h/memory",
        "kind": "symlink",
        "adapters": ["claude-code"],
        "link_target": "/s/projects/p",
        "before": "dir",
        "backup": "/s/backups/dirs/x",
    },
    {
        "key": "native:codex:/h/.codex/config.toml",
        "path": "/h/.codex/config.toml",
        "kind": "native",
        "adapters": ["codex"],
        "previous": {"features.memories": True, "list": [1, [2, 3]]},
        "tier": "global",
        "project_id": None,
    },
    {
        "key": "git:/r/.git/info/exclude",
        "path": "/r/.git/info/exclude",
        "kind": "git-lines",
        "users": {"/AGENTS.md": ["/r/AGENTS.md"]},
        "before_sha256": None,
    },
    {
        "key": "setup:codex:/h/.codex/hooks.json",
        "path": "/h/.codex/hooks.json",
        "kind": "setup",
        "adapters": ["codex"],
        "edits": [{"op": "add"}],
        "before_sha256": None,
    },
    {
        "key": "service:/h/.config/systemd/user/coffer-watch.service",
        "path": "/h/.config/systemd/user/coffer-watch.service",
        "kind": "service",
        "manager": "systemd",
        "service": "coffer-watch.service",
        "adapters": [],
        "created_file": True,
        "created_dirs": ["/h/.config/systemd/user"],
        "before_sha256": None,
        "created_at": "2026-11-20T10:00:00Z",
        "after_sha256": "cd" * 32,
        "updated_at": "2026-11-20T10:00:00Z",
        "seq": 1763632800000000000,
    },
    {
        "key": "future:/x",
        "path": "/x",
        "kind": "something-newer",
        "adapters": ["claude"],
        "whatever": {"it": ["holds"]},
    },
]


@pytest.mark.parametrize("raw", OLD)
def test_an_old_record_is_read_typed_and_written_back_as_it_was(raw: dict) -> None:
    assert validate(raw) is None
    record = parse(raw)
    assert type(record) is JournalRecord and record.kind == raw["kind"]
    assert record.to_json() == raw


def test_a_kind_keeps_only_its_own_fields() -> None:
    block, link, native, git, setup, service, newer = (parse(raw) for raw in OLD)
    assert block.adapters == ("codex",) and block.extra == {"written_by": "coffer 0.3"}
    assert (link.link_target, link.before, link.backup) == (
        "/s/projects/p",
        "dir",
        "/s/backups/dirs/x",
    )
    assert native.tier == "global" and native.previous["features.memories"] is True
    assert git.users == {"/AGENTS.md": ["/r/AGENTS.md"]}
    assert setup.edits == ({"op": "add"},) and setup.exact  # a default where the file is silent
    assert service.created_dirs == ("/h/.config/systemd/user",) and service.seq > 0
    # a newer coffer's kind: every field but the common ones is kept as it was read
    assert newer.extra == {"whatever": {"it": ["holds"]}} and newer.adapters == ("claude",)
    # a field another kind keeps is that kind's, not this one's
    other = parse({**OLD[0], "users": {"/x": ["/y"]}})
    assert other.users == {} and other.extra["users"] == {"/x": ["/y"]}
    assert other.to_json() == {**OLD[0], "users": {"/x": ["/y"]}}
    assert set(SHAPES) == {
        "block",
        "team",
        "git-lines",
        "git-config",
        "symlink",
        "native",
        "setup",
        "service",
    }
    assert all(set(s.optional) <= set(s.fields) for s in SHAPES.values())
    assert all(set(s.fields) <= set(JournalRecord._fields) for s in SHAPES.values())


def test_a_service_record_defaults_to_a_file_coffer_created() -> None:
    raw = {k: v for k, v in OLD[5].items() if k != "created_file"}
    record = parse(raw)
    assert record.created_file is True and record.to_json() == raw
    assert parse(OLD[0]).created_file is False


def test_a_change_adds_only_the_changed_key() -> None:
    record = parse(OLD[0])
    changed = record.but(after_sha256="ab" * 32)
    assert changed.to_json() == {**OLD[0], "after_sha256": "ab" * 32}
    assert record.to_json() == OLD[0]  # immutable: the original is untouched
    with pytest.raises(AttributeError):
        record.after_sha256 = "x"  # type: ignore[misc]


@pytest.mark.parametrize("raw", OLD)
def test_records_are_standard_named_tuples(raw: dict) -> None:
    # One NamedTuple shape (issue 24): the stdlib's copy, pickle, _replace and, from 3.13,
    # copy.replace work on every record.
    record = parse(raw)
    assert pickle.loads(pickle.dumps(record)) == record
    assert copy.copy(record) == record
    assert record._replace(path="elsewhere").to_json() == {**raw, "path": "elsewhere"}
    if sys.version_info >= (3, 13):
        moved = copy.replace(record, path="elsewhere")  # type: ignore[attr-defined]
        assert type(moved) is JournalRecord
        assert moved.to_json() == {**raw, "path": "elsewhere"}
    assert not hasattr(record, "__dict__")


def test_a_change_back_to_a_default_is_written() -> None:
    # `but` marks what it changes as present in the file: an old record without
    # "after_sha256" that is set to None again now says so, as the dict writer did.
    raw = {**OLD[5]}
    del raw["after_sha256"]
    record = parse(raw)
    assert "after_sha256" not in record.to_json()
    assert record.but(after_sha256=None).to_json() == {**raw, "after_sha256": None}
    assert "after_sha256" not in record._replace(after_sha256=None).to_json()


def test_new_records_write_the_keys_the_old_writers_wrote() -> None:
    fresh = JournalRecord(kind="symlink", key="/m", path="/m", link_target="/t", before="absent")
    assert set(fresh.to_json()) == {
        "key",
        "path",
        "kind",
        "tier",
        "project_id",
        "adapters",
        "link_target",
        "before",
        "backup",
        "created_dirs",
        "created_at",
        "updated_at",
    }  # no "modes", "rest" or "restoring" until there is one
    state = GitState(how="exclude", commit=False, common="/c", top="/t", pattern="/A")
    block = JournalRecord(kind="block", key="/A", path="/A").but(git=state)
    assert parse(block.to_json()) == block
    assert block.to_json()["git"] == {
        "how": "exclude",
        "commit": False,
        "common": "/c",
        "top": "/t",
        "pattern": "/A",
    }
    # a team block is a block keyed "team:<path>" (docs/adr/0036)
    team = JournalRecord(kind="team", key="team:/A", path="/A")
    assert set(team.to_json()) == set(JournalRecord(kind="block", key="/A", path="/A").to_json())


def test_an_old_git_state_keeps_what_it_lacked_and_what_it_did_not_know() -> None:
    raw = {**OLD[0], "git": {"how": "exclude", "top": "/r", "later": 1}}
    record = parse(raw)
    assert record.git is not None and record.git.how == "exclude" and record.git.commit is False
    assert record.to_json() == raw


def test_a_new_setup_record_writes_the_keys_the_dict_writer_wrote() -> None:
    fresh = JournalRecord(kind="setup", key="setup:claude:/h/.claude.json", path="/h/.claude.json")
    assert set(fresh.to_json()) == {
        "key",
        "path",
        "kind",
        "format",
        "tier",
        "project_id",
        "adapters",
        "edits",
        "created_file",
        "created_dirs",
        "before_sha256",
        "before_mtime_ns",
        "after_sha256",
        "exact",
        "eof",
        "created_at",
        "updated_at",
    }  # no "link" unless the config is a dotfile manager's link, no "seq" before a write
    assert set(fresh.but(seq=1).to_json()) - set(fresh.to_json()) == {"seq"}


def test_a_nested_value_goes_back_to_the_adapter_as_it_was_read() -> None:
    record = parse(OLD[2])
    assert record.previous == {"features.memories": True, "list": [1, [2, 3]]}


def test_the_journal_saves_a_loaded_record_to_the_same_bytes(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "store", tmp_path / "ledger")
    for raw in OLD:
        journal.put(raw)
    files = {f.name: f.read_bytes() for f in journal.dir.iterdir()}
    for record in journal.load_all():
        journal.save(record)
    assert {f.name: f.read_bytes() for f in journal.dir.iterdir()} == files


def test_every_projection_kind_is_in_the_one_table() -> None:
    assert set(kinds.KINDS) == {"block", "symlink", "native", "team"}  # team: ADR 0036
    assert set(kinds.BY_MODE.values()) <= set(kinds.KINDS.values())
    for kind in kinds.KINDS.values():
        assert callable(kind.establish) and callable(kind.undo) and callable(kind.state)


def _rewrite_as_old(f: Path) -> None:
    raw = json.loads(f.read_text())
    raw.pop("created_at", None)  # earlier coffers did not all write it
    raw["written_by"] = "coffer 0.3"
    f.write_text(json.dumps(raw, indent=2, sort_keys=True) + "\n")


def test_a_journal_from_before_typed_records_is_kept_and_undone_exactly(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    config = fake_home / ".codex" / "config.toml"
    config.write_bytes(CODEX_CONFIG)
    repo = init_repo(tmp_path / "repo", {"AGENTS.md": AGENTS_MD})
    memory = claude_dir(fake_home, repo)
    memory.mkdir(parents=True)
    (memory / "note.md").write_bytes(b"---\nname: note\ndescription: n\n---\nbody\n")
    assert coffer("project", cwd=repo).returncode == 0
    journal = store().root / "journal"
    kinds_seen = {json.loads(f.read_text())["kind"] for f in journal.glob("*.json")}
    assert {"block", "symlink", "native", "git-lines", "git-config"} <= kinds_seen
    for f in journal.glob("*.json"):
        _rewrite_as_old(f)
    # A write re-renders the block, so its record is saved again by this coffer.
    assert coffer("remember", "Use make test.", "--name", "tests", cwd=repo).returncode == 0
    block = next(
        json.loads(f.read_text())
        for f in journal.glob("*.json")
        if json.loads(f.read_text())["kind"] == "block"
    )
    assert block["written_by"] == "coffer 0.3" and "created_at" not in block
    done = coffer("unproject", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    undone = coffer("unproject", "--global", cwd=repo)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert (repo / "AGENTS.md").read_bytes() == AGENTS_MD
    assert config.read_bytes() == CODEX_CONFIG
    assert memory.is_dir() and not memory.is_symlink()
    assert not list(journal.glob("*.json"))


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):  # function level and TYPE_CHECKING too
        if isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_the_projection_package_has_no_import_cycle() -> None:
    package = Path(kinds.__file__).parent
    modules = {f"coffer.projection.{p.stem}": p for p in package.glob("*.py")}
    graph = {m: _imports(p) & set(modules) - {m} for m, p in modules.items()}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
