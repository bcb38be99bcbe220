from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coffer.base.errors import BlockError
from coffer.projection.managed_block import (
    END_MARKER,
    START_MARKER,
    BlockSpan,
    find,
    is_current,
    remove,
    render_fragment,
    upsert,
)

BOM = b"\xef\xbb\xbf"
S = START_MARKER.encode()
E = END_MARKER.encode()
BODY = "# Memory\n\n- style — tabs, not spaces\n- db — postgres 16"


def digest_line(body: str) -> bytes:
    return f"<!-- coffer:digest:{hashlib.sha256(body.encode()).hexdigest()[:16]} -->".encode()


def block(body: str = BODY, nl: bytes = b"\n", final: bool = True) -> bytes:
    lines = [S, digest_line(body), *body.encode().split(b"\n"), E]
    return nl.join(lines) + (nl if final else b"")


# Files without a block, of every shape the round trip must survive.
SHAPES = {
    "empty": b"",
    "lf": b"# Project\n\nSome rules.\n",
    "no-final-newline": b"# Project\n\nSome rules.",
    "single-newline": b"\n",
    "crlf": b"# Project\r\n\r\nRules.\r\n",
    "crlf-no-final": b"# Project\r\nRules.",
    "bom-only": BOM,
    "bom-crlf": BOM + b"# Project\r\nRules.\r\n",
    "bom-no-final": BOM + b"x",
    "non-utf8": b"caf\xe9 \xff\xfe\n\x80 raw\n",
    "trailing-whitespace": b"rules  \t\n\n\n   ",
    "mixed-crlf-last": b"a\nb\r\nc\r\n",
    "mixed-lf-last": b"a\r\nb\r\nc\n",
    "lone-cr-end": b"old mac\r",
    "blank-lines-only": b"\n\n\n",
    "marker-text-inline": b"see `" + S + b"` and `" + E + b"` here\n",
}


# --- creating and appending --------------------------------------------------------------


def test_create_on_missing_file() -> None:
    assert upsert(None, BODY) == block()


def test_create_with_empty_body() -> None:
    out = upsert(None, "")
    assert out == S + b"\n" + digest_line("") + b"\n" + E + b"\n"
    span = find(out)
    assert span is not None
    assert span.body == ""
    assert not span.edited


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", block()),
        (b"rules\n", b"rules\n\n" + block()),
        (b"rules", b"rules\n\n" + block(final=False)),
        (b"a\r\nb\r\n", b"a\r\nb\r\n\r\n" + block(nl=b"\r\n")),
        (BOM + b"a\r\nb\r\n", BOM + b"a\r\nb\r\n\r\n" + block(nl=b"\r\n")),
        (BOM, BOM + block()),
        (b"caf\xe9\n", b"caf\xe9\n\n" + block()),
        (b"a\r\nb\nc\r\n", b"a\r\nb\nc\r\n\r\n" + block(nl=b"\r\n")),
        (b"a\nb\r\nc\n", b"a\nb\r\nc\n\n" + block()),
    ],
    ids=["empty", "lf", "no-final", "crlf", "bom-crlf", "bom-only", "non-utf8", "mixed1", "mixed2"],
)
def test_append(data: bytes, expected: bytes) -> None:
    assert upsert(data, BODY) == expected


def test_mixed_file_with_block_on_line_one_uses_majority() -> None:
    data = block() + b"a\r\nb\r\nc\n"
    assert upsert(data, "new") == block("new", nl=b"\r\n") + b"a\r\nb\r\nc\n"


def test_crlf_kept_when_nothing_outside() -> None:
    data = block(nl=b"\r\n")
    assert upsert(data, "other") == block("other", nl=b"\r\n")


# --- replacing ---------------------------------------------------------------------------


def test_replace_in_middle_keeps_both_sides_byte_for_byte() -> None:
    before = BOM + b"# Title \t\r\n\xff\xfe bytes\r\n\r\n"
    after = b"\r\n## After\r\ntrailing   \r\n\r\n  no final"
    old = block("old body\nline 2", nl=b"\r\n")
    out = upsert(before + old + after, BODY)
    assert out == before + block(nl=b"\r\n") + after
    span = find(out)
    assert span is not None
    assert out[: span.start] == before
    assert out[span.end :] == after


