"""``schemas/memory.schema.json``: the reference's JSON Schema of a normalized vault memory,
shipped as ECC ships it (docs/adr/0028), and checked with a maintained validator.

The runtime never evaluates the schema (the rules are coffer.vault.validate, §2.6); like the
reference's own tests, these validate documents against it with a strict RFC 3339
``date-time`` format.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from coffer.vault import api
from coffer.vault.document import parse
from tests.vault.conftest import GOLDEN, golden

SCHEMA_FILE = Path(__file__).parents[2] / "schemas" / "memory.schema.json"
# The Git blob id of the reference's schemas/memory.schema.json (docs/vault-format.md §1.2).
REFERENCE_BLOB = "3a7f4696f6e0931a9edfa71c46f893db734d2b0d"


@pytest.fixture(scope="module")
def validator() -> Draft7Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft7Validator.check_schema(schema)
    return Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)


def test_the_file_is_the_reference_file_byte_for_byte() -> None:
    data = SCHEMA_FILE.read_bytes()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
    assert blob == REFERENCE_BLOB


def test_date_time_is_really_checked(validator: Draft7Validator) -> None:
    # Without a date-time checker installed, jsonschema skips the format silently.
    assert "date-time" in validator.format_checker.checkers


@pytest.mark.parametrize("name", ["example_a.md", "example_b.md", "example_c.md"])
def test_the_reference_examples_are_valid(validator: Draft7Validator, name: str) -> None:
    memory = parse(golden(name).decode())
    assert list(validator.iter_errors(memory)) == []


@pytest.mark.parametrize("name", ["read_handoff.json", "search_auth_migration.json"])
def test_coffers_golden_outputs_hold_valid_memories(validator: Draft7Validator, name: str) -> None:
    data = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    memories = [data["memory"]] if "memory" in data else [r["memory"] for r in data["results"]]
    memories += data.get("backlinks", [])
    assert memories
    for memory in memories:
        # A summary has no body (§2.2); the schema describes the whole document.
        whole = memory if "body" in memory else {**memory, "body": "x"}
        assert list(validator.iter_errors(whole)) == []


def test_what_coffer_saves_is_valid(validator: Draft7Validator, tmp_path: Path) -> None:
    roots_dir = tmp_path / "proj"
    (roots_dir / ".git").mkdir(parents=True)
    from coffer.vault.roots import resolve_roots

    roots = resolve_roots(cwd=str(roots_dir))
    saved = api.save(
        {
            "title": "Ünïcode title 🚀",
            "body": "Line one.\r\nLine two\twith a tab.",
            "kind": "decision",
            "scope": "team",
            "sourceHarness": "claude",
            "targetHarnesses": ["codex", "gemini"],
            "tags": ["release", "v1.2"],
            "links": ["mem_20260726_fixed"],
        },
        roots=roots,
    )
    read = api.read(saved["memory"]["id"], ["team"], "codex", roots=roots)
    assert list(validator.iter_errors(read["memory"])) == []


def _example_c() -> dict[str, Any]:
    memory: dict[str, Any] = parse(golden("example_c.md").decode())
    return memory


@pytest.mark.parametrize(
    ("change", "keyword"),
    [
        ({"kind": "gossip"}, "enum"),
        ({"trust": "reviewed"}, "enum"),
        ({"targetHarnesses": []}, "minItems"),
        ({"tags": ["x", "x"]}, "uniqueItems"),
        ({"tags": ["Upper"]}, "pattern"),
        ({"links": ["mem_../etc"]}, "pattern"),
        ({"body": "bell \u0007"}, "pattern"),
        ({"title": "   "}, "pattern"),
        ({"createdAt": "2026-07-26 20:00:00"}, "pattern"),
        ({"createdAt": "2026-02-30T20:00:00.000Z"}, "format"),
        ({"sourceHarness": "x" * 65}, "maxLength"),
        ({"source_harness": "codex"}, "additionalProperties"),
        ({"schema": "ecc.memory.v2"}, "const"),
    ],
)
def test_invalid_documents_are_rejected(
    validator: Draft7Validator, change: dict[str, Any], keyword: str
) -> None:
    assert list(validator.iter_errors(_example_c())) == []
    errors = list(validator.iter_errors({**_example_c(), **change}))
    assert keyword in [e.validator for e in errors]


def test_a_missing_field_is_rejected(validator: Draft7Validator) -> None:
    memory = _example_c()
    del memory["updatedAt"]
    assert [e.validator for e in validator.iter_errors(memory)] == ["required"]
