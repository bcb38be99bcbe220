"""gitleaks' default rules, run the way gitleaks runs them (docs/adr/0042).

The rules come from ``gitleaks_rules.json``, built from the vendored ``gitleaks.toml`` by
:mod:`coffer.secrets.gitleaks_build`. For each text, as gitleaks' detector does: the rules
whose keywords occur (lowercased) are run; each match's secret is its first non-empty group
(or ``secretGroup``); a secret at or below the rule's entropy threshold, or one the global or
the rule's allowlist accepts (regex on the secret, match or line; stopwords in the secret;
AND/OR conditions), is not a finding. What coffer leaves out: path conditions (coffer scans
entries, not files: a rule or allowlist that needs a path is applied as if the path did not
match, except that rules limited to a file type run on every text, since a note quotes such
files), the ``gitleaks:allow`` comment (a text written by someone else must not switch the
gate off), and decoding of base64/hex segments.

Each rule is compiled the first time one of its keywords is seen: all 221 together take
~150 ms to compile, while ordinary prose wakes a handful.
"""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

RULES_FILE = Path(__file__).with_name("gitleaks_rules.json")

# generic-api-key wakes on words every coding note has ("key", "token", "api") and takes
# ~35 ms to compile. Its regex puts an assignment operator within 23 characters after the
# keyword (``(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)``), so a text
# with no ``= > : | ,`` that close to any of its keywords cannot match: skip it unbuilt.
# tests/secrets/test_gitleaks_rules.py checks that the vendored regex still has that shape.
OPERATOR_NEAR_KEYWORD = {"generic-api-key": 24}
_OPERATORS = "=>:|,"


class _Allowlist:
    __slots__ = ("_regex", "pattern", "require_all", "stopwords", "target", "uses_paths")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.target: str = raw["target"]
        self.require_all: bool = raw["and"]
        self.pattern: str | None = raw["regex"]
        self.stopwords: tuple[str, ...] = tuple(raw["stopwords"])
        self.uses_paths: bool = raw["paths"]
        self._regex: re.Pattern[str] | None = None

    def _regex_allows(self, target: str) -> bool:
        if self.pattern is None or not target:
            return False
        if self._regex is None:
            self._regex = re.compile(self.pattern, re.ASCII)
        return self._regex.search(target) is not None

    def allows(self, secret: str, match: str, line: str) -> bool:
        target = {"match": match, "line": line}.get(self.target, secret)
        by_regex = self._regex_allows(target)
        lowered = secret.lower()
        by_word = bool(secret) and any(w in lowered for w in self.stopwords)
        if not self.require_all:
            return by_regex or by_word
        checks = []
        if self.uses_paths:
            checks.append(False)  # no path here: an AND with a path condition never holds
        if self.pattern is not None:
            checks.append(by_regex)
        if self.stopwords:
            checks.append(by_word)
        return bool(checks) and all(checks)


class Rule:
    """One gitleaks rule; its regex is compiled on first use."""

    __slots__ = ("_compiled", "allowlists", "entropy", "group", "id", "keywords", "pattern")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.id: str = raw["id"]
        self.pattern: str = raw["regex"]
        self.keywords: tuple[str, ...] = tuple(raw["keywords"])
        self.entropy: float = raw["entropy"]
        self.group: int = raw["group"]
        self.allowlists = tuple(_Allowlist(a) for a in raw["allowlists"])
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            # RE2's \w, \d, \s and \b are ASCII; so is its (?i) for these patterns.
            self._compiled = re.compile(self.pattern, re.ASCII)
        return self._compiled

    def _operator_near_keyword(self, text: str, reach: int) -> bool:
        lowered = text.lower()
        for keyword in self.keywords:
            at = lowered.find(keyword)
            while at >= 0:
                after = lowered[at + len(keyword) : at + len(keyword) + reach]
                if any(op in after for op in _OPERATORS):
                    return True
                at = lowered.find(keyword, at + 1)
        return False

    def secrets(self, text: str, global_allow: _Allowlist) -> Iterator[tuple[int, int]]:
        """Spans of the secrets this rule finds in ``text``."""
        reach = OPERATOR_NEAR_KEYWORD.get(self.id)
        if reach is not None and not self._operator_near_keyword(text, reach):
            return
        for match in self.compiled.finditer(text):
            whole = match[0]
            stripped = whole.strip("\n")  # gitleaks trims line breaks off the match
            start = match.start() + (len(whole) - len(whole.lstrip("\n")))
            span = (start, start + len(stripped))
            if match.re.groups:
                picked = self._group(match)
                if picked is not None:
                    span = picked
            secret = text[span[0] : span[1]]
            if self.entropy and shannon_entropy(secret) <= self.entropy:
                continue
            if self.id in OPERATOR_NEAR_KEYWORD and _an_id(secret, stripped):
                continue
            line = _line(text, match.start(), match.end())
            if global_allow.allows(secret, stripped, line):
                continue
            if any(a.allows(secret, stripped, line) for a in self.allowlists):
                continue
            yield span

    def _group(self, match: re.Match[str]) -> tuple[int, int] | None:
        if self.group:
            return match.span(self.group) if match[self.group] is not None else None
        for index in range(1, (match.re.groups or 0) + 1):
            if match[index]:
                return match.span(index)
        return None


