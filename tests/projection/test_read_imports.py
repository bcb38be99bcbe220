"""What the read-only commands leave unimported (issue 24, docs/adr/0049).

Each check runs the real command in a fresh interpreter and looks at ``sys.modules`` after
it (tests.helpers.imported_after), in a projected project, so the journal holds records:
- the journal's typed records (frozen dataclasses, about 10 ms to build) load only where a
  record is parsed: `status` and `adapter list` audit them as the JSON ``validate``
  accepted (docs/adr/0024), `explain` and `doctor` do not read their fields;
- ``coffer.store.drafts`` (writers) and ``coffer.store.health`` (`doctor`) load only with
  what uses them, though every command imports the ``coffer.store`` package;
- `status` shows a sync remote only when one is configured, so it skips git's module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import coffer, imported_after, make_repo

RECORDS = "coffer.projection.journal.records"
FIELDS = "coffer.projection.journal.fields"
AGENT_RECORDS = "coffer.projection.journal.agent_records"
HEALTH = "coffer.store.health"
DRAFTS = "coffer.store.drafts"


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".codex").mkdir()
    (fake_home / ".claude").mkdir()
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "Deploys use make release.", "--name", "d", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    store = Path(json.loads(coffer("where", "--json", cwd=repo).stdout)["store"])
    assert list((store / "journal").glob("*.json"))  # records the commands below could read
    return repo


@pytest.mark.parametrize("argv", [["explain"], ["doctor"]])
def test_explain_and_doctor_build_no_journal_record(repo: Path, argv: list[str]) -> None:
    code, found = imported_after(argv, repo, (RECORDS,))
    assert code in (0, 1) and found == [], argv


def test_doctor_checks_the_records_without_dataclasses(repo: Path) -> None:
    # It reads every record file and checks it can be undone (journal.undoable), on the
    # JSON: no record is typed, so neither the records nor ``dataclasses`` load.
    code, found = imported_after(["doctor"], repo, ("dataclasses", RECORDS, FIELDS))
    assert code in (0, 1) and found == []


def test_the_audit_builds_no_record(repo: Path) -> None:
    # It reads what setup wired and the blocks no target holds any more from the records'
    # JSON, so neither the records nor ``dataclasses`` load (docs/adr/0024, 0049), also
    # with setup's records in the journal and run outside the project the blocks serve.
    fenced = ("dataclasses", RECORDS, AGENT_RECORDS, FIELDS)
    wired = coffer("setup", "--yes", "--agent", "claude", "--no-service", cwd=repo)
    assert wired.returncode == 0, wired.stderr
    for where in (repo, repo.parent):
        for argv in (["status"], ["adapter", "list"]):
            code, found = imported_after(argv, where, fenced)
            assert code in (0, 1) and found == [], (argv, where)
    assert "setup: hook wired, mcp wired, skill wired" in coffer("adapter", "list", cwd=repo).stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["adapter", "list"],
        ["explain"],
        ["list"],
        ["show", "d"],
        ["recall", "deploy"],
        ["where"],
    ],
)
def test_reads_import_neither_drafts_nor_health(repo: Path, argv: list[str]) -> None:
    code, found = imported_after(argv, repo, (DRAFTS, HEALTH))
    assert code in (0, 1) and found == [], argv


def test_doctor_imports_health_and_no_drafts(repo: Path) -> None:
    code, found = imported_after(["doctor"], repo, (DRAFTS, HEALTH))
    assert code in (0, 1) and found == [HEALTH]


def test_status_without_sync_skips_git(repo: Path) -> None:
    code, found = imported_after(["status"], repo, ("coffer.sync.gitcmd",))
    assert code in (0, 1) and found == []


def test_the_lazy_names_are_the_modules_own() -> None:
    # The two faces that load names on first use (PEP 562) hand out the same objects.
    import coffer.projection.journal as journal
    import coffer.store as store
    from coffer.projection.journal import agent_records, records
    from coffer.store import drafts, health

    assert store.Finding is health.Finding
    assert (store.RememberOptions, store.Revision) == (drafts.RememberOptions, drafts.Revision)
    for module in (records, agent_records):
        # the face names the records, not their JSON type or the kinds' table
        lazy = set(module.__all__) - {"Json", "BY_KIND"}
        assert lazy <= set(journal.__all__)
        assert all(getattr(journal, name) is getattr(module, name) for name in lazy)
    for face in (store, journal):
        with pytest.raises(AttributeError):
            face.Nothing  # noqa: B018


def test_a_write_refreshes_its_block_without_the_agent_records(repo: Path) -> None:
    # The refresh after `remember` reads the block's record and git's lines, not the link
    # or setup records: those kinds' dataclasses are not built (docs/adr/0049).
    argv = ["remember", "Releases are tagged from main.", "--name", "tags"]
    code, found = imported_after(argv, repo, (RECORDS, AGENT_RECORDS))
    assert code == 0 and found == [RECORDS]
    assert "tags" in coffer("list", cwd=repo).stdout
