"""ECC checklist items 1–17 (format and validation) plus property tests for parse/serialize.

Section numbers (§n) are those of docs/vault-format.md.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffer.vault import api
from coffer.vault.document import _body, _frontmatter_general, parse, serialize
from coffer.vault.errors import VaultError
from coffer.vault.io import decode_text
from coffer.vault.validate import normalize

from .conftest import golden, memory, project_root, sha256, write_memory

P = "/abs/x.md"


def _parse_general(text: str) -> dict[str, object]:
    """The general (non-fast) path, for equivalence checks."""
    values, after = _frontmatter_general(text, P)
    values["body"] = _body(after)
    return normalize(values)


def _error(text: str) -> str:
    with pytest.raises(VaultError) as info:
        parse(text, P)
    return info.value.message


# 1
def test_c01_library_save_writes_example_c_exactly(repo: Path) -> None:
    result = api.save(
        {"title": "Deterministic", "body": "Fixed body.", "kind": "fact", "tags": ["x"]},
        now=lambda: "2026-07-26T20:00:00.000Z",
        id_factory=lambda _: "mem_20260726_fixed",
    )
    path = project_root(repo) / "facts" / "mem_20260726_fixed.md"
    assert result["path"] == str(path)
    data = path.read_bytes()
    assert data == golden("example_c.md")
    assert len(data) == 312
    assert sha256(data) == "3ed99098b8cadf9b665b9a05848710f7564e3c938fa09528ab26f8e1e050ac80"


# 2
@pytest.mark.parametrize(
    ("name", "size", "digest"),
    [
        ("example_a.md", 389, "96e17772673dc74cc6abde702836251fd5800bfbf00e55bdfb9ede776f44e60c"),
        ("example_b.md", 378, "61cd3b192107fefbc8a4484d618e3b61bbab71ee84276412c004426961d5442d"),
    ],
)
def test_c02_parse_then_serialize_reproduces_examples(name: str, size: int, digest: str) -> None:
    data = golden(name)
    assert len(data) == size
    assert sha256(data) == digest
    assert serialize(parse(data.decode("utf-8"))).encode("utf-8") == data


# 3
def test_c03_crlf_example_parses_to_same_object_and_reserializes_lf() -> None:
    text = golden("example_a.md").decode()
    crlf = text.replace("\n", "\r\n")
    assert parse(crlf) == parse(text)
    assert serialize(parse(crlf)) == text


# 4
def test_c04_utf8_bom_bytes_parse_but_bom_string_does_not() -> None:
    data = b"\xef\xbb\xbf" + golden("example_a.md")
    assert parse(decode_text(data, "memory document")) == parse(golden("example_a.md").decode())
    with_bom = "\ufeff" + golden("example_a.md").decode()
    assert _error(with_bom) == f"Memory document {P} must start with --- frontmatter."


# 5
def test_c05_whitespace_around_keys_and_any_line_order() -> None:
    text = golden("example_a.md").decode()
    spaced = text.replace('kind: "context"', '  kind  :   "context"  ')
    assert parse(spaced) == parse(text)
    lines = text.split("\n")
    reordered = "\n".join([lines[0], *reversed(lines[1:14]), *lines[14:]])
    assert parse(reordered) == parse(text)


# 6
@pytest.mark.parametrize("line", ["kind: note", "kind: NaN", "kind: Infinity", "kind: -Infinity"])
def test_c06_non_json_values_are_rejected(line: str) -> None:
    text = golden("example_a.md").decode().replace('kind: "context"', line)
    assert _error(text) == f"Memory frontmatter field in {P} must use a JSON value."


# 7
def test_c07_unknown_duplicate_and_blank_lines() -> None:
    text = golden("example_a.md").decode()
    unknown = text.replace('source_harness: "codex"', 'sourceHarness: "x"')
    assert _error(unknown) == f"Unknown memory frontmatter field in {P}."
    duplicate = text.replace('tags: ["auth"]', 'tags: ["auth"]\ntags: ["auth"]')
    assert _error(duplicate) == f"Duplicate memory frontmatter field in {P}."
    blank = text.replace('tags: ["auth"]\n', 'tags: ["auth"]\n\n')
    assert _error(blank) == f"Invalid memory frontmatter line in {P}."


# 8
def test_c08_missing_fields_are_named_in_table_order() -> None:
    text = golden("example_a.md").decode()
    text = text.replace('tags: ["auth"]\n', "").replace('kind: "context"\n', "")
    assert _error(text) == f"Memory document {P} is missing fields: kind, tags."


# 9
def test_c09_closing_marker_must_be_exact() -> None:
    text = golden("example_a.md").decode()
    head, _, body = text.partition("\n---\n\n")
    for bad in ("---NOT-A-DELIMITER", "--- "):
        broken = f"{head}\n{bad}\n\n{body}"
        assert _error(broken) == f"Memory document {P} has no closing frontmatter marker."


# 10
def test_c10_body_with_dashes_round_trips_and_final_newline_is_optional() -> None:
    doc = memory(body="first\n---\nmore body")
    text = serialize(doc)
    assert parse(text) == normalize(doc)
    assert parse(text)["body"] == "first\n---\nmore body"
    assert parse(text.rstrip("\n")) == parse(text)


# 11
def test_c11_oversized_file_is_an_invalid_document_for_doctor(repo: Path) -> None:
    path = write_memory(project_root(repo), "notes/big.md", body="x" * 60_000)
    path.write_bytes(path.read_bytes() + b" " * 80_000)
    report = api.doctor()
    assert report["invalidFiles"] == [
        {
            "path": "project:notes/big.md",
            "code": "invalid-document",
            "message": "Memory document is invalid or unreadable.",
        }
    ]


def _normalize_error(**overrides: object) -> str:
    with pytest.raises(VaultError) as info:
        normalize(memory(**overrides))
    return info.value.message


# 12
def test_c12_title_trimming_and_unsafe_characters() -> None:
    assert normalize(memory(title="\u000bfoo"))["title"] == "foo"
    message = "memory title must not contain control or bidirectional formatting characters."
    assert _normalize_error(title="\u001cfoo") == message
    assert _normalize_error(title="a\u202eb") == message
    assert normalize(memory(title="a\u200fb"))["title"] == "a\u200fb"


# 13
def test_c13_body_unsafe_and_whitespace_only() -> None:
    assert _normalize_error(body="\u000bfoo") == (
        "memory body must not contain unsafe control or bidirectional formatting characters."
    )
    assert _normalize_error(body=" \n\t ") == "memory body must contain non-whitespace context."


# 14
def test_c14_title_length_counts_utf16_units() -> None:
    assert normalize(memory(title="\U0001f600" * 100))["title"] == "\U0001f600" * 100
    assert _normalize_error(title="\U0001f600" * 101) == (
        "memory title is too long (maximum 200 characters)."
    )


# 15
@pytest.mark.parametrize(
    "stamp", ["2026-02-29T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T00:00:00Z"]
)
def test_c15_invalid_timestamps(stamp: str) -> None:
    assert _normalize_error(createdAt=stamp) == "created_at must be an ISO-8601 timestamp."
    text = serialize(memory()).replace("2026-07-26T20:00:00.000Z", stamp, 1)
    assert _error(text) == "created_at must be an ISO-8601 timestamp."


@pytest.mark.parametrize("stamp", ["2024-02-29T00:00:00.000Z", "0000-02-29T00:00:00.000Z"])
def test_c15_valid_leap_timestamps(stamp: str) -> None:
    assert normalize(memory(createdAt=stamp, updatedAt=stamp))["createdAt"] == stamp
    text = serialize(memory()).replace("2026-07-26T20:00:00.000Z", stamp)
    assert parse(text)["updatedAt"] == stamp


# 16
def test_c16_targets_are_checked_before_schema() -> None:
    text = serialize(memory()).replace('"ecc.memory.v1"', '"x"')
    assert _error(text.replace('["all"]', "[]")) == (
        'target harnesses must contain at least one harness or "all".'
    )
    assert _error(text) == "Unsupported memory schema."


# 17
def test_c17_tag_and_link_validation(repo: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    base = ("save", "--title", "t", "--stdin")
    assert vault_cli(*base, "--tag", "Auth", stdin=b"b").err == (
        "Error: tag must be a lowercase letters/numbers slug.\n"
    )
    assert vault_cli(*base, "--tag", "a", "--tag", "a", stdin=b"b").err == (
        "Error: tags must not contain duplicate values.\n"
    )
    assert vault_cli(*base, "--link", "mem_x", stdin=b"b").err == (
        "Error: memory id must match mem_<lowercase-id> and cannot contain a path.\n"
    )


# --- properties -----------------------------------------------------------------------

_SLUG = st.from_regex(re.compile(r"[a-z0-9][a-z0-9._-]{0,10}", re.ASCII), fullmatch=True)
_ID = st.from_regex(re.compile(r"mem_[a-z0-9][a-z0-9_-]{2,20}", re.ASCII), fullmatch=True)
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=40,
)
_STAMP = st.builds(
    lambda y, mo, d, h, mi, s, ms: f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{ms:03d}Z",
    st.integers(0, 9999),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
    st.integers(0, 999),
)


def _valid_or_none(candidate: dict[str, object]) -> dict[str, object] | None:
    try:
        return normalize(candidate)
    except VaultError:
        return None


_MEMORIES = st.builds(
    lambda **fields: _valid_or_none(memory(**fields)),
    id=_ID,
    title=_TEXT,
    kind=st.sampled_from(["context", "decision", "fact", "handoff", "note", "runbook"]),
    scope=st.sampled_from(["project", "team", "user"]),
    status=st.sampled_from(["active", "rejected", "superseded"]),
    sourceHarness=_SLUG,
    targetHarnesses=st.lists(_SLUG, min_size=1, max_size=4, unique=True),
    tags=st.lists(_SLUG, max_size=4, unique=True),
    links=st.lists(_ID, max_size=4, unique=True),
    createdAt=_STAMP,
    updatedAt=_STAMP,
    body=st.text(min_size=1, max_size=200).map(lambda s: s.replace("\ud800", "")),
).filter(lambda value: value is not None)


@settings(max_examples=300, suppress_health_check=[HealthCheck.filter_too_much])
@given(_MEMORIES)
def test_property_parse_serialize_round_trip(doc: dict[str, object]) -> None:
    text = serialize(doc)
    assert parse(text) == doc
    # The canonical fast path and the general path agree.
    assert _parse_general(text) == doc
    assert parse(text.replace("\n", "\r\n")) == parse(text.replace("\n", "\r\n"))


# Every message parse (after R4 decoding) may raise, as patterns.
_ALLOWED = [
    re.escape(f"Memory document {P} ") + r"(must start with --- frontmatter|is too large"
    r"|has no closing frontmatter marker|is missing fields: .*)\.",
    re.escape(f"Invalid memory frontmatter line in {P}."),
    re.escape(f"Unknown memory frontmatter field in {P}."),
    re.escape(f"Duplicate memory frontmatter field in {P}."),
    re.escape(f"Memory frontmatter field in {P} must use a JSON value."),
    r"memory document must contain valid UTF-8 text\.",
    r"target harnesses (must be an array|has too many values \(maximum 32\)"
    r"|must not contain duplicate values)\.",
    r'target harnesses must contain at least one harness or "all"\.',
    r"Unsupported memory schema\.",
    r"(memory id|memory title|memory kind|memory scope|memory trust|memory status"
    r"|source harness|target harness|tag|created_at|updated_at) (must be a non-empty string"
    r"|is too long \(maximum \d+ characters\)"
    r"|must not contain control or bidirectional formatting characters)\.",
    r"memory id must match mem_<lowercase-id> and cannot contain a path\.",
    r"memory (kind|scope|trust|status) must be one of: [a-z, ]+\.",
    r"(source harness|target harness|tag) must be a lowercase letters/numbers slug\.",
    r"(tags|links) (must be an array|has too many values \(maximum \d+\)"
    r"|must not contain duplicate values)\.",
    r"(created_at|updated_at) must be an ISO-8601 timestamp\.",
    r"memory body (must be a string|must contain non-whitespace context"
    r"|is too large \(maximum 65536 bytes\)"
    r"|must not contain unsafe control or bidirectional formatting characters)\.",
]
_ALLOWED_RE = re.compile("|".join(f"(?:{pattern})" for pattern in _ALLOWED), re.DOTALL)

_LINES = st.sampled_from(
    [
        'schema: "ecc.memory.v1"',
        'id: "mem_abc"',
        'title: "t"',
        'kind: "note"',
        'scope: "project"',
        'trust: "unreviewed"',
        'status: "active"',
        'source_harness: "x"',
        'target_harnesses: ["all"]',
        "tags: []",
        "links: []",
        'created_at: "2026-01-01T00:00:00.000Z"',
        'updated_at: "2026-01-01T00:00:00.000Z"',
        "kind: 5",
        "tags: [1]",
        "links: null",
        "",
        ":",
        "x: 1",
    ]
)


def _check_bytes(data: bytes) -> None:
    message = ""
    try:
        parse(decode_text(data, "memory document"), P)
    except VaultError as exc:
        message = exc.message
    assert not message or _ALLOWED_RE.fullmatch(message), message


@settings(max_examples=400)
@given(st.binary(max_size=300))
def test_property_any_bytes_parse_or_fail_with_a_specified_message(data: bytes) -> None:
    _check_bytes(data)
    _check_bytes(b"---\n" + data)


@settings(max_examples=400)
@given(
    st.lists(_LINES, max_size=16),
    st.text(alphabet=string.printable + "\u202e\x0b", max_size=30),
)
def test_property_structured_documents_fail_only_with_specified_messages(
    lines: list[str], body: str
) -> None:
    text = "---\n" + "\n".join(lines) + "\n---\n\n" + body
    _check_bytes(text.encode("utf-8"))
