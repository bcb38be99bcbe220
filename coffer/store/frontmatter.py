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
