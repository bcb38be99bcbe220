"""Properties of Claude Code's project slug (coffer_adapters.claude_code.slug), as Claude
Code computes it: UTF-16 code units, every unit outside
[A-Za-z0-9] becomes one dash, nothing collapsed or trimmed, at most 200 units kept, and a
longer path gets ``-`` plus base-36 of the absolute Java ``String.hashCode`` of the *original*
path. The known vectors are in tests/adapters/test_claude_code.py.
"""

from __future__ import annotations

import re
import string

from hypothesis import assume, given
from hypothesis import strategies as st

from coffer_adapters.claude_code import slug
from tests.properties.budget import examples

LIMIT = 200
ALNUM = set(string.ascii_letters + string.digits)
# Path-like text: separators, punctuation, letters, non-ASCII, astral characters (two
# UTF-16 units each) and lone surrogates (how Python spells undecodable file-name bytes).
_CHARS = st.one_of(
    st.sampled_from(list("/\\:._- ()aZ9")),
    st.characters(codec="utf-8"),
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
    st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
)
PATHS = st.one_of(
    st.text(_CHARS, max_size=60),
    st.text(_CHARS, min_size=150, max_size=320),
    st.integers(0, 40).map(lambda n: "/home/dev/" + "a" * (LIMIT - 10 + n - 20)),
)


def units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def java_hash(text: str) -> int:
    """String.hashCode as the closed form sum(u_i * 31^(n-1-i)) mod 2^32, read as signed."""
    raw = text.encode("utf-16-le", "surrogatepass")
    codes = [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]
    n = len(codes)
    value = sum(u * pow(31, n - 1 - i, 2**32) for i, u in enumerate(codes)) % 2**32
    return value - 2**32 if value >= 2**31 else value


def base36(n: int) -> str:
    digits = ""
    while True:
        n, r = divmod(n, 36)
        digits = (string.digits + string.ascii_lowercase)[r] + digits
        if n == 0:
            return digits


@examples(200)
@given(path=PATHS)
def test_shape_charset_and_length(path: str) -> None:
    out = slug(path)
    assert out == slug(path)  # deterministic
    n = units(path)
    if n <= LIMIT:
        assert len(out) == n  # one character per UTF-16 unit, nothing collapsed or trimmed
        assert set(out) <= ALNUM | {"-"}
    else:
        head, dash, suffix = out[:LIMIT], out[LIMIT], out[LIMIT + 1 :]
        assert set(head) <= ALNUM | {"-"}
        assert dash == "-"
        assert re.fullmatch(r"[0-9a-z]{1,7}", suffix)
        assert suffix == base36(abs(java_hash(path)))


@examples(200)
@given(path=PATHS)
def test_each_unit_maps_to_itself_or_a_dash(path: str) -> None:
    out = slug(path)
    pos = 0
    for ch in path:
        width = units(ch)
        got = out[pos : pos + width]
        if pos >= LIMIT:
            break
        expected = ch if ch in ALNUM else "-" * width
        assert got == expected[: len(got)]
        pos += width


# Halves of a path within the limit: two of PATHS are mostly past it together, and a
# filter that drops most draws fails Hypothesis's health check.
HALVES = st.one_of(
    st.text(_CHARS, max_size=100),
    st.integers(0, 90).map(lambda n: "/home/dev/" + "a" * n),
)


@examples(200)
@given(a=HALVES, b=HALVES)
def test_short_paths_compose(a: str, b: str) -> None:
    assume(units(a) + units(b) <= LIMIT)
    assert slug(a + b) == slug(a) + slug(b)


@examples(200)
@given(path=PATHS)
def test_a_short_slug_is_its_own_slug(path: str) -> None:
    out = slug(path)
    if units(path) <= LIMIT:
        assert slug(out) == out  # only [A-Za-z0-9-] remain, and '-' maps to '-'


@examples(200)
@given(path=PATHS, index=st.integers(0, 400), other=st.sampled_from(list("_. ü/\\")))
def test_punctuation_is_interchangeable_but_the_hash_is_not(
    path: str, index: int, other: str
) -> None:
    """`my_project`, `my-project` and `my.project` share a directory; past 200 units the
    suffix comes from the original text, so the two long paths differ only in it."""
    assume(path)
    i = index % len(path)
    assume(path[i] not in ALNUM and units(path[i]) == 1)
    changed = path[:i] + other + path[i + 1 :]
    a, b = slug(path), slug(changed)
    assert a[:LIMIT] == b[:LIMIT]
    if units(path) <= LIMIT:
        assert a == b
    elif java_hash(path) != java_hash(changed):
        assert a != b


def test_known_hash_vectors_agree_with_the_closed_form() -> None:
    # The suffix is base 36 of |hashCode| of the unsanitised path.
    assert slug("/home/dev/" + "a" * 191).endswith(
        "-" + base36(abs(java_hash("/home/dev/" + "a" * 191)))
    )
    assert base36(abs(java_hash("/home/dev/" + "a" * 191))) == "barnga"
    assert base36(2**31) == "zik0zk"
