"""ECC checklist items 49–54: read and doctor.

Section numbers (§n) are those of docs/vault-format.md.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from coffer.vault import api
from coffer.vault.errors import VaultError

from .conftest import golden, project_root, team_root, write_memory

B_ID = "mem_20261130_598c55b0a5dc471aa365"


# 49
def test_c49_read_layout_and_backlinks(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    root = project_root(repo)
    write_memory(
        root, f"handoffs/{B_ID}.md", id=B_ID, title="Finish auth migration", kind="handoff",
        targetHarnesses=["claude", "hermes"], tags=["auth", "migration"],
        createdAt="2026-11-30T00:15:16.319Z", updatedAt="2026-11-30T00:15:16.319Z",
        body="Token rotation tests pass.",
    )  # fmt: skip
    assert vault_cli("read", B_ID).out.endswith("\n\nBacklinks: none\n")
    write_memory(
        root, "notes/link.md", id="mem_20261130_ff85af5f3a60498a8836",
        title="Token rotation follow-up", sourceHarness="unknown", tags=["auth"], links=[B_ID],
        createdAt="2026-11-30T00:15:17.845Z", updatedAt="2026-11-30T00:15:17.845Z",
    )  # fmt: skip
    write_memory(root, "notes/rejected.md", id="mem_rejected", status="rejected", links=[B_ID])
    human = vault_cli("read", B_ID)
    assert human.out == (
        "[unreviewed] Finish auth migration\n"
        f"ID: {B_ID}\n"
        "Source: codex\n"
        "Targets: claude, hermes\n"
        "\n"
        "Token rotation tests pass.\n"
        "\n"
        "Backlinks: mem_20261130_ff85af5f3a60498a8836\n"
    )
    as_json = vault_cli("read", B_ID, "--json").out
    assert json.loads(as_json) == json.loads(golden("read_handoff.json"))
    assert as_json == golden("read_handoff.json").decode()


def test_c49_backlinks_sorted_capped_and_self(repo: Path) -> None:
    root = project_root(repo)
    write_memory(root, "notes/self.md", id="mem_target", links=["mem_target"])
    for index in range(105):
        write_memory(root, f"notes/l{index}.md", id=f"mem_ln{index}", links=["mem_target"])
    result = api.read("mem_target")
    ids = [link["id"] for link in result["backlinks"]]
    assert len(ids) == 100 and result["backlinksTruncated"] is True
    assert ids[:4] == ["mem_ln0", "mem_ln1", "mem_ln10", "mem_ln100"]  # collation, not numeric
    assert "body" not in result["backlinks"][0]
    few = api.read("mem_target", target_harness="codex")
    assert few["backlinksTruncated"] is True


def test_c49_self_link_is_a_backlink(repo: Path) -> None:
    write_memory(project_root(repo), "notes/self.md", id="mem_self", links=["mem_self"])
    assert [b["id"] for b in api.read("mem_self")["backlinks"]] == ["mem_self"]


# 50
def test_c50_duplicates(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    write_memory(project_root(repo), "handoffs/a.md", id="mem_dupe", kind="handoff")
    write_memory(team_root(repo), "handoffs/dup.md", id="mem_dupe", kind="handoff", scope="team")
    assert vault_cli("read", "mem_dupe").err == "Error: Memory mem_dupe is duplicated in 2 files.\n"
    report = api.doctor()
    assert report["duplicateIds"] == [
        {"id": "mem_dupe", "paths": ["project:handoffs/a.md", "team:handoffs/dup.md"]}
    ]
    assert len(api.search("")["results"]) == 2


def _problem_vault(repo: Path) -> None:
    """The §9 problem vault."""
    project, team = project_root(repo), team_root(repo)
    c41 = "mem_20261130_c41aef187bea4b4693f5"
    write_memory(project, f"handoffs/{c41}.md", id=c41, kind="handoff")
    write_memory(team, "handoffs/dup.md", id=c41, kind="handoff", scope="team")
    write_memory(project, "handoffs/secret.md", id="mem_secret", kind="handoff",
                 body="token npm_abcdefghijklmnopqrstuvwxyz")  # fmt: skip
    (project / "notes").mkdir(exist_ok=True)
    (project / "notes" / "malformed.md").write_bytes(b"not memory")
    write_memory(project, "notes/wrongloc.md", id="mem_wrongloc", kind="handoff")
    write_memory(project, "handoffs/broken.md", id="mem_brokenlinks", kind="handoff",
                 links=["mem_missing_one", "mem_missing_two"])  # fmt: skip
    (project / "notes" / "link.md").symlink_to(project / "notes" / "malformed.md")
    for index in range(6):
        write_memory(project, f"notes/ok{index}.md", id=f"mem_ok{index}")
    (project / ".gitignore").write_text("*\n!.gitignore\n")


# 51
@pytest.mark.needs_symlinks
def test_c51_problem_vault_report(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    _problem_vault(repo)
    expected = json.loads(golden("doctor_problems.json"))
    result = vault_cli("doctor", "--json")
    assert result.code == 0
    actual = json.loads(result.out)
    expected["scannedBytes"] = actual["scannedBytes"]  # our fixture files differ in size
    assert actual == expected
    human = vault_cli("doctor")
    assert (human.code, human.out) == (
        0,
        "ECC memory doctor: ISSUES FOUND\nMemories: 9\nInvalid files: 3\nDuplicate IDs: 1\n"
        "Broken links: 2\nSkipped symlinks: 1\n",
    )


def test_doctor_pass_output(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    write_memory(project_root(repo), "notes/a.md", id="mem_aaa")
    assert vault_cli("doctor").out.startswith("ECC memory doctor: PASS\nMemories: 1\n")
    assert vault_cli("doctor", "x").err == "Error: doctor does not accept positional arguments.\n"


# 52
def test_c52_quarantine_never_leaks(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    token = "npm_abcdefghijklmnopqrstuvwxyz"
    write_memory(project_root(repo), "notes/s.md", id="mem_secret", title="leak", body=token)
    outputs = [
        vault_cli("search", "leak", "--json"),
        vault_cli("search", ""),
        vault_cli("read", "mem_secret"),
        vault_cli("read", "mem_secret", "--json"),
        vault_cli("doctor", "--json"),
    ]
    assert outputs[2].err == "Error: Memory mem_secret was not found.\n"
    assert json.loads(outputs[0].out)["results"] == []
    for result in outputs:
        assert token not in result.out + result.err


# 53
def test_c53_depth_and_ignored_names(repo: Path) -> None:
    root = project_root(repo)
    deep = "notes/d2/d3/d4/d5/d6/d7/d8"
    write_memory(root, f"{deep}/x.md", id="mem_deep")
    write_memory(root, "notes/.x.md", id="mem_dot")
    write_memory(root, "notes/X.MD", id="mem_upper")
    write_memory(root, "notes/.hidden/y.md", id="mem_hidden")
    report = api.doctor()
    assert (report["memoryCount"], report["truncated"], report["ok"]) == (1, False, True)
    (root / deep / "d9").mkdir()
    report = api.doctor()
    assert (report["memoryCount"], report["truncated"], report["ok"]) == (1, True, False)


def _snapshot(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        stat = path.lstat()
        digest.update(f"{stat.st_mode}:{stat.st_mtime_ns}".encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    return digest.hexdigest()


# 54
@pytest.mark.needs_symlinks
def test_c54_doctor_never_modifies_the_vault(repo: Path) -> None:
    _problem_vault(repo)
    before = _snapshot(repo)
    api.doctor()
    api.search("")
    with pytest.raises(VaultError):
        api.read("mem_20261130_c41aef187bea4b4693f5")
    assert _snapshot(repo) == before


def test_doctor_caps_entries(repo: Path) -> None:
    notes = project_root(repo) / "notes"
    notes.mkdir(parents=True)
    for index in range(5_001):
        (notes / f"f{index}.txt").write_bytes(b"")
    report = api.doctor()
    assert report["truncated"] is True and report["ok"] is False
