"""gitleaks' default rules as coffer runs them (issue 22.7, docs/adr/0042).

The fixtures are gitleaks' own: the true and false positives its rule generator validates
each rule against (cmd/generate/config/rules/*.go), extracted by tests/secrets/gitleaks_extract.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from pathlib import Path

import pytest

from coffer.secrets import find_secrets, redact
from coffer.secrets import gitleaks_build as build
from coffer.secrets.gitleaks import OPERATOR_NEAR_KEYWORD, RuleSet, default_rules
from coffer.secrets.patterns import ID_SHAPE
from coffer.store.ulid import new_id
from coffer.vault.ids import generate_id, now_timestamp

FIXTURES = json.loads((Path(__file__).parents[1] / "data" / "gitleaks_fixtures.json").read_text())
RULES = default_rules()
BY_ID = {rule.id: rule for rule in RULES.rules}
# Rules limited to a file type: coffer has no path and runs them on every text, so a false
# positive gitleaks rejects only by its path (a .php or .tf example in another file) is
# out of scope here.
PATH_RULES = {r["id"] for r in build.build(build.TOML.read_bytes())["rules"] if r["path"]}


def _values(texts: list[str] | dict[str, str]) -> list[str]:
    return list(texts.values()) if isinstance(texts, dict) else texts


def test_the_json_is_the_vendored_toml_translated() -> None:
    assert build.JSON.read_text(encoding="utf-8") == build.render(build.TOML.read_bytes())


def test_every_rule_and_allowlist_compiles_in_python() -> None:
    document = build.build(build.TOML.read_bytes())
    assert document["rules_in_source"] == 222
    assert len(document["rules"]) == 221  # pkcs12-file matches file names only
    for rule in RULES.rules:
        assert rule.compiled.groups >= 0, rule.id
        for allow in rule.allowlists:
            assert allow.pattern is None or re.compile(allow.pattern, re.ASCII)
    assert RULES.allowlist.pattern is not None
    re.compile(RULES.allowlist.pattern, re.ASCII)


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"\b(p8e-(?i)[a-z0-9]{32})", r"\b(p8e-(?i:[a-z0-9]{32}))"),
        (r"x(?i)b|c", r"x(?i:b)|(?i:c)"),
        (r"(?i)abc", r"(?i)abc"),
        (r"a(?:\z|\s)", r"a(?:\Z|\s)"),
        (r"pat[[:alnum:]]{14}", r"pat[a-zA-Z0-9]{14}"),
        (r"[^]]+", r"[^\]]+"),
        (r"[[a]", r"[\[a]"),
    ],
)
def test_re2_syntax_is_translated(go: str, python: str) -> None:
    assert build.translate(go) == python
    re.compile(python)


def test_gitleaks_own_fixtures_pass() -> None:
    rules = FIXTURES["rules"]
    missed, flagged, tps, fps, id_exceptions = [], [], 0, 0, 0
    for rule_id, fixture in rules.items():
        rule = BY_ID.get(rule_id)
        if rule is None:
            continue  # a rule gitleaks defines but leaves out of its default config
        for text in _values(fixture["tps"]):
            tps += 1
            if not RULES.findings(text, [rule]):
                missed.append((rule_id, text[:80]))
        if rule_id in OPERATOR_NEAR_KEYWORD:
            # Where coffer parts from gitleaks: an id after `token` or `key` is an id.
            ids = [m for m in missed if m[0] == rule_id and _holds_id(m[1])]
            id_exceptions += len(ids)
            missed = [m for m in missed if m not in ids]
        if rule_id in PATH_RULES:
            continue
        for text in _values(fixture["fps"]):
            fps += 1
            if RULES.findings(text, [rule]):
                flagged.append((rule_id, text[:80]))
    assert not missed
    assert not flagged
    covered = set(rules) & set(BY_ID)
    # Counts quoted in docs/adr/0042: gitleaks 8.25+ (b58d3f10), 221 text rules.
    assert (len(covered), tps, fps) == (217, 6014, 328)
    assert id_exceptions == ID_EXCEPTIONS


# gitleaks' generic-api-key positives whose secret is a UUID or a git object id after a
# word like `token` (docs/adr/0042): coffer takes those for ids.
ID_EXCEPTIONS = 1  # `api_token", "dafa7817-e246-…` (a UUID)


def _holds_id(text: str) -> bool:
    return re.search(f"(?i:{ID_SHAPE})", text) is not None


def test_every_true_positive_is_refused_by_the_whole_gate() -> None:
    for rule_id, fixture in FIXTURES["rules"].items():
        if rule_id not in BY_ID:
            continue
        for text in _values(fixture["tps"]):
            if rule_id in OPERATOR_NEAR_KEYWORD and _holds_id(text) and not find_secrets(text):
                continue  # an id, as coffer reads it (ID_EXCEPTIONS)
            assert find_secrets(text), (rule_id, text[:80])


def _ordinary_ids() -> list[str]:
    ids = []
    for n in range(40):
        seed = str(n).encode()
        ids += [
            hashlib.sha1(seed).hexdigest(),  # a commit SHA
            hashlib.sha256(seed).hexdigest(),  # a content hash
            str(uuid.uuid4()),
            uuid.uuid4().hex,
            new_id(),  # coffer's ULIDs
            generate_id(now_timestamp()),  # vault memory ids
        ]
    return ids


@pytest.mark.parametrize(
    "template",
    [
        "{}",
        "Fixed in commit {} on main.",
        "id: {}",
        "See entry {} (and `git show {}`).",
        "request_id={} trace {}",
        "The key {} names the entry.",
        "token: see {}",
    ],
)
def test_no_false_positives_on_shas_uuids_ulids_and_coffer_ids(template: str) -> None:
    for value in _ordinary_ids():
        text = template.format(value, value)
        assert find_secrets(text) == [], text
        assert redact(text) == text


@pytest.mark.parametrize(
    "template", ["api_key_id: {}", "access: {}", "key: {}", "session_token_id={}"]
)
def test_an_id_after_a_word_that_also_names_ids_is_no_secret(template: str) -> None:
    # A bare 32-hex value is left out: many services' keys have that shape.
    for value in _ordinary_ids():
        if len(value) != 32:
            assert find_secrets(template.format(value)) == [], template.format(value)


def test_an_id_after_password_or_secret_is_still_refused() -> None:
    for value in _ordinary_ids()[:6]:
        assert find_secrets(f"password: {value}") != []
        assert find_secrets(f"client_secret = {value}") != []


def test_the_generic_rule_still_needs_an_operator_near_its_keyword() -> None:
    # coffer.secrets.gitleaks skips generic-api-key unless "= > : | ," follows one of its
    # keywords within 24 characters; that holds only for this shape of its regex.
    rule = BY_ID["generic-api-key"]
    keywords = "access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token"
    assert rule.pattern.startswith(
        rf"(?i)[\w.-]{{0,50}}?(?:{keywords})(?:[ \t\w.-]{{0,20}})" + "[\\s'\"]{0,3}"
        r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"
    )
    assert set(rule.keywords) >= {"access", "auth", "api", "credential", "creds", "key"}
    assert set(rule.keywords) >= {"passwd", "password", "secret", "token"}
    fresh = RuleSet(json.loads(build.JSON.read_text(encoding="utf-8")))
    generic = next(r for r in fresh.rules if r.id == "generic-api-key")
    assert not list(generic.secrets("The API key lives in the vault.", fresh.allowlist))
    assert generic._compiled is None  # skipped, never built


def test_rules_wake_only_on_their_keywords_and_cost_stays_bounded() -> None:
    fresh = RuleSet(json.loads(build.JSON.read_text(encoding="utf-8")))
    prose = "We deploy with make release; lint with ruff. " * 700  # ~32 KiB
    started = time.perf_counter()
    assert fresh.labels(prose) == []
    woken = [rule.id for rule in fresh.rules if rule._compiled is not None]
    assert len(woken) <= 5, woken
    assert time.perf_counter() - started < 1.0
    # Every rule's keywords at once, in a 64 KiB text: each rule runs, all in bounded time.
    every = " ".join(fresh.keywords) + "\n"
    hostile = (every * (64 * 1024 // len(every) + 1))[: 64 * 1024]
    started = time.perf_counter()
    fresh.labels(hostile)
    assert time.perf_counter() - started < 20.0
