"""The Markdown file format: parse and serialize (docs/vault-format.md §2.1–§2.5)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from coffer.vault.errors import VaultError
from coffer.vault.ids import is_leap
from coffer.vault.jscompat import (
    JS_WHITESPACE,
    JSONValueError,
    js_trim,
    json_compact,
    json_strict_loads,
    utf8_len,
    utf16_len,
)
from coffer.vault.validate import MAX_TITLE, SCHEMA, normalize, normalize_body

if TYPE_CHECKING:
    from typing import Any

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

# Fast path (§2.5 + §2.6 at once) for files in the canonical serialized form with plain
# values: the form tools write. One regex asserts the fixed line order and the per-field
# grammar (ids, enums, slugs, timestamp shape); no value can hold a quote, backslash, CR or
# LF, so the first closing marker is the `---` after `updated_at`. What the regex cannot
# express (title trim and length, list sizes and duplicates, month lengths) is checked
# below; anything unusual falls back to the general path, which owns every message.
_SLUG = r"[a-z0-9][a-z0-9._-]{0,63}"
_ID = r"mem_[a-z0-9][a-z0-9_-]{2,127}"
_TS = (
    r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
    r"T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z"
)
_CANONICAL = re.compile(
    "---\n"
    'schema: "ecc\\.memory\\.v1"\n'
    f'id: "(?P<id>{_ID})"\n'
    'title: "(?P<title>[^"\\\\\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+)"\n'
    'kind: "(?P<kind>context|decision|fact|handoff|lesson|note|preference|runbook)"\n'
    'scope: "(?P<scope>project|team|user)"\n'
    'trust: "unreviewed"\n'
    'status: "(?P<status>active|rejected|superseded)"\n'
    f'source_harness: "(?P<source>{_SLUG})"\n'
    f'target_harnesses: \\[(?P<targets>"{_SLUG}"(?:,"{_SLUG}")*)\\]\n'
    f'tags: \\[(?P<tags>(?:"{_SLUG}"(?:,"{_SLUG}")*)?)\\]\n'
    f'links: \\[(?P<links>(?:"{_ID}"(?:,"{_ID}")*)?)\\]\n'
    f'created_at: "(?P<created>{_TS})"\n'
    f'updated_at: "(?P<updated>{_TS})"\n'
    # The lookahead leaves the position where the general path's closing match ends.
    "---(?=\n|\\Z)",
    re.ASCII,
)


_SHORT_MONTHS = frozenset({"02", "04", "06", "09", "11"})


def _day_exists(stamp: str) -> bool:
    """§3.1's calendar check for a timestamp the fast regex matched (month 01-12, day 01-31).

    Same answer as ``is_timestamp`` there, without its regex and integer conversions.
    """
    day, month = stamp[8:10], stamp[5:7]
    if day <= "28" or month not in _SHORT_MONTHS:
        return True
    if month != "02":
        return day != "31"
    return day == "29" and is_leap(int(stamp[:4]))


def _items(raw: str, limit: int) -> list[str] | None:
    items = raw[1:-1].split('","') if raw else []
    if len(items) > limit or len(set(items)) != len(items):
        return None
    return items


def _fast(text: str) -> tuple[dict[str, Any] | None, str]:
    """Normalized object without the body (or None to take the general path), and the rest."""
    match = _CANONICAL.match(text)
    if match is None:
        return None, ""
    title = match["title"]
    if title.strip(JS_WHITESPACE) != title or utf16_len(title) > MAX_TITLE:
        return None, ""
    targets = _items(match["targets"], 32)
    tags = _items(match["tags"], 32)
    links = _items(match["links"], 64)
    created, updated = match["created"], match["updated"]
    if targets is None or tags is None or links is None:
        return None, ""
    # The regex bounds every field; only days 29-31 of short months need the calendar.
    if not (_day_exists(created) and _day_exists(updated)):
        return None, ""
    memory = {
        "schema": SCHEMA,
        "id": match["id"],
        "title": title,
        "kind": match["kind"],
        "scope": match["scope"],
        "trust": "unreviewed",
        "status": match["status"],
        "sourceHarness": match["source"],
        "targetHarnesses": targets,
        "tags": tags,
        "links": links,
        "createdAt": created,
        "updatedAt": updated,
    }
    return memory, text[match.end() :]


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
            raise VaultError(
                f"Memory frontmatter field in {source} must use a JSON value."
            ) from None
    missing = [object_key for _, object_key in FIELDS if object_key not in values]
    if missing:
        raise VaultError(f"Memory document {source} is missing fields: {', '.join(missing)}.")
    after = rest[close.end() :]
    return values, after


def _body(after: str) -> str:
    # §2.5 step 6: one leading and one trailing \r?\n are removed from the body.
    lead = _LEADING_NEWLINE.match(after)
    if lead is not None:
        after = after[lead.end() :]
    trail = _TRAILING_NEWLINE.search(after)
    if trail is not None:
        after = after[: trail.start()]
    return after


def parse(text: str, source: str = "<memory>", *, byte_length: int | None = None) -> dict[str, Any]:
    """Parse a decoded memory document (§2.5) into the normalized object (§2.6).

    ``source`` appears only in messages. ``byte_length``, when the caller already knows the
    UTF-8 size of ``text``, saves re-encoding it.
    """
    if _OPEN.match(text) is None:
        raise VaultError(f"Memory document {source} must start with --- frontmatter.")
    size = utf8_len(text) if byte_length is None else byte_length
    if size > MAX_DOCUMENT_BYTES:
        raise VaultError(f"Memory document {source} is too large.")
    memory, after = _fast(text)
    if memory is not None:
        # Every other field is valid, so the body's error, if any, is the first error.
        memory["body"] = normalize_body(_body(after))
        return memory
    values, after = _frontmatter_general(text, source)
    values["body"] = _body(after)
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
