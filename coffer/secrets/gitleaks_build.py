"""Build ``gitleaks_rules.json`` from gitleaks' default ``gitleaks.toml`` (docs/adr/0042).

``gitleaks.toml`` is vendored unchanged (MIT, see ``gitleaks.LICENSE``); the JSON beside it is
what the gate loads, because ``json`` parses it in about a millisecond where ``tomllib`` takes
~18 ms, and because the regexes in it are already translated from Go's RE2 syntax to Python's.
``tests/secrets/test_gitleaks_rules.py`` rebuilds it and compares, so the two cannot drift. After
replacing the TOML with a newer upstream copy, run ``python -m coffer.secrets.gitleaks_build``.

Not imported at run time.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TOML = HERE / "gitleaks.toml"
JSON = HERE / "gitleaks_rules.json"

# POSIX classes RE2 accepts inside brackets, as ASCII ranges (re.ASCII is in force).
_POSIX = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "lower": "a-z",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
    "space": r"\t\n\v\f\r ",
    "word": r"\w",
    "punct": r"!-/:-@\[-`{-~",
}
_FLAGS = re.compile(r"\(\?([imsU-]+)\)")


def translate(pattern: str) -> str:
    """A Go RE2 pattern as Python ``re`` reads it the same way (with ``re.ASCII``).

    RE2 lets ``(?i)`` appear anywhere: it applies to the rest of the enclosing group,
    including later alternatives. Python accepts global flags only at the very start, so a
    flag group elsewhere becomes a scoped ``(?i:...)`` closed at each ``|`` (and reopened
    after it) and at the end of the enclosing group. ``\\z`` is Python's ``\\Z``; inside a
    class, a POSIX ``[:alnum:]`` becomes its ranges and a bare ``[`` is escaped (Python
    would read it as a nested set in a future version).
    """
    out: list[str] = []
    # One list per open group: the scoped flag groups opened in it (each needs a ")").
    scopes: list[list[str]] = [[]]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1]
            out.append(r"\Z" if nxt == "z" else pattern[i : i + 2])
            i += 2
        elif c == "[":
            i = _copy_class(pattern, i, out)
        elif c == "(":
            flags = _FLAGS.match(pattern, i)
            if flags and i == 0:
                out.append(flags[0])
                i = flags.end()
            elif flags:
                out.append(f"(?{flags[1]}:")
                scopes[-1].append(flags[1])
                i = flags.end()
            else:
                out.append(c)
                scopes.append([])
                i += 1
        elif c == "|":
            opened = scopes[-1]
            out.append(")" * len(opened) + "|" + "".join(f"(?{f}:" for f in opened))
            i += 1
        elif c == ")":
            out.append(")" * len(scopes.pop()) + ")")
            i += 1
        else:
            out.append(c)
            i += 1
    out.append(")" * len(scopes.pop()))
    return "".join(out)


def _copy_class(pattern: str, i: int, out: list[str]) -> int:
    """Copy the bracket expression starting at ``pattern[i]``; return the index after it."""
    out.append("[")
    i += 1
    if pattern[i] == "^":
        out.append("^")
        i += 1
    if pattern[i] == "]":  # a leading "]" is a literal in RE2
        out.append(r"\]")
        i += 1
    while pattern[i] != "]":
        if pattern[i] == "\\":
            out.append(r"\Z" if pattern[i + 1] == "z" else pattern[i : i + 2])
            i += 2
            continue
        posix = re.match(r"\[:(\^?)([a-z]+):\]", pattern[i:])
        if posix:
            if posix[1]:
                raise ValueError(f"negated POSIX class in {pattern!r}")
            out.append(_POSIX[posix[2]])
            i += posix.end()
            continue
        out.append(r"\[" if pattern[i] == "[" else pattern[i])
        i += 1
    out.append("]")
    return i + 1


def _allowlist(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "target": raw.get("regexTarget", "secret"),
        "and": raw.get("condition", "OR").upper() == "AND",
        # One pattern for all (RE2 semantics: a "(?i)" inside one applies to that one only).
        "regex": translate("|".join(f"(?:{r})" for r in raw["regexes"]))
        if raw.get("regexes")
        else None,
        "stopwords": [w.lower() for w in raw.get("stopwords", [])],
        # coffer scans text, not files: a path condition never holds (see gitleaks.py).
        "paths": bool(raw.get("paths")),
    }


def build(toml_bytes: bytes) -> dict[str, Any]:
    """The JSON document the gate loads, from the TOML's bytes."""
    config = tomllib.loads(toml_bytes.decode("utf-8"))
    rules = []
    for raw in config["rules"]:
        if "regex" not in raw:
            continue  # a file-name-only rule (pkcs12-file): coffer scans text
        rules.append(
            {
                "id": raw["id"],
                "regex": translate(raw["regex"]),
                "keywords": sorted({k.lower() for k in raw.get("keywords", [])}),
                "entropy": raw.get("entropy", 0.0),
                "group": raw.get("secretGroup", 0),
                "path": raw.get("path"),
                "allowlists": [_allowlist(a) for a in raw.get("allowlists", [])],
            }
        )
    return {
        "source": "gitleaks config/gitleaks.toml, " + config.get("minVersion", ""),
        "rules_in_source": len(config["rules"]),
        "allowlist": _allowlist(config["allowlist"]),
        "rules": rules,
    }


def render(toml_bytes: bytes) -> str:
    return json.dumps(build(toml_bytes), indent=0, sort_keys=True) + "\n"


if __name__ == "__main__":
    JSON.write_text(render(TOML.read_bytes()), encoding="utf-8")