def test_replace_tolerates_padded_markers_and_writes_them_clean() -> None:
    data = b"top\n  " + S + b"  \n" + b"old\n\t" + E + b" \nbottom\n"
    span = find(data)
    assert span is not None
    assert (span.start_line, span.end_line, span.body, span.edited) == (2, 4, "old", True)
    assert upsert(data, BODY) == b"top\n" + block() + b"bottom\n"


def test_replace_keeps_absent_final_newline() -> None:
    data = b"top\n\n" + block("old", final=False)
    assert upsert(data, BODY) == b"top\n\n" + block(final=False)


def test_old_block_without_digest_is_edited_and_gets_replaced() -> None:
    data = b"x\n\n" + S + b"\n# Memory\n" + E + b"\n"
    span = find(data)
    assert span is not None
    assert span.edited
    assert span.body == "# Memory"
    out = upsert(data, "# Memory")
    assert out == b"x\n\n" + block("# Memory")
    span = find(out)
    assert span is not None
    assert not span.edited


@pytest.mark.parametrize("data", list(SHAPES.values()), ids=list(SHAPES))
def test_upsert_is_idempotent(data: bytes) -> None:
    once = upsert(data, BODY)
    assert upsert(once, BODY) == once
    assert is_current(once, BODY)


@pytest.mark.parametrize("data", list(SHAPES.values()), ids=list(SHAPES))
def test_upsert_then_new_body_then_remove(data: bytes) -> None:
    out = upsert(upsert(data, BODY), "changed\nbody")
    span = find(out)
    assert span is not None
    assert span.body == "changed\nbody"
    assert remove(out) == data


# --- removing ----------------------------------------------------------------------------


@pytest.mark.parametrize("data", list(SHAPES.values()), ids=list(SHAPES))
def test_remove_undoes_upsert_byte_for_byte(data: bytes) -> None:
    assert remove(upsert(data, BODY)) == data


def test_remove_on_created_file_leaves_nothing() -> None:
    assert remove(upsert(None, BODY)) == b""


def test_remove_without_block_returns_input() -> None:
    assert remove(b"plain\r\n") == b"plain\r\n"


def test_remove_user_placed_block_removes_only_its_lines() -> None:
    data = b"a\n" + block() + b"\nb\n"  # no blank line above: not upsert's separator
    assert remove(data) == b"a\n\nb\n"
    data = b"a\n" + block()  # at the end but without upsert's blank line
    assert remove(data) == b"a\n"


@pytest.mark.parametrize("data", list(SHAPES.values()), ids=list(SHAPES))
def test_remove_keeps_text_appended_below_the_block_as_typed(data: bytes) -> None:
    once = upsert(data, BODY)
    # A block appended to a file without a final line break has none either; whoever adds a
    # line below it types that break first.
    appended = b"## Added later\n\nmore\n" if once.endswith(b"\n") else b"\nmore"
    assert remove(once + appended) == data + appended


_pieces = st.sampled_from(
    [b"\n", b"\r\n", b"\r", BOM, b" ", b"\t", b"text", b"\xff", b"\xe9", b"<!--", b"```", b"-->"]
)
_files = st.one_of(st.binary(max_size=200), st.lists(_pieces, max_size=30).map(b"".join)).filter(
    lambda b: S not in b and E not in b
)


@given(data=_files, text=st.text(max_size=200))
def test_property_round_trip(data: bytes, text: str) -> None:
    body = render_fragment(text)
    once = upsert(data, body)
    span = find(once)
    assert span is not None
    assert span.body == body.rstrip("\n")
    assert not span.edited
    assert upsert(once, body) == once
    assert is_current(once, body)
    assert remove(once) == data


