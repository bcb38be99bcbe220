"""Extract gitleaks' own rule fixtures into tests/data/gitleaks_fixtures.json (docs/adr/0042).

gitleaks generates its default config from ``cmd/generate/config/rules/*.go``; each rule
function lists true positives (``tps``) and false positives (``fps``) and hands them to
``utils.Validate``, which fails the build unless the rule finds each tp and no fp. This
script evaluates those Go expressions (string literals, ``+``, ``[]string{…}``,
``map[string]string{…}``, ``append``, ``fmt.Sprintf``, ``utils.GenerateSampleSecret(s)`` and
``secrets.NewSecret(regex)``, the last with a seeded generator in reggen's manner) and
writes what it could evaluate; an element it cannot (a loop, a helper it does not know) is
counted in the file's ``skipped`` and left out.

Usage: python -m tests.secrets.gitleaks_extract /path/to/gitleaks/cmd/generate/config/rules
(the sources come from github:gitleaks/gitleaks; the commit is recorded in the output).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
import sys
from pathlib import Path
from typing import Any

from coffer.secrets.gitleaks_build import translate

OUT = Path(__file__).parents[1] / "data" / "gitleaks_fixtures.json"

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r]+)|(?P<nl>\n)|(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<raw>`[^`]*`)|(?P<str>\"(?:[^\"\\\n]|\\.)*\")|(?P<rune>'(?:[^'\\]|\\.)+')"
    r"|(?P<op>\.\.\.|:=|[{}()\[\],+.:=*&!<>;|/%-])|(?P<ident>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<num>[0-9][0-9.]*)",
    re.S,
)


class Unknown(Exception):
    """An expression this evaluator does not know."""


def tokens(source: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if not m:
            raise ValueError(f"cannot tokenize at {source[pos : pos + 40]!r}")
        pos = m.end()
        kind = m.lastgroup or ""
        if kind in ("ws", "comment"):
            continue
        out.append((kind, m[0]))
    return out


def _go_string(tok: tuple[str, str]) -> str:
    kind, text = tok
    if kind == "raw":
        return text[1:-1].replace("\r", "")
    return str(json.loads(re.sub(r"\\x([0-9a-fA-F]{2})", r"\\u00\1", text)))


class Generator:
    """reggen's Generate(limit=1): a random string matching a regex."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def generate(self, pattern: str) -> str:
        parsed = sre_parse.parse(translate(pattern), re.ASCII)
        groups: dict[int, str] = {}
        return self._seq(list(parsed), groups)

    def _seq(self, items: list[Any], groups: dict[int, str]) -> str:
        return "".join(self._one(op, av, groups) for op, av in items)

    def _chars(self, items: list[Any]) -> list[str]:
        chars: set[str] = set()
        for op, av in items:
            if op is sre_c.LITERAL:
                chars.add(chr(av))
            elif op is sre_c.RANGE:
                chars.update(chr(c) for c in range(av[0], av[1] + 1))
            elif op is sre_c.CATEGORY:
                chars.update(self._category(av))
        return sorted(chars)

    @staticmethod
    def _category(cat: Any) -> str:
        name = str(cat)
        if "DIGIT" in name:
            return "0123456789"
        if "WORD" in name:
            return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
        return " "

    def _one(self, op: Any, av: Any, groups: dict[int, str]) -> str:
        rnd = self.random
        printable = [chr(c) for c in range(33, 127)]
        if op is sre_c.LITERAL:
            return chr(av)
        if op is sre_c.NOT_LITERAL:
            return rnd.choice([c for c in printable if c != chr(av)])
        if op is sre_c.ANY:
            return rnd.choice(printable)
        if op is sre_c.IN:
            negate = av and av[0][0] is sre_c.NEGATE
            chars = self._chars(av[1:] if negate else av)
            if negate:
                chars = [c for c in printable if c not in chars]
            return rnd.choice(chars)
        if op is sre_c.CATEGORY:
            return rnd.choice(self._category(av))
        if op is sre_c.BRANCH:
            return self._seq(list(rnd.choice(av[1])), groups)
        if op is sre_c.SUBPATTERN:
            text = self._seq(list(av[3]), groups)
            if av[0] is not None:
                groups[av[0]] = text
            return text
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            low, high, item = av
            if high is sre_c.MAXREPEAT:
                high = low + 1
            return "".join(self._seq(list(item), groups) for _ in range(rnd.randint(low, high)))
        if op is sre_c.GROUPREF:
            return groups.get(av, "")
        if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
            return ""
        raise Unknown(f"regex op {op}")


