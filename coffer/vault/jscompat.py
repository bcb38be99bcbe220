"""JavaScript semantics the reference relies on, in Python (docs/vault-format.md §1.5, R1–R9).

The reference runs on Node.js; its whitespace set, string lengths (UTF-16 units), JSON text
and ``Number()`` coercion differ from Python's defaults in small, observable ways.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

# R2: the JavaScript whitespace set, exactly. str.strip() and re's \s differ (they add
# U+001C–U+001F and U+0085 and lack U+FEFF), so they are never used for "trim".
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_WS_CLASS = (
    "\\t\\n\\x0b\\x0c\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
WS_RUN = re.compile(f"[{_WS_CLASS}]+")

# §2.2 unsafe characters, per code point. The body rule exempts TAB, LF and CR.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_BODY = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def js_trim(value: str) -> str:
    """``String.prototype.trim`` (R2)."""
    return value.strip(JS_WHITESPACE)


def has_unsafe(value: str) -> bool:
    """True if ``value`` holds a control or bidi formatting character (non-body rule, §2.2)."""
    return _UNSAFE.search(value) is not None


def has_unsafe_body(value: str) -> bool:
    """True if ``value`` holds an unsafe character under the body rule (§2.2)."""
    return _UNSAFE_BODY.search(value) is not None


def utf16_len(value: str) -> int:
    """Length as JavaScript counts it: a code point at or above U+10000 counts 2 (R3)."""
    if value.isascii():
        return len(value)
    return len(value) + sum(1 for ch in value if ord(ch) > 0xFFFF)


def utf8_len(value: str) -> int:
    """UTF-8 byte length as ``Buffer.byteLength`` counts it (a lone surrogate is 3 bytes)."""
    if value.isascii():
        return len(value)
    return len(value.encode("utf-8", "surrogatepass"))


def to_utf16(value: str) -> bytes:
    """The UTF-16-LE units of ``value``; lone surrogates survive (§7.7)."""
    return value.encode("utf-16-le", "surrogatepass")


def from_utf16(units: bytes) -> str:
    """Inverse of :func:`to_utf16`; a split pair becomes a lone surrogate (Q8)."""
    return units.decode("utf-16-le", "surrogatepass")


def js_string(value: str) -> str:
    """Merge adjacent surrogate halves into one code point, as a JS string would read them."""
    if _SURROGATE.search(value) is None:
        return value
    return from_utf16(to_utf16(value))


def replace_lone_surrogates(value: str) -> str:
    """Lone surrogates become U+FFFD: what the reference writes to disk or a terminal (Q9)."""
    value = js_string(value)
    return _SURROGATE.sub("\ufffd", value)


def encode_utf8(value: str) -> bytes:
    """UTF-8 bytes of ``value`` with lone surrogates replaced by U+FFFD (Q9)."""
    if value.isascii():
        return value.encode("ascii")
    return replace_lone_surrogates(value).encode("utf-8")


def _escape_surrogates(text: str) -> str:
    # R1 (c): JSON.stringify writes a lone surrogate as a lowercase \udxxx escape. In JSON
    # text produced by json.dumps a raw surrogate can only sit inside a string literal.
    text = js_string(text)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_compact(value: Any) -> str:
    """Compact ``JSON.stringify`` text (R1): frontmatter values and the secret scan."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if text.isascii() else _escape_surrogates(text)


def json_pretty(value: Any) -> str:
    """``JSON.stringify(v, null, 2)`` (R1): CLI ``--json`` output."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text if text.isascii() else _escape_surrogates(text)


class JSONValueError(ValueError):
    """The text is not one strict JSON value."""


def _reject_constant(name: str) -> Any:
    # NaN/Infinity are not JSON; Python accepts them by default (§2.5 step 4).
    raise JSONValueError(name)


def _parse_int(digits: str) -> int | float:
    # R8: JSON numbers are doubles in the reference; a huge integer literal is still a
    # number there, while int() refuses more than 4300 digits.
    return int(digits) if len(digits) <= 4000 else float(digits)


def json_strict_loads(text: str) -> Any:
    """``JSON.parse``: strict JSON, no NaN/Infinity; raises :class:`JSONValueError`."""
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except (ValueError, RecursionError) as exc:
        raise JSONValueError(str(exc)) from None


_JS_DECIMAL = re.compile(
    r"[+-]?(?:Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)", re.ASCII
)
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)", re.ASCII)


def js_number(value: object) -> float:
    """JavaScript ``Number(value)`` for the value types the CLI and library pass (§7.8)."""
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return math.nan
    text = js_trim(value)
    if text == "":
        return 0.0
    if _JS_DECIMAL.fullmatch(text):
        if text.endswith("Infinity"):
            return -math.inf if text.startswith("-") else math.inf
        return float(text)
    if _JS_RADIX.fullmatch(text):
        return float(int(text, 0))
    return math.nan


# §10.7 terminal sanitization, left to right; alternatives are tried in rule order. It lives
# here, below both the vault CLI and the handoffs shown in blocks, which use it.
_TERMINAL_UNSAFE = re.compile(
    r"\x1b[PX\]^_][\s\S]*?(?:\x07|\x9c|\x1b\\|\Z)"
    r"|\x1b\[[\s\S]*?(?:[\x40-\x7e]|\Z)"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
    r"|[\x90\x98\x9d\x9e\x9f][\s\S]*?(?:\x07|\x9c|\x1b\\|\Z)"
    r"|\x9b[\s\S]*?(?:[\x40-\x7e]|\Z)"
    "|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def sanitize(value: object) -> str:
    """§10.7: strip escape sequences, C0 (but TAB/LF), C1 and bidi controls."""
    return _TERMINAL_UNSAFE.sub("", str(value))