# --- malformed markers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a\nb\n" + S + b"\nbody\n", "start marker on line 3 has no end marker"),
        (b"a\n" + E + b"\n", "end marker on line 2 has no start marker"),
        (
            b"a\n" + E + b"\nb\n" + S + b"\n",
            "end marker on line 2 comes before the start marker on line 4",
        ),
        (
            S + b"\nx\n" + E + b"\n\n" + S + b"\ny\n" + E + b"\n",
            "found 2 managed blocks (lines 1-3, lines 5-7)",
        ),
        (
            b"h\n" + S + b"\n" + S + b"\n" + E + b"\n",
            "start marker on line 3 is nested inside the block whose start marker is on line 2",
        ),
        (S + b"\r\nx\r\n" + E + b"\r\n" + E + b"\r\n", "end marker on line 4 has no start marker"),
        (BOM + S + b"\n", "start marker on line 1 has no end marker"),
    ],
    ids=["start-only", "end-only", "end-before-start", "two-blocks", "nested", "extra-end", "bom"],
)
def test_malformed_markers_raise_with_line_numbers(data: bytes, message: str) -> None:
    original = bytes(data)
    for call in (find, remove, lambda d: upsert(d, BODY)):
        with pytest.raises(BlockError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
            call(data)
    assert not is_current(data, BODY)
    assert data == original


def test_marker_text_not_alone_on_its_line_is_ignored() -> None:
    data = SHAPES["marker-text-inline"]
    assert find(data) is None
    assert upsert(data, BODY) == data + b"\n" + block()


# --- fragments, edits, currency ----------------------------------------------------------


def test_hostile_entry_text_stays_inside_one_block() -> None:
    hostile = "\n".join(
        [
            "before",
            START_MARKER,
            "<!-- coffer:digest:0123456789abcdef -->",
            f"   {END_MARKER}  ",
            "<script>",
            "```python",
            "print('open fence')",
        ]
    )
    body = render_fragment(hostile)
    assert "<!--" not in body
    out = upsert(b"# Mine\n", body)
    span = find(out)
    assert span is not None
    assert span.body == body
    assert not span.edited
    assert out.count(S) == 1
    assert out.count(E) == 1
    assert remove(out) == b"# Mine\n"


def test_render_fragment_changes_exactly_what_it_documents() -> None:
    assert (
        render_fragment("plain *md* — ünïcode 😀\n- item\n") == "plain *md* — ünïcode 😀\n- item\n"
    )
    assert render_fragment("a\r\nb\rc") == "a\nb\nc"
    assert render_fragment("n\x00ul \ud800lone \udc80x") == "nul lone x"
    assert render_fragment("pair \ud83d\ude00") == "pair 😀"
    assert render_fragment("x <!-- y --> z") == "x &lt;!-- y --> z"
    assert (
        render_fragment("<div>\n  </p>\n<?php\n<!DOCTYPE")
        == "&lt;div>\n  &lt;/p>\n&lt;?php\n&lt;!DOCTYPE"
    )
    assert (
        render_fragment("<https://example.com>\na <b>bold</b>")
        == "<https://example.com>\na <b>bold</b>"
    )


def test_render_fragment_closes_unclosed_fences() -> None:
    assert render_fragment("```py\ncode") == "```py\ncode\n```"
    assert render_fragment("~~~~\ncode\n") == "~~~~\ncode\n~~~~\n"
    assert render_fragment("```\n<div>\n~~~\n") == "```\n<div>\n~~~\n```\n"  # html inside code kept
    assert render_fragment("```\nx\n```\n") == "```\nx\n```\n"  # closed: unchanged
    assert render_fragment("````\nx\n```\n````") == "````\nx\n```\n````"
    assert render_fragment("``` `inline` ```") == "``` `inline` ```"  # not a fence


def test_upsert_refuses_body_with_marker_line() -> None:
    with pytest.raises(ValueError, match="line 2"):
        upsert(b"", "ok\n  " + END_MARKER)


def test_edited_detection() -> None:
    out = upsert(b"# Mine\n", BODY)
    span = find(out)
    assert span is not None
    assert not span.edited
    tampered = out.replace(b"postgres 16", b"postgres 17")
    span = find(tampered)
    assert span is not None
    assert span.edited
    assert span.body == BODY.replace("16", "17")
    assert not is_current(tampered, BODY)


def test_edited_is_false_after_line_ending_conversion() -> None:
    out = upsert(b"# Mine\n", BODY).replace(b"\n", b"\r\n")
    span = find(out)
    assert span is not None
    assert span.newline == "\r\n"
    assert not span.edited
    assert is_current(out, BODY)


def test_is_current() -> None:
    out = upsert(b"x\n", BODY)
    assert is_current(out, BODY)
    assert is_current(out, BODY.replace("\n", "\r\n") + "\n\n")
    assert not is_current(out, BODY + "!")
    assert not is_current(b"x\n", BODY)
    padded = out.replace(E, b"  " + E)
    assert not is_current(padded, BODY)  # upsert would rewrite the marker line


def test_block_span_shape() -> None:
    out = b"a\nb\n\n" + block()
    span = find(out)
    assert span == BlockSpan(
        start=5,
        end=len(out),
        start_line=4,
        end_line=10,
        body=BODY,
        newline="\n",
        edited=False,
    )
