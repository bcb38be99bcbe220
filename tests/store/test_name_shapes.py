"""The shapes coffer accepts for ids, entry names, team file names and `--limit` values,
at their edges."""

from __future__ import annotations

import pytest

from coffer.cli.grammar import OPTIONS
from coffer.store import entry, team, ulid


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        (ulid.GLOBAL_ID, True),
        ("7" + "Z" * 25, True),
        ("8" + "0" * 25, False),  # 26 base32 digits hold 130 bits, a ULID 128
        ("0" * 25, False),
        ("0" * 27, False),
        ("0" * 25 + "I", False),  # Crockford's alphabet has no I, L, O or U
        ("0" * 25 + "a", False),
        ("", False),
    ],
)
def test_ids(text: str, ok: bool) -> None:
    assert ulid.is_id(text) is ok


def test_new_ids_are_ids() -> None:
    assert all(ulid.is_id(ulid.new_id()) for _ in range(200))


@pytest.mark.parametrize(
    ("name", "ok"),
    [("a", True), ("a-b-c", True), ("a9-0", True), ("-", False), ("a-", False),
     ("-a", False), ("a--b", False), ("é", False), ("A", False), ("a_b", False),
     ("a b", False), ("a\n", False)],
)  # fmt: skip
def test_entry_names(name: str, ok: bool) -> None:
    assert entry._is_slug(name) is ok


@pytest.mark.parametrize(
    ("name", "ok"),
    [("a.md", True), ("a.b-c_d.md", True), ("a" * 121 + ".md", True),
     ("a" * 122 + ".md", False), (".md", False), ("a.mdx", False), ("A.MD", False),
     ("_a.md", False), ("-a.md", False), (".a.md", False), ("a/b.md", False),
     ("é.md", False), ("a.md\n", False)],
)  # fmt: skip
def test_team_file_names(name: str, ok: bool) -> None:
    assert team._plain_name(name) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [("1", True), ("10", True), ("9" * 18, True), ("9" * 19, False), ("0", False),
     ("01", False), ("", False), ("١", False), ("²", False), ("1e3", False), ("-1", False),
     (" 1", False)],
)  # fmt: skip
def test_limits(value: str, ok: bool) -> None:
    assert OPTIONS["limit"].accepts(value) is ok
