"""Claude's slug checked against Claude itself: the directory coffer linked against the one
Claude writes this project's session transcripts to (issue 27 point 15)."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest

from coffer.adapter import Context
from coffer.adapter.registry import features
from coffer.base import platform
from coffer_adapters import claude_code
from coffer_adapters.claude_code import slug, transcripts
from tests.helpers import coffer, make_repo


def transcript(projects: Path, name: str, cwd: str, session: str = "s1", first: str = "") -> Path:
    """A transcript as Claude writes one: a line without ``cwd`` may come first."""
    d = projects / name
    d.mkdir(parents=True, exist_ok=True)
    lines = [first] if first else []
    lines.append(json.dumps({"type": "user", "cwd": cwd, "sessionId": session}))
    path = d / f"{session}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def claude(fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    return fake_home / ".claude"


def ctx_for(home: Path, root: Path) -> Context:
    return Context(home=home, environ={}, store=home / "store", project=root)


def linked(home: Path, root: Path) -> Path:
    return home / ".claude" / "projects" / slug(str(root)) / "memory"


# ---- reading transcripts ------------------------------------------------------------------


def test_the_cwd_is_read_from_the_first_lines_only(tmp_path):
    summary = json.dumps({"type": "summary", "summary": "x"})
    path = transcript(tmp_path, "d", "/home/me/repo", first=summary)
    assert transcripts.session_cwd(path) == "/home/me/repo"
    late = tmp_path / "late.jsonl"
    filler = [summary] * transcripts.HEAD_LINES
    late.write_text("\n".join([*filler, json.dumps({"cwd": "/x"})]) + "\n", encoding="utf-8")
    assert transcripts.session_cwd(late) is None  # bounded: never reads the whole file
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"\xff{not json\n[1, 2]\n")
    assert transcripts.session_cwd(broken) is None
    assert transcripts.session_cwd(tmp_path / "gone.jsonl") is None


def test_only_the_newest_transcripts_of_each_directory_are_read(tmp_path):
    for n in range(transcripts.PER_DIR + 2):
        path = transcript(tmp_path, "d", "/r", session=f"s{n}")
        os.utime(path, (1000 + n, 1000 + n))
    read = transcripts.transcripts(tmp_path)
    assert [p.name for p in read] == [f"s{n}.jsonl" for n in (4, 3, 2)]
    assert transcripts.transcripts(tmp_path / "missing") == []


# ---- the check ------------------------------------------------------------------------------


def test_no_transcripts_no_warning(claude, fake_home, tmp_path):
    root = tmp_path / "repo"
    assert claude_code.link_check(ctx_for(fake_home, root)) is None


def test_transcripts_where_coffer_linked_no_warning(claude, fake_home, tmp_path):
    root = tmp_path / "repo"
    transcript(claude / "projects", slug(str(root)), str(root))
    transcript(claude / "projects", "-other", "/somewhere/else")  # another project's
    assert claude_code.link_check(ctx_for(fake_home, root)) is None


def test_a_session_in_a_subdirectory_says_nothing(claude, fake_home, tmp_path):
    # Transcripts are keyed by the cwd, memory by the root: repo/sub is no evidence.
    root = tmp_path / "repo"
    transcript(claude / "projects", slug(str(root / "sub")), str(root / "sub"))
    assert claude_code.link_check(ctx_for(fake_home, root)) is None


def test_an_nfd_name_puts_claude_elsewhere(claude, fake_home, tmp_path):
    root = tmp_path / "jürgen"
    nfd = unicodedata.normalize("NFD", str(root))
    transcript(claude / "projects", slug(nfd), nfd)
    found = claude_code.link_check(ctx_for(fake_home, root))
    assert found is not None
    assert found.linked == linked(fake_home, root)
    assert found.elsewhere == claude / "projects" / slug(nfd) / "memory"
    assert "decomposed (NFD)" in found.warning and str(root) in found.warning


def test_drive_letter_case_where_the_volume_folds_is_one_directory(
    claude, fake_home, tmp_path, monkeypatch
):
    root = tmp_path / "Repo"
    other = str(root).swapcase()
    transcript(claude / "projects", slug(str(root)).swapcase(), other)
    monkeypatch.setattr(platform, "folds_case", lambda _path: True)
    assert claude_code.link_check(ctx_for(fake_home, root)) is None
    monkeypatch.setattr(platform, "folds_case", lambda _path: False)
    # A case-sensitive volume: the cwd is another folder, so it is no evidence at all.
    assert claude_code.link_check(ctx_for(fake_home, root)) is None


def test_drive_letter_case_with_a_long_path_gives_another_hash(
    claude, fake_home, tmp_path, monkeypatch
):
    monkeypatch.setattr(platform, "folds_case", lambda _path: True)
    root = tmp_path / ("a" * 220)
    cwd = str(root).swapcase()  # C:\... against c:\...: another hash over 200 characters
    transcript(claude / "projects", slug(cwd), cwd)
    found = claude_code.link_check(ctx_for(fake_home, root))
    assert found is not None and "another case" in found.warning


def test_a_long_path_whose_hash_a_native_build_computes_otherwise(claude, fake_home, tmp_path):
    root = tmp_path / ("b" * 220)
    name = slug(str(root))
    assert len(name) > 200
    native = name[:200] + "-1x2y3z"  # Bun's hash, not Java's hashCode
    transcript(claude / "projects", native, str(root))
    found = claude_code.link_check(ctx_for(fake_home, root))
    assert found is not None and found.elsewhere.parent.name == native
    assert "over 200 characters" in found.warning


@pytest.mark.needs_symlinks
def test_another_path_to_the_folder_a_subst_drive_say(claude, fake_home, tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    drive = tmp_path / "S"
    drive.symlink_to(root)  # as a subst drive is: another path, the same folder
    transcript(claude / "projects", slug(str(drive)), str(drive))
    found = claude_code.link_check(ctx_for(fake_home, root))
    assert found is not None and "another path" in found.warning


def test_a_moved_memory_directory_is_not_checked(claude, fake_home, tmp_path):
    root = tmp_path / "jürgen"
    nfd = unicodedata.normalize("NFD", str(root))
    transcript(claude / "projects", slug(nfd), nfd)
    env = {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": str(tmp_path / "shared")}
    ctx = Context(home=fake_home, environ=env, store=fake_home / "s", project=root)
    assert claude_code.link_check(ctx) is None
    assert claude_code.link_check(ctx._replace(project=None)) is None


def test_the_member_is_part_of_the_contract():
    assert features(claude_code).link_check is claude_code.link_check

    class Broken:
        NAME = "broken"
        detect = targets = native_memory = inputs = staticmethod(lambda ctx: None)
        link_check = "not a function"

    from coffer.adapter.registry import ContractError

    with pytest.raises(ContractError, match="link_check"):
        features(Broken)


# ---- through the CLI ------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, claude: Path) -> Path:
    root = make_repo(tmp_path / "jürgen")
    done = coffer("project", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def _claude_row(root: Path) -> tuple[int, dict[str, object]]:
    out = coffer("adapter", "list", "--json", cwd=root)
    data = json.loads(out.stdout)
    return out.returncode, next(a for a in data["adapters"] if a["name"] == "claude")


def _doctor(root: Path) -> tuple[int, list[dict[str, str]]]:
    out = coffer("doctor", "--json", cwd=root)
    return out.returncode, json.loads(out.stdout)["findings"]


def test_cli_no_transcripts_no_warning(repo):
    code, row = _claude_row(repo)
    assert row["elsewhere"] is None and code == 0, row
    code, findings = _doctor(repo)
    assert [f for f in findings if f["tier"] == "claude"] == []


def test_cli_matching_transcripts_no_warning(repo, claude):
    transcript(claude / "projects", slug(str(repo)), str(repo))
    code, row = _claude_row(repo)
    assert row["elsewhere"] is None and code == 0, row
    code, findings = _doctor(repo)
    assert [f for f in findings if f["tier"] == "claude"] == [] and code == 0, findings


def test_cli_claude_elsewhere_is_shown_and_doctor_fails(repo, claude):
    nfd = unicodedata.normalize("NFD", str(repo))
    transcript(claude / "projects", slug(nfd), nfd)
    code, row = _claude_row(repo)
    elsewhere = row["elsewhere"]
    assert isinstance(elsewhere, dict) and code == 1, row
    assert elsewhere["path"] == str(claude / "projects" / slug(nfd) / "memory")
    assert elsewhere["linked"] == str(claude / "projects" / slug(str(repo)) / "memory")
    assert row["ok"] is False
    text = coffer("adapter", "list", cwd=repo)
    assert "warning: Claude writes this project's sessions to" in text.stdout, text.stdout
    code, findings = _doctor(repo)
    claude_findings = [f for f in findings if f["tier"] == "claude"]
    assert code == 1 and len(claude_findings) == 1, findings
    assert claude_findings[0]["level"] == "warning"
    assert "decomposed (NFD)" in claude_findings[0]["message"]
