"""The string checks that replaced regexes compiled at import (docs/adr/0039) accept exactly
what those regexes accepted: each is held against its pattern over edge cases and a few
thousand random strings drawn from the characters that matter."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from coffer.cli.grammar import OPTIONS
from coffer.secrets import _assignment_near_keyword
from coffer.store import entry, team, ulid
from coffer_adapters.gemini import memory as gemini_memory

_RNG_SEED = 11


def _strings(alphabet: str, edge: list[str], n: int = 4000, longest: int = 30) -> list[str]:
    rng = random.Random(_RNG_SEED)
    out = list(edge)
    for _ in range(n):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))))
    return out


def _same(check: Callable[[str], bool], pattern: str, flags: int, cases: list[str]) -> None:
    regex = re.compile(pattern, flags)
    wrong = [c for c in cases if check(c) != bool(regex.fullmatch(c))]
    assert wrong == []


def test_ids_are_checked_as_the_ulid_pattern_did() -> None:
    alphabet = "0123456789ABHJKMNPTVZILOUabz-"
    edge = ["", ulid.GLOBAL_ID, "8" + "0" * 25, "7" + "Z" * 25, "0" * 25, "0" * 27, "0" * 25 + "I"]
    cases = _strings(alphabet, edge, longest=27) + [ulid.new_id() for _ in range(200)]
    cases += ["".join(random.Random(i).choice(alphabet) for _ in range(26)) for i in range(3000)]
    _same(ulid.is_id, r"[0-7][0-9A-HJKMNP-TV-Z]{25}", re.ASCII, cases)


def test_entry_names_are_checked_as_the_slug_pattern_did() -> None:
    edge = ["a", "-", "a-", "-a", "a--b", "a-b-c", "é", "A", "a_b", "a b", "a\n"]
    cases = _strings("ab09-A_é\n", edge, longest=12)
    _same(entry._is_slug, r"[a-z0-9]+(?:-[a-z0-9]+)*", re.ASCII, [c for c in cases if c])


def test_team_file_names_are_checked_as_their_pattern_did() -> None:
    edge = [".md", "a.md", "a.mdx", "A.MD", "_a.md", "a" * 121 + ".md", "a" * 122 + ".md"]
    edge += ["a.b-c_d.md", "a/b.md", "é.md", "a.md\n", ".a.md", "-a.md"]
    cases = _strings("aZ9._-/é", [], longest=8)
    cases = edge + [c + ".md" for c in cases] + cases
    _same(team._plain_name, r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.md", re.ASCII, cases)


def test_limits_are_checked_as_their_pattern_did() -> None:
    edge = ["", "0", "1", "01", "9" * 18, "9" * 19, "1" * 18, "١", "²", "1e3", "-1", " 1"]
    cases = _strings("0123456789١²e- ", edge, longest=20)
    _same(OPTIONS["limit"].accepts, r"[1-9][0-9]{0,17}", 0, cases)


def test_gemini_project_slugs_are_checked_as_their_pattern_did() -> None:
    edge = ["", "-", "a", "my-app", "My-App", "a_b", "é", "a b"]
    cases = _strings("az09-A_é ", edge, longest=10)

    def slug(v: str) -> bool:
        return v != "" and gemini_memory._SLUG_CHARS.issuperset(v)

    _same(slug, r"[a-z0-9-]+", re.ASCII, cases)


@pytest.mark.parametrize(
    ("text", "near"),
    [
        ("password = hunter2", True),
        ("token: abc", True),
        ("the key is under the mat", False),
        ("secret" + " " * 39 + "=", True),  # the window ends 40 characters past the keyword
        ("secret" + " " * 40 + "=", False),
        ("creds", False),
        ("KEY:", True),
    ],
)
def test_a_credential_keyword_is_near_an_assignment_as_before(text: str, near: bool) -> None:
    assert _assignment_near_keyword(text) is near
