"""Two entries about the same subject that say different things ("we use pnpm" against "run
npm install"), found without a model: each entry is read for the *choices* it states, and
two entries contradict when they choose differently for the same subject.

A choice is one of three shapes, each cheap to find and to compare:

- an alternative from a known set (:data:`ALTERNATIVES`: package managers, test runners,
  formatters, default branches …): an entry that names exactly one member of a set, not
  negated, chooses it; one that negates a member ("never use npm") rules it out;
- a number in a slot (``port 8080``, ``python 3.12``, ``node 20``, ``timeout 30``), the slot
  keyed by the words next to it, so two ports of two different services do not collide;
- a polar rule (``always squash merges`` / ``never squash merges``), keyed by its first
  content words.

Candidate pairs come from an index on the subject, so a store of 10,000 entries is never
compared pair by pair. tests/store/test_contradictions.py measures precision and recall on
a labelled set (tests/data/contradictions.json).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from coffer.store.entry import Entry

# Each set: the members, by the words that name them (the first is how a finding says it).
ALTERNATIVES: dict[str, tuple[tuple[str, ...], ...]] = {
    "JavaScript package manager": (
        ("npm", "npm install", "npm ci", "npm run"),
        ("pnpm",),
        ("yarn",),
        ("bun", "bun install"),
    ),
    "Python package manager": (
        ("pip", "pip install"),
        ("poetry",),
        ("uv", "uv pip", "uv sync"),
        ("pipenv",),
        ("conda",),
    ),
    "Python test runner": (("pytest",), ("unittest",), ("nose", "nose2")),
    "JavaScript test runner": (("jest",), ("vitest",), ("mocha",)),
    "Python formatter": (("black",), ("ruff format",), ("yapf",), ("autopep8",)),
    "JavaScript formatter": (("prettier",), ("biome",), ("dprint",)),
    "default branch": (
        ("main branch", "branch main", "to main"),
        ("master branch", "branch master", "to master"),
    ),
    "indentation": (("tabs", "tab indentation"), ("spaces", "space indentation")),
    "quote style": (("single quotes",), ("double quotes",)),
    "database": (
        ("postgres", "postgresql"),
        ("mysql", "mariadb"),
        ("sqlite",),
        ("mongodb", "mongo"),
    ),
    "CI": (("github actions",), ("gitlab ci",), ("circleci",), ("jenkins",)),
    "container runtime": (("docker",), ("podman",)),
    "merge strategy": (
        ("squash merge", "squash merges", "squash and merge"),
        ("rebase merge", "rebase and merge"),
        ("merge commit", "merge commits"),
    ),
}
_NEGATION = re.compile(
    r"\b(?:not|never|no longer|don't|do not|doesn't|does not|avoid|instead of|rather than|"
    r"stop using|not use|drop(?:ped)?|replaced?|migrated? (?:away )?from|deprecated)\b"
    r"(?:\W+\w+){0,2}\W*$"
)
# Every name of every member, longest first so "npm install" wins over "npm": one pass per text.
_MEMBER = {
    name: (subject, names[0])
    for subject, members in ALTERNATIVES.items()
    for names in members
    for name in names
}
_MENTION = re.compile(
    r"(?<![\w-])(?:"
    + "|".join(re.escape(n) for n in sorted(_MEMBER, key=len, reverse=True))
    + r")(?![\w-])"
)
# What a mention says after it: "black is gone", "yarn was replaced".
_NEGATED_AFTER = re.compile(
    r"^\W{0,3}(?:is|was|has been|got)?\s*(?:gone|removed|dropped|deprecated|replaced|retired)\b"
)
_SLOT = re.compile(
    r"\b(port|python|node|node\.js|java|go|ruby|php|timeout|retries|replicas|workers|"
    r"version|line length|line-length)\s*(?:is|=|:|of|to)?\s*v?(\d+(?:\.\d+)*)\b"
    r"|\b(\d+)\s+(replicas|workers|retries)\b"
)
_POLAR = re.compile(r"\b(always|never|must not|must|do not|don't)\s+([^.;\n]{1,40})")
_RUNTIMES = frozenset({"python", "node", "java", "go", "ruby", "php", "line length"})
# Words that say what a number does, not what it belongs to ("the API *listens* on port").
_GENERIC_WORDS = (
    "listens listen runs serves binds starts started set default defaults keep max maximum "
    "minimum min seconds secs ms required need needs target targets scale the"
)
_GENERIC = frozenset(_GENERIC_WORDS.split())
_STOP_WORDS = (
    "a an the and or but of to in on at by for from with as is are be we our you your it its "
    "this that these those run runs use uses using should must can will"
)
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[a-z0-9][a-z0-9.+-]*")


class Contradiction(NamedTuple):
    """Two entries choosing differently for one subject, and what each says."""

    first: Entry
    second: Entry
    subject: str
    says: tuple[str, str]

    def summary(self) -> str:
        return (
            f"{self.subject}: {self.first.name} says {self.says[0]!r}, "
            f"{self.second.name} says {self.says[1]!r}"
        )


class _Choices(NamedTuple):
    alternatives: dict[str, tuple[set[str], set[str]]]  # set -> (chosen, ruled out)
    # "port" -> ("8080", the words before it: {"api"}); two ports compare when those meet
    slots: dict[str, tuple[str, frozenset[str]]]
    rules: dict[str, bool]  # "squash merges" -> True (always) / False (never)


def _text(entry: Entry) -> str:
    return f"{entry.description}\n{entry.body}".lower()


def _content(words: Iterable[str]) -> list[str]:
    return [w for w in words if w not in _STOP]


def choices(entry: Entry) -> _Choices:
    """What ``entry`` chooses, in the three shapes."""
    text = _text(entry)
    alternatives: dict[str, tuple[set[str], set[str]]] = {}
    for match in _MENTION.finditer(text):
        subject, member = _MEMBER[match.group(0)]
        before = text[max(0, match.start() - 40) : match.start()]
        after = text[match.end() : match.end() + 30]
        negated = _NEGATION.search(before) or _NEGATED_AFTER.match(after)
        chosen, ruled_out = alternatives.setdefault(subject, (set(), set()))
        (ruled_out if negated else chosen).add(member)
    for chosen, ruled_out in alternatives.values():
        chosen -= ruled_out
    slots: dict[str, tuple[str, frozenset[str]]] = {}
    for match in _SLOT.finditer(text):
        key = (match.group(1) or match.group(4)).replace("-", " ").replace("node.js", "node")
        value = match.group(2) or match.group(3)
        sentence = text[: match.start()].rsplit(".", 1)[-1].rsplit("\n", 1)[-1]
        context = frozenset(_content(_WORD.findall(sentence))) - _GENERIC - {key}
        slots[key] = (value, context)
    rules: dict[str, bool] = {}
    for match in _POLAR.finditer(text):
        rest = " ".join(_content(_WORD.findall(match.group(2)))[:2])
        if rest:
            rules[rest] = match.group(1) in ("always", "must")
    return _Choices(alternatives, slots, rules)


def _alternative(subject: str, a: _Choices, b: _Choices) -> tuple[str, str] | None:
    (chose_a, out_a), (chose_b, out_b) = a.alternatives[subject], b.alternatives[subject]
    if len(chose_a) == 1 and len(chose_b) == 1 and chose_a != chose_b:
        return next(iter(chose_a)), next(iter(chose_b))
    if chose_a & out_b:
        return next(iter(chose_a & out_b)), f"not {next(iter(chose_a & out_b))}"
    if chose_b & out_a:
        return f"not {next(iter(chose_b & out_a))}", next(iter(chose_b & out_a))
    return None


def find(entries: Sequence[Entry]) -> list[Contradiction]:
    """Every pair of ``entries`` that chooses differently for one subject (once per pair)."""
    read = [choices(e) for e in entries]
    by_subject: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(read):
        for key in [*(f"a:{s}" for s in c.alternatives), *(f"s:{s}" for s in c.slots)]:
            by_subject[key].append(i)
        for key in c.rules:
            by_subject[f"r:{key}"].append(i)
    out: dict[tuple[int, int], Contradiction] = {}
    for key, members in by_subject.items():
        kind, subject = key[:1], key[2:]
        for n, i in enumerate(members):
            for j in members[n + 1 :]:
                if (i, j) in out or entries[i].body.strip() == entries[j].body.strip():
                    continue
                says = _differs(kind, subject, read[i], read[j])
                if says is not None:
                    out[(i, j)] = Contradiction(entries[i], entries[j], subject, says)
    return list(out.values())


def _differs(kind: str, subject: str, a: _Choices, b: _Choices) -> tuple[str, str] | None:
    if kind == "a":
        return _alternative(subject, a, b)
    if kind == "s":
        (x, near_x), (y, near_y) = a.slots[subject], b.slots[subject]
        # A port (or timeout) of what: both name the same thing, or neither names anything.
        # A runtime's version is the project's, whatever the sentence says around it.
        same_thing = subject in _RUNTIMES or bool(near_x & near_y) or not (near_x or near_y)
        return (f"{subject} {x}", f"{subject} {y}") if x != y and same_thing else None
    x_rule, y_rule = a.rules[subject], b.rules[subject]
    if x_rule == y_rule:
        return None
    return tuple(("always " if r else "never ") + subject for r in (x_rule, y_rule))  # type: ignore[return-value]