def _line(text: str, start: int, end: int) -> str:
    """The whole lines a match spans (the target of a ``line`` allowlist)."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    return text[first : len(text) if last < 0 else last]


def shannon_entropy(data: str) -> float:
    """Bits per byte of ``data``, as gitleaks computes it (over its UTF-8 length)."""
    if not data:
        return 0.0
    size = len(data.encode("utf-8", "surrogatepass"))
    counts: dict[str, int] = {}
    for char in data:
        counts[char] = counts.get(char, 0) + 1
    return -sum(c / size * math.log2(c / size) for c in counts.values())


class RuleSet:
    """The rules of one ``gitleaks_rules.json``, indexed by keyword."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.rules = tuple(Rule(raw) for raw in document["rules"])
        self.allowlist = _Allowlist(document["allowlist"])
        self.keywords = tuple(sorted({k for rule in self.rules for k in rule.keywords}))
        self._always = tuple(rule for rule in self.rules if not rule.keywords)

    def candidates(self, text: str, among: Iterable[Rule] | None = None) -> Iterator[Rule]:
        """The rules (of ``among``, by default all) that ``text`` wakes: those without
        keywords, and those one of whose keywords it holds, lowercased (gitleaks' prefilter)."""
        lowered = text.lower()
        if among is None:
            present = {k for k in self.keywords if k in lowered}
            yield from self._always
            if not present:
                return
            for rule in self.rules:
                if rule.keywords and not present.isdisjoint(rule.keywords):
                    yield rule
            return
        for rule in among:
            if not rule.keywords or any(k in lowered for k in rule.keywords):
                yield rule

    def findings(
        self, text: str, among: Iterable[Rule] | None = None
    ) -> list[tuple[str, int, int]]:
        """``(rule id, start, end)`` of each secret in ``text``, rule by rule."""
        found: list[tuple[str, int, int]] = []
        for rule in self.candidates(text, among):
            found.extend((rule.id, s, e) for s, e in rule.secrets(text, self.allowlist))
        return found

    def labels(self, text: str) -> list[str]:
        """The ids of the rules that find a secret in ``text``, in rule order."""
        return [
            rule.id
            for rule in self.candidates(text)
            if next(rule.secrets(text, self.allowlist), None) is not None
        ]


def _an_id(secret: str, match: str) -> bool:
    """A rule that names no service found a whole UUID, ULID or git object id next to a
    word like ``key`` or ``token``: an identifier, unless the text says password, secret or
    credentials. (gitleaks' own fixtures count ``api_token: <uuid>`` as a secret; coffer, whose
    notes are full of ids, does not: docs/adr/0042.)"""
    from coffer.secrets.patterns import ID_SHAPE

    lowered = match.lower()
    if any(word in lowered for word in ("passw", "secret", "credential", "creds")):
        return False
    return re.fullmatch(f"(?i:{ID_SHAPE})", secret, re.ASCII) is not None


@functools.cache
def default_rules() -> RuleSet:
    """gitleaks' default rule set, loaded once per process."""
    return RuleSet(json.loads(RULES_FILE.read_text(encoding="utf-8")))
