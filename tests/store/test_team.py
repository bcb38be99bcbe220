"""The team tier's files (coffer.store.team, team_write): bounded, hostile-safe reads and
writes that stay inside .coffer/memory/ (docs/adr/0036)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from coffer.base.errors import EntryExistsError, InvalidInputError, SecretRefusedError
from coffer.store import Entry, team, team_write

GOOD = "---\nname: deploy\ndescription: Deploys go through make ship\n---\n\nUse make ship.\n"


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_no_team_tier_until_init_and_init_creates_only_the_directory(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text("x\n")
    assert team.scan(root) is None
    directory, created = team_write.init(root)
    assert created and directory == root / ".coffer" / "memory"
    assert _tree(root) == {"README.md", ".coffer", ".coffer/memory", ".coffer/memory/MEMORY.md"}
    # git keeps no empty directory: the index is what makes the opt-in travel
    assert (directory / "MEMORY.md").read_text().startswith("# Team memory")
    scan = team.scan(root)
    assert scan is not None and scan.entries == () and scan.problems == ()
    assert team_write.init(root) == (directory, False)


def test_add_promotes_a_copy_without_session_keys_and_refuses_a_clash(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    team_write.init(root)
    meta = {"type": "project", "id": "01ABC", "origin_session_id": "s-123"}
    entry = Entry("deploy", "Deploys go through make ship", "Use make ship.", meta, "deploy.md")
    path = team_write.add(root, entry)
    assert path == root / ".coffer" / "memory" / "deploy.md"
    text = path.read_text()
    assert "Use make ship." in text and "s-123" not in text and "01ABC" in text
    assert oct(path.stat().st_mode & 0o777) != oct(0o600)  # committed: not a private file
    scan = team.scan(root)
    assert scan is not None and [e.name for e in scan.entries] == ["deploy"]
    assert "[deploy](deploy.md)" in (root / ".coffer" / "memory" / "MEMORY.md").read_text()
    with pytest.raises(EntryExistsError, match="already has an entry named 'deploy'"):
        team_write.add(root, entry)
    assert team_write.remove(root, "deploy") == path
    assert not path.exists()
    assert "deploy" not in (root / ".coffer" / "memory" / "MEMORY.md").read_text()


def test_add_passes_the_secret_gate(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    team_write.init(root)
    leaky = Entry("aws", "keys", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    with pytest.raises(SecretRefusedError):
        team_write.add(root, leaky)
    assert sorted(os.listdir(root / ".coffer" / "memory")) == ["MEMORY.md"]


def test_add_needs_init(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="coffer team init"):
        team_write.add(tmp_path, Entry("x", "y", "z"))


def _hostile(directory: Path, outside: Path) -> None:
    (directory / "good.md").write_text(GOOD)
    (directory / "huge.md").write_bytes(b"x" * (team.MAX_FILE_BYTES + 10))
    (directory / "binary.md").write_bytes(b"\x00\x01\x02PK\x03\x04")
    (directory / "latin1.md").write_bytes(b"caf\xe9\n")
    secret = outside / "secret.txt"
    secret.write_text("SECRET OUTSIDE THE REPO\n")
    (directory / "link.md").symlink_to(secret)
    (directory / "bad yaml.md").write_text(GOOD)  # a name that is no plain NAME.md
    (directory / "..md").write_text(GOOD)  # hidden: never read, like git's own files
    (directory / "-rf.md").write_text(GOOD)
    (directory / "nl\nname.md").write_text(GOOD)
    (directory / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    bomb = "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
    (directory / "bomb.md").write_text(bomb + "c: [*b, *b, *b, *b, *b, *b, *b, *b]\n---\nboom\n")
    os.mkfifo(directory / "fifo.md")
    (directory / "sub.md").mkdir()


@pytest.mark.needs_symlinks
@pytest.mark.posix_only("os.mkfifo: Windows has no FIFOs")
def test_hostile_files_are_skipped_with_a_reason_and_never_raise(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    outside.mkdir()
    team_write.init(root)
    _hostile(root / ".coffer" / "memory", outside)
    started = time.monotonic()
    scan = team.scan(root)
    assert time.monotonic() - started < 5  # no alias expansion, no FIFO wait
    assert scan is not None
    assert [e.name for e in scan.entries] == ["deploy"]
    why = {p.filename: p.why for p in scan.problems}
    assert "larger than" in why["huge.md"]
    assert "binary" in why["binary.md"]
    assert "UTF-8" in why["latin1.md"]
    assert "symlink" in why["link.md"]
    assert "YAML" in why["broken.md"]
    assert "alias" in why["bomb.md"]
    assert "regular file" in why["fifo.md"] and "regular file" in why["sub.md"]
    assert "plain NAME.md" in why["bad yaml.md"] and "plain NAME.md" in why["-rf.md"]
    assert "..md" not in why
    assert "nl\\nname.md" in why  # a line break in a name is shown escaped, one line
    assert all("SECRET OUTSIDE" not in e.body for e in scan.entries)


@pytest.mark.needs_symlinks
def test_a_linked_team_directory_is_refused_for_reads_and_writes(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    (elsewhere / "memory").mkdir(parents=True)
    (elsewhere / "memory" / "good.md").write_text(GOOD)
    root.mkdir()
    (root / ".coffer").symlink_to(elsewhere)
    scan = team.scan(root)
    assert scan is not None and scan.entries == ()
    assert "symlink" in scan.problems[0].why
    with pytest.raises(InvalidInputError, match="symlink"):
        team_write.init(root)
    with pytest.raises(InvalidInputError, match="symlink"):
        team_write.add(root, Entry("x", "y", "z"))


def test_the_tier_is_read_up_to_a_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    team_write.init(root)
    for n in range(5):
        (root / ".coffer" / "memory" / f"e{n}.md").write_text(f"entry number {n}\n")
    monkeypatch.setattr(team, "MAX_FILES", 3)
    scan = team.scan(root)
    assert scan is not None and len(scan.entries) == 3
    assert "2 more files" in scan.problems[-1].why


@pytest.mark.parametrize(
    ("printed", "author"),
    [
        (
            "Jürgen Müller <j@example.com> 1700000000 +0100".encode(),
            "team:Jürgen Müller <j@example.com>",
        ),
        (b"J\xfcrgen <j@example.com> 1700000000 +0100", "team:J\ufffdrgen <j@example.com>"),
    ],
)
def test_the_promoting_author_is_read_as_utf8(
    printed: bytes, author: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git prints the ident in UTF-8 (or a name configured in Latin-1 as its raw bytes):
    # read as UTF-8 whatever the ANSI code page, and a stray byte replaced, never a crash.
    import subprocess
    import sys

    real_run = subprocess.run

    def git_var(argv: list[str], **kw: object) -> object:
        assert argv[-2:] == ["var", "GIT_AUTHOR_IDENT"]
        code = f"import sys; sys.stdout.buffer.write({printed!r})"
        return real_run([sys.executable, "-c", code], **kw)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "run", git_var)
    assert team_write._author(tmp_path) == author
