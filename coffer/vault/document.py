"""The Markdown file format: parse and serialize (spec §2.1–§2.5)."""

from __future__ import annotations

import re
from typing import Any

from coffer.vault.errors import VaultError
from coffer.vault.jscompat import JSONValueError, js_trim, json_compact, json_strict_loads, utf8_len
from coffer.vault.validate import normalize

MAX_DOCUMENT_BYTES = 131_072

# (file key, object key) in the fixed frontmatter order (§2.2).
FIELDS: tuple[tuple[str, str], ...] = (
    ("schema", "schema"),
    ("id", "id"),
    ("title", "title"),
    ("kind", "kind"),
    ("scope", "scope"),
    ("trust", "trust"),
    ("status", "status"),
    ("source_harness", "sourceHarness"),
    ("target_harnesses", "targetHarnesses"),
    ("tags", "tags"),
    ("links", "links"),
    ("created_at", "createdAt"),
    ("updated_at", "updatedAt"),
)
_FILE_TO_OBJECT = dict(FIELDS)

_OPEN = re.compile(r"---\r?\n")
# §2.5 step 3: `$` in the reference is end of input, hence \Z.
_CLOSE = re.compile(r"\r?\n---(?=\r?\n|\Z)")
_LINE_SPLIT = re.compile(r"\r?\n")
_LEADING_NEWLINE = re.compile(r"\r?\n")
_TRAILING_NEWLINE = re.compile(r"\r?\n\Z")

# Fast path for files in the canonical serialized form (the only form tools write). A JSON
# string here cannot hold a raw newline or quote, so the first closing marker is the one
# after `updated_at`, and the result equals the general path's (asserted by the tests).
_STR = r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"'
_ARR = rf"\[(?:{_STR}(?:,{_STR})*)?\]"
_CANONICAL = re.compile(
    r"---\n"
    + "".join(
        f"{file_key}: (?P<{file_key}>{_ARR if file_key in _ARRAY_KEYS else _STR})\\n"
        for file_key, _ARRAY_KEYS in (
            (key, ("target_harnesses", "tags", "links")) for key, _ in FIELDS
        )
    )
    + r"---(?:\n|\Z)"
)


def _fast_string(raw: str) -> str:
    return raw[1:-1] if "\\" not in raw else str(json_strict_loads(raw))


def _fast_array(raw: str) -> list[Any]:
    if raw == "[]":
        return []
    if "\\" not in raw:
        return raw[2:-2].split('","')
    value = json_strict_loads(raw)
    assert isinstance(value, list)
    return value


def _frontmatter_fast(text: str) -> tuple[dict[str, Any], str] | None:
    match = _CANONICAL.match(text)
    if match is None:
        return None
    groups = match.groupdict()
    values: dict[str, Any] = {}
    for file_key, object_key in FIELDS:
        raw = groups[file_key]
        values[object_key] = _fast_array(raw) if raw[0] == "[" else _fast_string(raw)
    return values, text[match.end() :]


def _frontmatter_general(text: str, source: str) -> tuple[dict[str, Any], str]:
    rest = text[_OPEN.match(text).end() :]  # type: ignore[union-attr]
    close = _CLOSE.search(rest)
    if close is None:
        raise VaultError(f"Memory document {source} has no closing frontmatter marker.")
    values: dict[str, Any] = {}
    # Split on \r?\n only: str.splitlines() also splits on U+2028, U+0085, U+001C...
    for line in _LINE_SPLIT.split(rest[: close.start()]):
        colon = line.find(":")
        if colon <= 0:
            raise VaultError(f"Invalid memory frontmatter line in {source}.")
        object_key = _FILE_TO_OBJECT.get(js_trim(line[:colon]))
        if object_key is None:
            raise VaultError(f"Unknown memory frontmatter field in {source}.")
        if object_key in values:
            raise VaultError(f"Duplicate memory frontmatter field in {source}.")
        try:
            values[object_key] = json_strict_loads(js_trim(line[colon + 1 :]))
        except JSONValueError:
            raise VaultError(f"Memory frontmatter field in {source} must use a JSON value.") from None
    missing = [object_key for _, object_key in FIELDS if object_key not in values]
    if missing:
        raise VaultError(f"Memory document {source} is missing fields: {', '.join(missing)}.")
    after = rest[close.end() :]
    return values, after


def parse(text: str, source: str = "<memory>", *, byte_length: int | None = None) -> dict[str, Any]:
    """Parse a decoded memory document (§2.5) into the normalized object (§2.6).

    ``source`` appears only in messages. ``byte_length``, when the caller already knows the
    UTF-8 size of ``text``, saves re-encoding it.
    """
    if not isinstance(text, str) or _OPEN.match(text) is None:
        raise VaultError(f"Memory document {source} must start with --- frontmatter.")
    size = utf8_len(text) if byte_length is None else byte_length
    if size > MAX_DOCUMENT_BYTES:
        raise VaultError(f"Memory document {source} is too large.")
    fast = _frontmatter_fast(text)
    values, after = fast if fast is not None else _frontmatter_general(text, source)
    # §2.5 step 6: one leading and one trailing \r?\n are removed from the body.
    lead = _LEADING_NEWLINE.match(after)
    if lead is not None:
        after = after[lead.end() :]
    trail = _TRAILING_NEWLINE.search(after)
    if trail is not None:
        after = after[: trail.start()]
    values["body"] = after
    return normalize(values)


def serialize(memory: object) -> str:
    """The exact file text of a memory (§2.3); raises normalization errors."""
    normalized = normalize(memory)
    lines = ["---"]
    lines.extend(
        f"{file_key}: {json_compact(normalized[object_key])}" for file_key, object_key in FIELDS
    )
    lines.append("---")
    text = "\n".join(lines) + "\n"
    body = normalized["body"]
    if body:
        text += "\n" + body + "\n"
    return text