_CLASSES = {
    "Numeric": "[0-9]{%s}",
    "Hex": "[a-f0-9]{%s}",
    "AlphaNumeric": "[a-z0-9]{%s}",
    "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "AlphaNumericExtended": r"[a-z0-9=_\-]{%s}",
    "AlphaNumericExtendedLong": r"[a-z0-9\/=_\+\-]{%s}",
}
_SAMPLES = (  # utils.GenerateSampleSecrets' templates, in its order
    '{i}Token="{s}"',
    '{i}Token = "{s}"',
    "{i}Token={s}",
    "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}',
    '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}",
    "{i}_token: '{s}'",
    '{i}_token: "{s}"',
    'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"',
    '{i}Token := "{s}"',
    "{i}Token := `{s}`",
    'String {i}Token = "{s}";',
    'var {i}Token = "{s}"',
    '${i}Token .= "{s}"',
    "{i}Token = '{s}'",
    '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")',
    '  "{i}Token" => "{s}"',
    '{i}_TOKEN = "{s}"',
    '{i}_TOKEN := "{s}"',
    '{i}_TOKEN ::= "{s}"',
    '{i}_TOKEN :::= "{s}"',
    '{i}_TOKEN ?= "{s}"',
)


def _samples(ident: str, secret: str) -> list[str]:
    return [
        t.replace("{i}", ident).replace("{I}", ident.upper()).replace("{s}", secret)
        for t in _SAMPLES
    ]


def _sprintf(fmt: str, args: list[Any]) -> str:
    parts = iter(args)
    return re.sub(r"%[sdqv]", lambda m: str(next(parts)), fmt).replace("%%", "%")


