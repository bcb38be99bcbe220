"""ECC checklist items 18–29: save, files and safety.

Section numbers (§n) are those of docs/vault-format.md.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from coffer.vault import api
from coffer.vault.errors import VaultError
from coffer.vault.secret_policy import find_secrets

from .conftest import project_root, team_root


@pytest.fixture(autouse=True)
def _umask_022():  # type: ignore[no-untyped-def]
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


# 18
@pytest.mark.posix_only("POSIX permission bits")
def test_c18_modes_and_gitignores(repo: Path, fake_home: Path) -> None:
    saved = api.save({"title": "t", "body": "b", "kind": "note"})
    path = Path(saved["path"])
    assert path == project_root(repo) / "notes" / f"{saved['memory']['id']}.md"
    assert _mode(path) == 0o600
    for directory in (repo / ".ecc", repo / ".ecc" / "memory", project_root(repo), path.parent):
        assert _mode(directory) == 0o700
    assert (project_root(repo) / ".gitignore").read_bytes() == b"*\n!.gitignore\n"
    assert _mode(project_root(repo) / ".gitignore") == 0o600
    api.save({"title": "t", "body": "b", "scope": "team"})
    api.save({"title": "t", "body": "b", "scope": "user"})
    assert not (team_root(repo) / ".gitignore").exists()
    assert not (fake_home / ".ecc" / "memory" / ".gitignore").exists()
    assert (fake_home / ".ecc" / "memory" / "notes").is_dir()


# 19
def test_c19_generated_id_shape_and_timestamps(repo: Path) -> None:
    saved = api.save({"title": "t", "body": "b"})["memory"]
    assert re.fullmatch(r"mem_[0-9]{8}_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{3}", saved["id"])
    assert saved["id"][4:12] == saved["createdAt"][:10].replace("-", "")
    assert saved["createdAt"] == saved["updatedAt"]


# 20
def test_c20_stdin_body_limit_is_raw_bytes(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    ok = vault_cli("save", "--title", "t", "--stdin", stdin=b"a" * 65_536)
    assert ok.code == 0, ok.err
    too_big = vault_cli("save", "--title", "t", "--stdin", stdin=b"a" * 65_536 + b" ")
    assert too_big.err == "Error: memory body is too large (maximum 65536 bytes).\n"
    padded = vault_cli("save", "--title", "t", "--stdin", stdin=b" " + b"a" * 65_535 + b" ")
    assert padded.err == "Error: memory body is too large (maximum 65536 bytes).\n"


# 21
@pytest.mark.needs_symlinks
@pytest.mark.posix_only("os.mkfifo: Windows has no FIFOs")
def test_c21_body_file_errors(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    big = repo / "big.txt"
    big.write_bytes(b"a" * 70_000)
    base = ("save", "--title", "t", "--body-file")
    assert vault_cli(*base, "big.txt").err == "Error: --body-file is too large (70000 bytes).\n"
    (repo / "real.txt").write_text("body")
    (repo / "link.txt").symlink_to(repo / "real.txt")
    assert vault_cli(*base, "link.txt").err == (
        f"Error: ELOOP: too many symbolic links encountered, open '{repo / 'link.txt'}'\n"
    )
    assert vault_cli(*base, "missing.txt").err == (
        f"Error: ENOENT: no such file or directory, open '{repo / 'missing.txt'}'\n"
    )
    (repo / "dir").mkdir()
    regular = "Error: --body-file must be a regular, non-symlink file.\n"
    assert vault_cli(*base, "dir").err == regular
    os.mkfifo(repo / "fifo")
    assert vault_cli(*base, "fifo").err == regular  # and it did not block


# 22
def test_c22_invalid_utf8_bodies(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    stdin = vault_cli("save", "--title", "t", "--stdin", stdin=b"\xff\xfe")
    assert stdin.err == "Error: memory body from standard input must contain valid UTF-8 text.\n"
    (repo / "bad.txt").write_bytes(b"ok \xc0\x80")
    file = vault_cli("save", "--title", "t", "--body-file", "bad.txt")
    assert file.err == "Error: --body-file must contain valid UTF-8 text.\n"


def _fixed(**extra: object) -> dict[str, object]:
    return {"title": "t", "body": "b", "id": "mem_20260726_fixed", **extra}


# 23
@pytest.mark.needs_symlinks
def test_c23_create_only_never_overwrites(repo: Path, tmp_path: Path) -> None:
    path = Path(api.save(_fixed())["path"])
    before = path.read_bytes()
    with pytest.raises(
        VaultError, match=r"^Memory mem_20260726_fixed already exists; writes are create-only\.$"
    ):
        api.save(_fixed(body="other"))
    assert path.read_bytes() == before
    notes = path.parent
    # A symlink to a file inside the scope root: "already exists", nothing changes.
    inside = notes / "target.txt"
    inside.write_text("inside")
    (notes / "mem_20260726_inlink.md").symlink_to(inside)
    with pytest.raises(VaultError, match="already exists; writes are create-only"):
        api.save(_fixed(id="mem_20260726_inlink"))
    assert inside.read_text() == "inside"
    assert (notes / "mem_20260726_inlink.md").is_symlink()
    # Dangling, or pointing outside: refused at the containment check.
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    (notes / "mem_20260726_outlink.md").symlink_to(outside)
    (notes / "mem_20260726_dangling.md").symlink_to(tmp_path / "nowhere.txt")
    root = project_root(repo)
    for name in ("mem_20260726_outlink", "mem_20260726_dangling"):
        with pytest.raises(VaultError) as info:
            api.save(_fixed(id=name))
        dest = notes / f"{name}.md"
        assert info.value.message == (
            f"Refusing to write memory outside the install root: '{dest}' is not within '{root}'."
        )
    assert outside.read_text() == "outside"
    assert not (tmp_path / "nowhere.txt").exists()
    assert not [p for p in notes.iterdir() if p.name.endswith(".tmp")]


# 24
def test_c24_crlf_gitignore_blocks_save_and_init(repo: Path) -> None:
    root = project_root(repo)
    root.mkdir(parents=True)
    (root / ".gitignore").write_bytes(b"*\r\n!.gitignore\r\n")
    message = "Project memory .gitignore does not contain the required fail-closed rules."
    with pytest.raises(VaultError, match=re.escape(message)):
        api.save({"title": "t", "body": "b"})
    with pytest.raises(VaultError, match=re.escape(message)):
        api.initialize()
    assert _tree(root) == [".gitignore"]


def test_gitignore_with_bom_passes(repo: Path) -> None:
    root = project_root(repo)
    root.mkdir(parents=True)
    bom_rules = b"\xef\xbb\xbf*\n!.gitignore\n"
    (root / ".gitignore").write_bytes(bom_rules)
    # A UTF-8 BOM does not hide the rules (unlike CRLF, c24): the save goes through and the
    # user's file is read, not rewritten.
    saved = api.save({"title": "t", "body": "b"})
    path = Path(saved["path"])
    assert path == root / "notes" / f"{saved['memory']['id']}.md"
    assert path.is_file()
    assert (root / ".gitignore").read_bytes() == bom_rules


# 25
@pytest.mark.needs_symlinks
def test_c25_symlinked_ecc_outside_repo(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".ecc").symlink_to(elsewhere)
    expected = (
        "Refusing to access memory through a symlink outside the install root: "
        f"'{repo}/.ecc/memory/project' is not within '{repo}'."
    )
    with pytest.raises(VaultError) as info:
        api.save({"title": "t", "body": "b"})
    assert info.value.message == expected
    with pytest.raises(VaultError) as info:
        api.search("x")
    assert info.value.message == expected
    assert list(elsewhere.iterdir()) == []


# 26
@pytest.mark.needs_symlinks
def test_c26_symlinked_kind_directory(repo: Path, tmp_path: Path) -> None:
    root = project_root(repo)
    api.initialize(["project"])
    (root / "notes").rmdir()
    outside = tmp_path / "outside-notes"
    outside.mkdir()
    (root / "notes").symlink_to(outside)
    with pytest.raises(VaultError) as info:
        api.save({"title": "t", "body": "b"})
    assert info.value.message == (
        "Refusing to access memory directory outside the install root: "
        f"'{root}/notes' is not within '{root}'."
    )
    report = api.doctor()
    assert report["skippedSymlinks"] == ["project:notes"]
    assert report["ok"] is False


# 27
@pytest.mark.parametrize(
    ("fields", "labels"),
    [
        ({"body": "x sk-abcdefghijklmnopqrstu"}, "provider API key"),
        (
            {"body": "AKIAABCDEFGHIJKLMNOP\n-----BEGIN RSA PRIVATE KEY-----"},
            "AWS access key, private key",
        ),
        ({"body": "b", "tags": ["ghp_abcdefghijklmnopqrst"]}, "GitHub token"),
    ],
)
def test_c27_secrets_are_refused_before_anything_is_created(
    repo: Path, fields: dict[str, object], labels: str
) -> None:
    with pytest.raises(VaultError) as info:
        api.save({"title": "t", **fields})
    assert info.value.message == (
        f"Refusing to save memory containing a suspected secret ({labels})."
    )
    assert not (repo / ".ecc").exists()


# 28 (Q-deviation Q1)
@pytest.mark.parametrize("body", ["x\nsk-abcdefghijklmnopqrstu", "x\tsk-abcdefghijklmnopqrstu"])
def test_c28_reference_mode_saves_escape_hidden_tokens(repo: Path, body: str) -> None:
    api.save({"title": "t", "body": body}, reference_secret_scan=True)
    # ...and they are not quarantined on read, exactly like the reference.
    assert api.doctor()["invalidFileCount"] == 0


@pytest.mark.parametrize("body", ["x\nsk-abcdefghijklmnopqrstu", "x\tsk-abcdefghijklmnopqrstu"])
def test_c28_default_mode_refuses_escape_hidden_tokens(repo: Path, body: str) -> None:
    with pytest.raises(VaultError, match=r"suspected secret \(provider API key\)\.$"):
        api.save({"title": "t", "body": body})


def test_c28_cli_switch_restores_reference_scan(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("save", "--title", "t", "--stdin")
    assert vault_cli(*args, stdin=b"x\nsk-abcdefghijklmnopqrstu").code == 1
    env = {"COFFER_VAULT_REFERENCE_SECRET_SCAN": "1"}
    assert vault_cli(*args, stdin=b"x\nsk-abcdefghijklmnopqrstu", env=env).code == 0


# 29
def test_c29_ascii_word_boundaries_and_folding() -> None:
    assert find_secrets("éghp_abcdefghijklmnopqrstuv") == ["GitHub token"]
    assert find_secrets("ſk-abcdefghijklmnopqrstu") == []
    assert find_secrets("xsk-abcdefghijklmnopqrstu") == []
    assert find_secrets("sk-abcdefghijklmnopé") == ["provider API key"]
    assert find_secrets(None) == []


def test_json_escape_can_also_reveal_a_token() -> None:
    # The scan sees "\npm_…": the escape's letter completes "npm_" (reference behaviour).
    from coffer.vault.jscompat import json_compact

    assert find_secrets(json_compact({"body": "x\npm_abcdefghijklmnopqrstu"})) == ["npm token"]
