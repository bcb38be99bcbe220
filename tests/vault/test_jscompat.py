"""Porting rules R1–R8, collation (§7.6), roots (§6.1–§6.4) and terminal sanitization.

Rules and sections are those of docs/vault-format.md.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coffer.vault import api
from coffer.vault.cli import sanitize
from coffer.vault.collation import FAST_ALPHABET, rank_key, sort_strings, uca_key
from coffer.vault.errors import VaultError
from coffer.vault.jscompat import js_trim, json_compact, json_pretty, utf16_len
from coffer.vault.roots import Roots, guard_scope_root, resolve_roots

IDS = ["mem_a", "mem_a_b", "mem_a-b", "mem_a.b", "mem_a0", "mem_a10", "mem_a9z", "mem_ab", "mem_aB"]
NAMES = [
    "_x.md", "-x.md", ".gitignore", "~x.md", "10.md", "9.md", "a b.md", "a_b.md", "a-b.md",
    "a.md", "A.md", "ab.md", "b.md", "contexts", "decisions", "e.md", "é.md", "Z.md",
]  # fmt: skip


@pytest.mark.parametrize("expected", [IDS, NAMES])
def test_verified_reference_sort_orders(expected: list[str]) -> None:
    rng = random.Random(1)
    for _ in range(20):
        shuffled = expected[:]
        rng.shuffle(shuffled)
        assert sort_strings(shuffled) == expected


@given(st.lists(st.text(alphabet=FAST_ALPHABET, max_size=8), max_size=10))
def test_rank_key_agrees_with_full_uca(values: list[str]) -> None:
    assert sorted(values, key=rank_key) == sorted(values, key=uca_key)


def test_json_rules_r1() -> None:
    assert json_compact({"a": "\ud800 lone", "b": ["x"]}) == '{"a":"\\ud800 lone","b":["x"]}'
    assert json_compact("\x7f\u2028\x01") == '"\x7f\u2028\\u0001"'
    assert json_pretty({"a": [], "b": {}}) == '{\n  "a": [],\n  "b": {}\n}'


def test_trim_and_lengths_r2_r3() -> None:
    assert js_trim("\ufeff\u00a0 x \u3000") == "x"
    assert js_trim("\x1cx\x85") == "\x1cx\x85"
    assert utf16_len("a\U0001f600") == 3


def test_sanitize_rules() -> None:
    assert sanitize("a\x1bPdcs\x1b\\b") == "ab"
    assert sanitize("a\x1b[31mb\rc\x00d\u202ee\u200ff") == "abcdef"
    assert sanitize("a\x1b(Bb\x9dosc\x9cc") == "abc"
    assert sanitize("tab\tand\nnewline") == "tab\tand\nnewline"
    assert sanitize("unterminated\x1b]title") == "unterminated"


def test_root_resolution_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    (repo / ".git").write_text("gitdir: elsewhere")  # a worktree's .git file counts
    roots = resolve_roots(cwd=str(sub), env={"HOME": str(tmp_path / "h")})
    assert roots.project == str(repo / ".ecc" / "memory" / "project")
    assert roots.user == str(tmp_path / "h" / ".ecc" / "memory")
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    assert resolve_roots(env={"HOME": "/h"}).team == str(plain / ".ecc" / "memory" / "team")
    override = resolve_roots(env={"HOME": "/h", "ECC_MEMORY_PROJECT_ROOT": "  v  ",
                                  "ECC_MEMORY_USER_ROOT": "u"})  # fmt: skip
    assert override.project == str(plain / "v" / "project")
    assert override.user == str(plain / "u")
    for value, message in [
        ("   ", "memory root override must be a non-empty string."),
        ("x" * 4097, "memory root override is too long (maximum 4096 characters)."),
        ("a\x01", "memory root override must not contain control or bidirectional formatting "
                  "characters."),
    ]:  # fmt: skip
        with pytest.raises(VaultError) as info:
            resolve_roots(env={"HOME": "/h", "ECC_MEMORY_USER_ROOT": value})
        assert info.value.message == message


def test_library_only_guard_messages() -> None:
    with pytest.raises(VaultError, match=r"^Memory roots must include a trusted boundary policy"):
        guard_scope_root(Roots("/p", "/t", "/u", None), "project")
    with pytest.raises(VaultError, match=r'^No memory root is configured for scope "team"'):
        guard_scope_root(Roots("/p", "", "/u", {}), "team")
    with pytest.raises(VaultError, match=r"^No trusted boundary policy is configured for memory"):
        guard_scope_root(Roots("/p", "/t", "/u", {}), "user")


@pytest.mark.needs_symlinks
def test_symlinked_root_inside_boundary(repo: Path) -> None:
    memory = repo / ".ecc" / "memory"
    memory.mkdir(parents=True)
    (repo / "real").mkdir()
    (memory / "project").symlink_to(repo / "real")
    with pytest.raises(VaultError) as info:
        api.search("x")
    assert info.value.message == (
        f"Refusing to access memory through symlink root: {memory / 'project'}"
    )


def test_root_that_is_a_file_reports_opendir_without_path(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    memory = repo / ".ecc" / "memory"
    memory.mkdir(parents=True)
    (memory / "project").write_text("file")
    assert vault_cli("doctor").err == "Error: ENOTDIR: not a directory, opendir\n"


def test_unknown_command_after_root_resolution(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    bad = vault_cli("nope", env={"ECC_MEMORY_PROJECT_ROOT": "   "})
    assert bad.err == "Error: memory root override must be a non-empty string.\n"
    assert vault_cli("nope").err == "Error: Unknown memory command: nope\n"


def test_source_harness_from_environment(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    env = {"ECC_MEMORY_HARNESS": "  hermes  "}
    saved = vault_cli("save", "--title", "t", "--stdin", "--json", stdin=b"b", env=env)
    assert '"sourceHarness": "hermes"' in saved.out
    bad = vault_cli("save", "--title", "t", "--stdin", stdin=b"b", env={"ECC_MEMORY_HARNESS": "X"})
    assert bad.err == "Error: source harness must be a lowercase letters/numbers slug.\n"
    assert os.environ.get("ECC_MEMORY_HARNESS") is None