class Evaluator:
    def __init__(self, toks: list[tuple[str, str]], env: dict[str, Any], gen: Generator) -> None:
        self.toks, self.pos, self.env, self.gen = toks, 0, env, gen
        self.skipped = 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        at = self.pos + offset
        return self.toks[at] if at < len(self.toks) else ("eof", "")

    def take(self, text: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if text is not None and tok[1] != text:
            raise Unknown(f"expected {text!r}, got {tok[1]!r}")
        self.pos += 1
        return tok

    def skip_nl(self) -> None:
        while self.peek()[0] == "nl":
            self.pos += 1

    def expr(self) -> Any:
        value = self.primary()
        while self.peek()[1] == "+" or (self.peek()[0] == "nl" and self._plus_after_nl()):
            self.skip_nl()
            self.take("+")
            self.skip_nl()
            right = self.primary()
            if not isinstance(value, str) or not isinstance(right, str):
                raise Unknown("+ on non-strings")
            value += right
        return value

    def _plus_after_nl(self) -> bool:
        return False  # Go puts a binary operator at the end of the line, never the start

    def primary(self) -> Any:
        kind, text = self.peek()
        if kind in ("raw", "str"):
            self.pos += 1
            return _go_string((kind, text))
        if text == "(":
            self.take("(")
            self.skip_nl()
            value = self.expr()
            self.skip_nl()
            self.take(")")
            return value
        if text == "[":
            self.take("[")
            self.take("]")
            self.take("string")
            return self.elements("}")
        if text == "map":
            for expected in ("map", "[", "string", "]", "string"):
                self.take(expected)
            return self.mapping()
        if kind == "ident":
            name = self.dotted()
            if self.peek()[1] == "(":
                return self.call(name)
            if self.peek()[1] == "{":
                self.skip_braces()
                raise Unknown(f"composite {name}")
            if name == "nil":
                return []
            if name in self.env:
                return self.env[name]
            raise Unknown(f"name {name}")
        raise Unknown(f"token {text!r}")

    def dotted(self) -> str:
        parts = [self.take()[1]]
        while self.peek()[1] == "." and self.peek(1)[0] == "ident":
            self.take(".")
            parts.append(self.take()[1])
        return ".".join(parts)

    def skip_braces(self) -> None:
        depth = 0
        while True:
            _, text = self.take()
            depth += {"{": 1, "}": -1}.get(text, 0)
            if depth == 0:
                return

    def args(self) -> tuple[list[Any], bool]:
        self.take("(")
        values: list[Any] = []
        spread = False
        self.skip_nl()
        while self.peek()[1] != ")":
            values.append(self.expr())
            if self.peek()[1] == "...":
                self.take("...")
                spread = True
            self.skip_nl()
            if self.peek()[1] == ",":
                self.take(",")
            self.skip_nl()
        self.take(")")
        return values, spread

    def call(self, name: str) -> Any:
        short = name.split(".")[-1]
        values, spread = self.args()
        if short == "NewSecret":
            return self.gen.generate(values[0])
        if short in _CLASSES:
            return _CLASSES[short] % values[0]
        if short == "Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if short == "GenerateSampleSecrets":
            return _samples(values[0], values[1])
        if short == "GenerateSampleSecret":
            return f'{values[0]}_api_token = "{values[1]}"'
        if name == "fmt.Sprintf":
            return _sprintf(values[0], values[1:])
        if name == "strings.Repeat":
            return values[0] * int(values[1])
        if name in ("strings.ToUpper", "strings.ToLower"):
            return values[0].upper() if name.endswith("Upper") else values[0].lower()
        if short == "append":
            base = list(values[0])
            for extra in values[1:]:
                base.extend(extra if spread and extra is values[-1] else [extra])
            return base
        if short == "newPlausibleSecret":
            return self._plausible(values[0])
        raise Unknown(f"call {name}")

    def _plausible(self, regex: str) -> str:
        while True:  # generic.go: retry until a digit and no stop word
            secret = self.gen.generate(regex)
            if re.search("[1-9]", secret) and not any(w in secret.lower() for w in _STOP):
                return secret

    def elements(self, close: str) -> list[str]:
        self.take("{")
        out: list[str] = []
        self.skip_nl()
        while self.peek()[1] != close:
            start = self.pos
            try:
                value = self.expr()
                out.extend(value if isinstance(value, list) else [value])
            except (Unknown, StopIteration, IndexError, KeyError, ValueError):
                self.skipped += 1
                self.pos = start
                self.skip_element()
            self.skip_nl()
            if self.peek()[1] == ",":
                self.take(",")
            self.skip_nl()
        self.take(close)
        return out

    def mapping(self) -> dict[str, str]:
        self.take("{")
        out: dict[str, str] = {}
        self.skip_nl()
        while self.peek()[1] != "}":
            start = self.pos
            try:
                key = self.expr()
                self.take(":")
                self.skip_nl()
                out[key] = self.expr()
            except (Unknown, StopIteration, IndexError, KeyError, ValueError):
                self.skipped += 1
                self.pos = start
                self.skip_element()
            self.skip_nl()
            if self.peek()[1] == ",":
                self.take(",")
            self.skip_nl()
        self.take("}")
        return out

    def skip_element(self) -> None:
        depth = 0
        while True:
            _, text = self.peek()
            if depth == 0 and text in (",", "}"):
                return
            depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(text, 0)
            self.pos += 1


_STOP: tuple[str, ...] = ()


def _functions(toks: list[tuple[str, str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(name, body tokens) of each top-level func."""
    out = []
    i = 0
    while i < len(toks):
        if toks[i] == ("ident", "func") and toks[i + 1][0] == "ident":
            name = toks[i + 1][1]
            j = i
            while toks[j][1] != "{":
                j += 1
            depth, k = 0, j
            while True:
                depth += {"{": 1, "}": -1}.get(toks[k][1], 0)
                if depth == 0:
                    break
                k += 1
            out.append((name, toks[j + 1 : k]))
            i = k
        i += 1
    return out


def _statements(body: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """Split a body on newlines at bracket depth 0 (Go's implicit semicolons, roughly)."""
    out: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for tok in body:
        if tok[0] == "nl" and depth == 0:
            if out[-1] and out[-1][-1][1] not in ("+", ",", "("):
                out.append([])
            if not out[-1]:
                continue
        depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(tok[1], 0)
        out[-1].append(tok)
    return [s for s in out if s]


def package_vars(toks: list[tuple[str, str]], env: dict[str, Any], gen: Generator) -> None:
    """Evaluate the top-level ``var name = …`` of one file into ``env``."""
    depth = 0
    for i, (_, text) in enumerate(toks):
        if depth == 0 and text == "var" and toks[i + 2][1] == "=":
            ev = Evaluator(toks[i + 3 :], env, gen)
            with contextlib.suppress(Unknown, StopIteration, IndexError, KeyError, ValueError):
                env[toks[i + 1][1]] = ev.expr()
        depth += {"{": 1, "(": 1, "}": -1, ")": -1}.get(text, 0)


def extract_function(
    body: list[tuple[str, str]], gen: Generator, package: dict[str, Any]
) -> dict[str, Any] | None:
    rule_id = next(
        (
            _go_string(body[i + 2])
            for i in range(len(body) - 2)
            if body[i][1] == "RuleID" and body[i + 1][1] == ":" and body[i + 2][0] == "str"
        ),
        None,
    )
    if rule_id is None:
        return None
    env: dict[str, Any] = dict(package)
    skipped = 0
    result = None
    for stmt in _statements(body):
        texts = [t for _, t in stmt]
        if texts[0] in ("for", "if", "switch"):
            continue
        if texts[0] == "var" and len(texts) >= 2:
            stmt, texts = stmt[1:], texts[1:]
            if len(texts) >= 2 and texts[1] == "=":
                pass
            elif "=" not in texts:
                env[texts[0]] = []
                continue
        if texts[0] == "return" and texts[3:4] in (["Validate"], ["ValidateWithPaths"]):
            ev = Evaluator(stmt[1:], env, gen)
            ev.dotted()
            ev.take("(")
            ev.take()  # the rule
            ev.take(",")
            ev.skip_nl()
            try:
                tps = ev.expr()
                ev.skip_nl()
                ev.take(",")
                ev.skip_nl()
                result = (tps, ev.expr())
            except (Unknown, StopIteration, IndexError, KeyError, ValueError) as exc:
                print(f"{rule_id}: not evaluated ({exc})", file=sys.stderr)
                return None
            skipped += ev.skipped
            continue
        if len(texts) >= 3 and texts[1] in (":=", "=") and stmt[0][0] == "ident":
            ev = Evaluator(stmt[2:], env, gen)
            try:
                env[texts[0]] = ev.expr()
            except (Unknown, StopIteration, IndexError, KeyError, ValueError):
                skipped += 1
            skipped += ev.skipped
    if result is None:
        return None
    tps, fps = result
    return {"id": rule_id, "tps": tps, "fps": fps, "skipped": skipped}


def main(rules_dir: Path, commit: str) -> None:
    global _STOP
    gen = Generator(22)
    stop_toks = tokens((rules_dir / "stopwords.go").read_text())
    start = next(i for i, t in enumerate(stop_toks) if t[1] == "DefaultStopWords")
    ev = Evaluator(stop_toks[start + 2 :], {}, gen)
    _STOP = tuple(ev.expr())
    rules: dict[str, Any] = {}
    skipped = 0
    package: dict[str, Any] = {}
    files = [tokens(path.read_text()) for path in sorted(rules_dir.glob("*.go"))]
    for toks in files:
        package_vars(toks, package, gen)
    for toks in files:
        for _name, body in _functions(toks):
            found = extract_function(body, gen, package)
            if found is None:
                continue
            skipped += found.pop("skipped")
            rules[found["id"]] = found
    doc = {"gitleaks_commit": commit, "skipped": skipped, "rules": rules}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n")
    tps = sum(len(r["tps"]) for r in rules.values())
    fps = sum(len(r["fps"]) for r in rules.values())
    print(f"{len(rules)} rules, {tps} tps, {fps} fps, {skipped} skipped")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "")
