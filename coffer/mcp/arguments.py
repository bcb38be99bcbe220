"""Tool arguments checked against their JSON schema as the reference server's Ajv 8 does it
(``allErrors``: every violation, in Ajv's order; docs/vault-format.md §11.7). Only the
keywords coffer's and the vault's schemas use are supported."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Issue:
    """One schema violation: Ajv's instance path and keyword, plus a readable detail."""

    path: str
    keyword: str
    detail: str

    @property
    def ajv(self) -> str:
        return f"{self.path or '/'} {self.keyword}"


def _pattern(regex: str) -> re.Pattern[str]:
    # The schema's ^…$ are JavaScript anchors: "$" matches only at the very end (R5).
    return re.compile(regex.removeprefix("^").removesuffix("$"))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _string(path: str, name: str, schema: Mapping[str, Any], value: object) -> list[Issue]:
    enum = schema.get("enum")
    out: list[Issue] = []
    if not isinstance(value, str):
        out.append(Issue(path, "type", f"{name} must be a string"))
        if enum is not None:
            out.append(Issue(path, "enum", f"{name} must be one of: {', '.join(enum)}"))
        return out
    if enum is not None:
        if value not in enum:
            out.append(Issue(path, "enum", f"{name} must be one of: {', '.join(enum)}"))
        return out
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        out.append(
            Issue(path, "maxLength", f"{name} is longer than {schema['maxLength']} characters")
        )
    if "minLength" in schema and len(value) < schema["minLength"]:
        out.append(Issue(path, "minLength", f"{name} must not be empty"))
    if "pattern" in schema and _pattern(schema["pattern"]).fullmatch(value) is None:
        out.append(Issue(path, "pattern", f"{name} must match {schema['pattern']}"))
    return out


def _integer(path: str, name: str, schema: Mapping[str, Any], value: object) -> list[Issue]:
    if not _is_number(value):
        return [Issue(path, "type", f"{name} must be an integer")]
    assert isinstance(value, int | float)
    out: list[Issue] = []
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        out.append(Issue(path, "type", f"{name} must be an integer"))
        if not math.isfinite(value):
            return out
    bounds = f"{name} must be between {schema.get('minimum')} and {schema.get('maximum')}"
    if "maximum" in schema and value > schema["maximum"]:
        out.append(Issue(path, "maximum", bounds))
    if "minimum" in schema and value < schema["minimum"]:
        out.append(Issue(path, "minimum", bounds))
    return out


def _array(path: str, name: str, schema: Mapping[str, Any], value: object) -> list[Issue]:
    if not isinstance(value, list):
        return [Issue(path, "type", f"{name} must be an array")]
    out: list[Issue] = []
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        out.append(Issue(path, "maxItems", f"{name} has more than {schema['maxItems']} items"))
    if "minItems" in schema and len(value) < schema["minItems"]:
        out.append(Issue(path, "minItems", f"{name} needs at least {schema['minItems']} item"))
    items = schema.get("items", {})
    for i, item in enumerate(value):
        out += _check_value(f"{path}/{i}", f"{name}[{i}]", items, item)
    if schema.get("uniqueItems"):
        strings = [item for item in value if isinstance(item, str)]
        if len(set(strings)) != len(strings):
            out.append(Issue(path, "uniqueItems", f"{name} must not repeat a value"))
    return out


_BY_TYPE: dict[str, Callable[[str, str, Mapping[str, Any], object], list[Issue]]] = {
    "string": _string,
    "integer": _integer,
    "array": _array,
}


def _check_value(path: str, name: str, schema: Mapping[str, Any], value: object) -> list[Issue]:
    checker = _BY_TYPE.get(schema.get("type", ""))
    return checker(path, name, schema, value) if checker else []


def check(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[Issue]:
    """Every violation of ``schema`` by ``args``, in Ajv 8's ``allErrors`` order (§11.7)."""
    props: Mapping[str, Any] = schema.get("properties", {})
    out = [
        Issue("", "required", f"{key} is required")
        for key in schema.get("required", ())
        if key not in args
    ]
    if schema.get("additionalProperties") is False:
        out += [
            Issue("", "additionalProperties", f"unknown argument {key!r}")
            for key in args
            if key not in props
        ]
    for key, sub in props.items():
        if key in args:
            out += _check_value(f"/{key}", key, sub, args[key])
    return out


def invalid_arguments(tool: str, issues: list[Issue]) -> str:
    """``Invalid arguments for <tool>: <e1>, <e2>, <e3>.`` (the first three, §11.7)."""
    return f"Invalid arguments for {tool}: {', '.join(i.ajv for i in issues[:3])}."
