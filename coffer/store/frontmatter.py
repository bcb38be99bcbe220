"""Frontmatter in the shape coffer and Claude Code write, read without PyYAML.

Importing PyYAML and building its loader costs about two bare Python starts, and the
session-start hook parses every entry that changed (docs/adr/0023). Nearly every entry's
frontmatter is a few ``key: value`` lines and one nested ``metadata:`` map of the same, so
:func:`simple` reads exactly that shape and returns None for anything else (comments,
lists, double quotes, block scalars, anchors, a value YAML would read as a number, a
boolean or null …), which then goes to PyYAML as before. Where it answers, it answers what
coffer's YAML loader answers: tests/properties/test_frontmatter_props.py compares the two.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# A plain scalar starting with one of these is an indicator, a quote or a block scalar.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# YAML 1.1's implicit booleans and nulls (PyYAML's SafeLoader resolvers).
_WORDS = frozenset(
    (
        *("yes", "Yes", "YES"),
        *("no", "No", "NO"),
        *("true", "True", "TRUE"),
        *("false", "False", "FALSE"),
        *("on", "On", "ON"),
        *("off", "Off", "OFF"),
        *("null", "Null", "NULL"),
        "~",
    )
)
# PyYAML's int and float resolvers (resolver.py), which decide a plain scalar that starts
# with a digit, a sign or a dot; tests/store/test_frontmatter.py checks they are still PyYAML's.
INT = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)


# PyYAML's timestamp resolver: a digit-led string it matches is written quoted.
TIMESTAMP = re.compile(
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
    (?:[Tt]|[ \t]+)[0-9][0-9]?
    :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    re.X,
)
# What :func:`dumped` writes without asking PyYAML: ASCII that is no indicator anywhere
# in a plain scalar once the first character is a letter, a digit or "_" (no "#", no ":"
# before a space or at the end, no brackets, line breaks or controls), at most this long
# (PyYAML folds a scalar only past its width, 10,000 here).
_DUMP_FIRST = re.compile(r"[A-Za-z0-9_]")
_DUMP_REST = re.compile(r"(?:[A-Za-z0-9_ .,;/()+'!?%&*=~^$-]|:(?=[^ ]))*")
_DUMP_MAX = 1000


def _scalar(value: str) -> str | None:
    """``value`` as the string YAML reads, or None when it is not plainly one."""
    if not value or not value.isprintable() or value != value.strip(" "):
        return None
    if value[0] == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
            return None
        return inner.replace("''", "'")
    if value[0] in _INDICATORS or value in _WORDS or value.startswith(("<<", "=")):
        return None
    if ": " in value or " #" in value or value.endswith(":"):
        return None
    if value[0] in "+-.0123456789" and (INT.match(value) or FLOAT.match(value)):
        return None
    return value


def _key(text: str) -> str | None:
    return text if _KEY.fullmatch(text) and text not in _WORDS else None


def simple(front: str) -> dict[str, Any] | None:
    """The frontmatter as a dict when it has the simple shape, else None."""
    data: dict[str, Any] = {}
    nested: dict[str, str] | None = None
    for raw in front.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line:
            continue  # YAML skips blank lines, the one after the last line included
        inner = line.startswith("  ")
        key, sep, value = (line[2:] if inner else line).partition(":")
        name = _key(key)
        if name is None or not sep or (value and value[0] != " "):
            return None
        if not value:  # `metadata:` opens a nested map
            if inner or name in data:
                return None
            nested = data[name] = {}
            continue
        scalar = _scalar(value[1:])
        if scalar is None:
            return None
        target = nested if inner else data
        if target is None or name in target:
            return None  # indented without a parent, or a duplicate key
        target[name] = scalar
        if not inner:
            nested = None
    if not data or any(v == {} for v in data.values()):
        return None  # nothing, or an empty nested map (`null` to YAML): YAML decides
    return data


def _dumped_scalar(value: object) -> str | None:
    """``value`` as ``yaml.safe_dump`` writes it, or None when this cannot say."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str) or not 0 < len(value) <= _DUMP_MAX or value[-1] == " ":
        return None
    if not _DUMP_FIRST.match(value) or not _DUMP_REST.fullmatch(value, 1):
        return None
    # Plain, unless PyYAML's resolver would read it as another type: then single-quoted.
    implicit = value in _WORDS or (
        value[0] in "0123456789"
        and bool(INT.match(value) or FLOAT.match(value) or TIMESTAMP.match(value))
    )
    return "'" + value.replace("'", "''") + "'" if implicit else value


def dumped(front: dict[str, Any]) -> str | None:
    """``yaml.safe_dump(front, sort_keys=False, allow_unicode=True,
    default_flow_style=False, width=10_000)`` for the shape :func:`simple` reads (scalars
    and one level of nested map) in the characters it is sure of; None for anything else,
    which goes to PyYAML. tests/properties/test_frontmatter_props.py compares the two."""
    lines: list[str] = []
    for key, value in front.items():
        if _key(key) != key:
            return None
        if not isinstance(value, dict):
            if (text := _dumped_scalar(value)) is None:
                return None
            lines.append(f"{key}: {text}")
            continue
        if not value:
            return None  # PyYAML writes `{}`
        lines.append(f"{key}:")
        for inner, item in value.items():
            if not isinstance(inner, str) or _key(inner) != inner:
                return None
            if (text := _dumped_scalar(item)) is None:
                return None
            lines.append(f"  {inner}: {text}")
    return "".join(f"{line}\n" for line in lines) if lines else None
