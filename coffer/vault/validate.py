"""The single validator (docs/vault-format.md §2.6) used by save, serialization and parsing.

Checks run in the reference's order and the first failure wins, so the message a caller sees
for a document with several problems is the reference's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from coffer.vault.errors import VaultError
from coffer.vault.ids import MEMORY_ID, SLUG, is_timestamp
from coffer.vault.jscompat import has_unsafe, has_unsafe_body, js_trim, utf8_len, utf16_len

if TYPE_CHECKING:
    from typing import Any

SCHEMA = "ecc.memory.v1"
KINDS = ("context", "decision", "fact", "handoff", "lesson", "note", "preference", "runbook")
SCOPES = ("project", "team", "user")
TRUSTS = ("unreviewed",)
STATUSES = ("active", "rejected", "superseded")
MAX_BODY_BYTES = 65_536
MAX_TITLE = 200

# Normalized object key order (§2.2).
MEMORY_KEYS = (
    "schema",
    "id",
    "title",
    "kind",
    "scope",
    "trust",
    "status",
    "sourceHarness",
    "targetHarnesses",
    "tags",
    "links",
    "createdAt",
    "updatedAt",
    "body",
)
SUMMARY_KEYS = MEMORY_KEYS[:-1]


def non_empty_string(value: object, label: str, maximum: int) -> str:
    """The common "non-empty string" check (§2.6); returns the trimmed value."""
    # Fast path, same outcome: printable ASCII holds no unsafe character (those are C0 and
    # DEL there), counts one unit per character, and space is its only JS whitespace.
    if (
        type(value) is str
        and value.isascii()
        and value.isprintable()
        and value
        and value[0] != " "
        and value[-1] != " "
    ):
        if len(value) > maximum:
            raise VaultError(f"{label} is too long (maximum {maximum} characters).")
        return value
    if not isinstance(value, str):
        raise VaultError(f"{label} must be a non-empty string.")
    trimmed = js_trim(value)
    if not trimmed:
        raise VaultError(f"{label} must be a non-empty string.")
    if utf16_len(trimmed) > maximum:
        raise VaultError(f"{label} is too long (maximum {maximum} characters).")
    if has_unsafe(trimmed):
        raise VaultError(
            f"{label} must not contain control or bidirectional formatting characters."
        )
    return trimmed


def enum_value(value: object, label: str, allowed: tuple[str, ...]) -> str:
    trimmed = non_empty_string(value, label, 64)
    if trimmed not in allowed:
        raise VaultError(f"{label} must be one of: {', '.join(allowed)}.")
    return trimmed


def slug(value: object, label: str) -> str:
    trimmed = non_empty_string(value, label, 64)
    if SLUG.fullmatch(trimmed) is None:
        raise VaultError(f"{label} must be a lowercase letters/numbers slug.")
    return trimmed


def memory_id(value: object) -> str:
    trimmed = non_empty_string(value, "memory id", 132)
    if MEMORY_ID.fullmatch(trimmed) is None:
        raise VaultError("memory id must match mem_<lowercase-id> and cannot contain a path.")
    return trimmed


def unique_list(
    value: object, label: str, limit: int, element: Callable[[object], str]
) -> list[str]:
    """§2.6 unique list: array, at most ``limit`` elements, each checked, no duplicates."""
    if not isinstance(value, list):
        raise VaultError(f"{label} must be an array.")
    if len(value) > limit:
        raise VaultError(f"{label} has too many values (maximum {limit}).")
    result: list[str] = []
    for item in value:
        normalized = element(item)
        if normalized in result:
            raise VaultError(f"{label} must not contain duplicate values.")
        result.append(normalized)
    return result


def _timestamp(value: object, label: str) -> str:
    trimmed = non_empty_string(value, label, 64)
    if not is_timestamp(trimmed):
        raise VaultError(f"{label} must be an ISO-8601 timestamp.")
    return trimmed


def normalize_body(value: object) -> str:
    if not isinstance(value, str):
        raise VaultError("memory body must be a string.")
    # The raw value is checked before trimming: a leading U+000B fails here (§2.6 step 14).
    if has_unsafe_body(value):
        raise VaultError(
            "memory body must not contain unsafe control or bidirectional formatting characters."
        )
    trimmed = js_trim(value)
    if not trimmed:
        raise VaultError("memory body must contain non-whitespace context.")
    if utf8_len(trimmed) > MAX_BODY_BYTES:
        raise VaultError(f"memory body is too large (maximum {MAX_BODY_BYTES} bytes).")
    return trimmed


def _target(item: object) -> str:
    return slug(item, "target harness")


def _tag(item: object) -> str:
    return slug(item, "tag")


def normalize(memory: object) -> dict[str, Any]:
    """Validate and normalize a memory object (camelCase keys); §2.6 order, first error wins."""
    if not isinstance(memory, Mapping):
        raise VaultError("memory must be an object.")
    get = memory.get
    # Targets are checked before the schema (§2.6 step 1).
    targets = unique_list(get("targetHarnesses"), "target harnesses", 32, _target)
    if not targets:
        raise VaultError('target harnesses must contain at least one harness or "all".')
    schema = get("schema")
    if not isinstance(schema, str) or schema != SCHEMA:
        raise VaultError("Unsupported memory schema.")
    return {
        "schema": SCHEMA,
        "id": memory_id(get("id")),
        "title": non_empty_string(get("title"), "memory title", MAX_TITLE),
        "kind": enum_value(get("kind"), "memory kind", KINDS),
        "scope": enum_value(get("scope"), "memory scope", SCOPES),
        "trust": enum_value(get("trust"), "memory trust", TRUSTS),
        "status": enum_value(get("status"), "memory status", STATUSES),
        "sourceHarness": slug(get("sourceHarness"), "source harness"),
        "targetHarnesses": targets,
        "tags": unique_list(get("tags"), "tags", 32, _tag),
        "links": unique_list(get("links"), "links", 64, memory_id),
        "createdAt": _timestamp(get("createdAt"), "created_at"),
        "updatedAt": _timestamp(get("updatedAt"), "updated_at"),
        "body": normalize_body(get("body")),
    }


def summary(memory: Mapping[str, Any]) -> dict[str, Any]:
    """The normalized object without ``body`` (§0 "Summary")."""
    return {key: memory[key] for key in SUMMARY_KEYS}
