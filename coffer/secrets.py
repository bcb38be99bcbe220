"""The secret gate, shared by the canonical store and the vault (docs/adr/0018).

``REFERENCE_PATTERNS`` are the ``ecc.memory.v1`` patterns verbatim (the vault's read side must
match the reference byte for byte, so they are compiled with ``re.ASCII`` exactly as
docs/vault-format.md §5.1 says). ``STORE_PATTERNS`` is the superset every coffer write and every
render goes through: the families of gitleaks' default rules and detect-secrets' default plugins
that have a recognisable shape (ADR 0018 lists what is matched and what is left out, and why). A
false positive costs a rephrase; a false negative puts a live credential into a file an agent
may commit.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

SecretPattern = tuple[str, re.Pattern[str]]

_A = re.ASCII
_AI = re.ASCII | re.IGNORECASE

REFERENCE_PATTERNS: tuple[SecretPattern, ...] = (
    ("provider API key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}\b", _AI)),
    ("Stripe key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b", _A)),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{20,}\b", _A)),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{20,}\b", _A)),
    ("GitHub token", re.compile(r"\bgh[pors]_[A-Za-z0-9]{16,}\b", _A)),
    ("GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{16,}\b", _A)),
    ("Google API key", re.compile(r"\bAIza[A-Za-z0-9_-]{16,}\b", _A)),
    ("Slack token", re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b", _A)),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", _A)),
    ("private key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----", _A)),
)

# A keyword naming a credential, then an assignment (``=``, ``:``, ``:=``, ``=>``, a JSON or
# YAML key), then a value that is not a placeholder (``$VAR``, ``{{x}}``, ``<token>``,
# ``os.environ[...]``, ``***``) and looks like a credential rather than a word of prose: it
# has a digit or a symbol, or is at least 12 characters long. ``password=hunter2`` and
# ``DB_PASSWORD: s3cret!`` are refused; ``password: ask Alice`` is not.
_KEYWORD = (
    r"(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key"
    r"|private[_-]?key|signing[_-]?key|encryption[_-]?key|credentials?|\bcreds)"
)
_VALUE = (
    r"(?!(?:true|false|null|none|nil|undefined|os\.|process\.|env\b|getenv|secrets\.|xxx"
    r"|\*\*\*|\.\.\.|<|\$|%|\{|/|~/|\./|https?://|\d+(?:[\s\"'`,;]|$)))"
    r"(?=[^\s\"'`,;]{0,200}?[0-9!@#^&*+/=~]|[^\s\"'`,;]{12})"
    r"[^\s\"'`,;]{6,}"
)
_ASSIGNED_SECRET = re.compile(
    # Bounded gaps: _assignment_near_keyword relies on the operator being within 40
    # characters of the keyword.
    _KEYWORD + r"[\w.-]{0,20}?[\"']?[ \t]{0,10}(?:=>|:=|\?=|=|:)[ \t]*[\"'`]?" + _VALUE,
    _AI,
)

# (label, pattern) beyond the reference. Shapes follow gitleaks' default config and
# detect-secrets' plugins; labels reuse the reference's where the family is the same.
_EXTRA_PATTERNS: tuple[SecretPattern, ...] = (
    # Provider keys with a fixed prefix.
    # (Anthropic's and OpenAI's ``sk-…`` keys are the reference's first pattern.)
    ("provider API key", re.compile(r"\bpplx-[A-Za-z0-9]{20}", _A)),
    ("Stripe key", re.compile(r"\b(?:sk|rk|pk)_(?:test|live|prod)_[A-Za-z0-9]{10,}", _A)),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{20,}", _A)),
    ("Hugging Face token", re.compile(r"\b(?:hf_|api_org_)[A-Za-z0-9]{20,}", _A)),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}|\bgithub_pat_\w{16,}", _A)),
    (
        "GitLab token",
        re.compile(
            r"\b(?:glpat|glptt|glrt|gldt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)"
            r"-[\w-]{20,}|\bGR1348941[\w-]{20}|_gitlab_session=[0-9a-z]{32}",
            _A,
        ),
    ),
    ("Google API key", re.compile(r"\bAIza[\w-]{16,}", _A)),
    (
        "Slack token",
        re.compile(
            r"\bxox[a-z]-[A-Za-z0-9-]{10,}|\bxoxe\.xox[a-z]-|\bxapp-\d-[A-Za-z0-9-]{10,}"
            r"|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
            _A,
        ),
    ),
    ("AWS access key", re.compile(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", _A)),
    (
        "AWS secret access key",
        re.compile(
            r"aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?[=:\"'\s]"
            r"[\"']?[0-9a-zA-Z/+]{40}(?![0-9a-zA-Z/+])",
            _AI,
        ),
    ),
    ("AWS Bedrock key", re.compile(r"\bABSK[A-Za-z0-9+/]{100,}|bedrock-api-key-YmVkcm9", _A)),
    (
        "private key",
        re.compile(
            r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d"
            r"|-----BEGIN SSH2 ENCRYPTED PRIVATE KEY-----",
            _AI,
        ),
    ),
    (
        "JSON Web Token",
        re.compile(
            r"\beyJ[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{2,}={0,2}\.[A-Za-z0-9_\-+/=]*", _A
        ),
    ),
    ("JSON Web Token", re.compile(r"\bZXlK[A-Za-z0-9+/]{40,}", _A)),
    ("bearer token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*", _A)),
    (
        "authorization header",
        re.compile(
            r"authorization[\"']?\s*[:=]\s*[\"']?(?:basic|token)\s+[A-Za-z0-9._~+/-]{8,}", _AI
        ),
    ),
    (
        "password in URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s:@]{3,}@", _AI),
    ),
    ("password or secret assignment", _ASSIGNED_SECRET),
    (
        "Azure storage key",
        re.compile(r"AccountKey\s*=\s*[A-Za-z0-9+/=]{40,}|\b[\w~.]{3}\dQ~[\w~.-]{31,34}", _A),
    ),
    ("Twilio key", re.compile(r"\bSK[0-9a-fA-F]{32}\b", _A)),
    ("SendGrid key", re.compile(r"\bSG\.[\w-]{16,32}\.[\w-]{16,64}", _A)),
    ("Mailchimp key", re.compile(r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", _A)),
    ("Mailgun key", re.compile(r"\bkey-[0-9a-f]{32}\b", _A)),
    ("Square token", re.compile(r"\b(?:sq0atp|sq0csp)-[\w-]{22,}|\bEAAA[\w-]{60}", _A)),
    ("Discord bot token", re.compile(r"\b[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,}", _A)),
    ("Telegram bot token", re.compile(r"\b\d{8,10}:AA[\w-]{33}\b", _A)),
    ("PyPI token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[\w-]{50,}", _A)),
    ("Artifactory token", re.compile(r"\bAKCp[A-Za-z0-9]{60,}|\bcmVmd[A-Za-z0-9]{59}\b", _A)),
    ("Vault token", re.compile(r"\bhv[sb]\.[\w-]{90,}", _A)),
    (
        "service token",
        re.compile(
            r"\b(?:dop_v1_|doo_v1_|dor_v1_)[a-f0-9]{64}|\bdp\.pt\.[A-Za-z0-9]{43}"
            r"|\bdt0c01\.[A-Za-z0-9]{24}\.|\bdapi[a-f0-9]{32}\b|\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
            r"|\blin_api_[A-Za-z0-9]{40}|\bntn_[0-9]{11}[A-Za-z0-9]{35}|\bpnu_[A-Za-z0-9]{36}"
            r"|\bpul-[a-f0-9]{40}|\brubygems_[a-f0-9]{48}|\bsntry[su]_[A-Za-z0-9+/=_]{40,}"
            r"|\bpscale_(?:tkn|pw|oauth)_[\w=.-]{32,}|\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}"
            r"|\bxkeysib-[a-f0-9]{64}|\bNRAK-[A-Z0-9]{27}|\bfo1_[\w-]{43}|\bglc_[A-Za-z0-9+/]{32,}"
            r"|\bglsa_[A-Za-z0-9]{32}_|\beyJrIjoi[A-Za-z0-9]{70,}|\b[a-z0-9]{14}\.atlasv1\."
            r"|\bHRKU-AA[\w-]{58}|\bops_eyJ[A-Za-z0-9+/]{100,}|\bAGE-SECRET-KEY-1[0-9A-Z]{58}"
            r"|\bA3-[A-Z0-9]{6}-[A-Z0-9]{11}-[A-Z0-9]{5}-|\bLTAI[A-Za-z0-9]{20}\b"
            r"|\bsha256~[\w-]{43}|\brdme_[a-z0-9]{70}|\bico-[A-Za-z0-9]{32}\b"
            r"|\bEZ[AT]K[A-Za-z0-9]{54}|\bFLW(?:SECK|PUBK)_TEST-|\bduffel_(?:test|live)_"
            r"|\bshippo_(?:live|test)_[a-fA-F0-9]{40}|\bsm_[aps]at_[A-Za-z0-9]{16}"
            r"|\bCLOJARS_[A-Za-z0-9]{60}|\bsgp_[a-fA-F0-9]{16}_[a-fA-F0-9]{40}",
            _A,
        ),
    ),
)

STORE_PATTERNS: tuple[SecretPattern, ...] = (*REFERENCE_PATTERNS, *_EXTRA_PATTERNS)


def _literals() -> dict[re.Pattern[str], frozenset[str]]:
    """For each pattern, lowercase literals one of which every match contains.

    A cheap ``in`` test over the lowercased text skips most patterns for ordinary prose
    (a 32 KiB entry is checked in a few milliseconds instead of tens). Lowercasing only adds
    candidates (ASCII letters map to themselves), so the filter never hides a match.
    """
    table = (
        ("sk-",),
        ("_live_",),
        ("npm_",),
        ("hf_",),
        ("gh",),
        ("github_pat_",),
        ("aiza",),
        ("xox",),
        ("akia", "asia"),
        ("-----begin",),
        ("pplx-",),
        ("_test_", "_live_", "_prod_"),
        ("npm_",),
        ("hf_", "api_org_"),
        ("gh", "github_pat_"),
        ("gl", "gr1348941", "_gitlab_session"),
        ("aiza",),
        ("xox", "xapp-", "hooks.slack.com"),
        ("a3t", "akia", "asia", "abia", "acca"),
        ("aws",),
        ("absk", "bedrock-api-key"),
        ("-----begin", "putty-user-key-file"),
        ("eyj",),
        ("zxlk",),
        ("bearer",),
        ("authorization",),
        ("://",),
        ("passw", "secret", "token", "key", "credential", "creds"),
        ("accountkey", "q~"),
        ("sk",),
        ("sg.",),
        ("-us",),
        ("key-",),
        ("sq0", "eaaa"),
        (),
        (":aa",),
        ("pypi-",),
        ("akcp", "cmvmd"),
        ("hvs.", "hvb."),
        (
            *("dop_v1_", "doo_v1_", "dor_v1_", "dp.pt.", "dt0c01.", "dapi", "shp", "lin_api_"),
            *("ntn_", "pnu_", "pul-", "rubygems_", "sntry", "pscale_", "pmak-", "xkeysib-"),
            *("nrak-", "fo1_", "glc_", "glsa_", "eyjrijoi", ".atlasv1.", "hrku-", "ops_eyj"),
            *("age-secret-key-1", "a3-", "ltai", "sha256~", "rdme_", "ico-", "ezak", "eztk"),
            *("flw", "duffel_", "shippo_", "sm_", "clojars_", "sgp_"),
        ),
    )
    assert len(table) == len(STORE_PATTERNS)
    return {
        pattern: frozenset(literals)
        for (_, pattern), literals in zip(STORE_PATTERNS, table, strict=True)
    }


_LITERALS = _literals()
_ALL_LITERALS = tuple(sorted(set().union(*_LITERALS.values())))


def find_secrets(text: str, patterns: Sequence[SecretPattern] = STORE_PATTERNS) -> list[str]:
    """Labels of the secret shapes found in ``text``, in pattern order, without duplicates.

    Only labels come back: callers must never echo the matched text.
    """
    if patterns is STORE_PATTERNS and len(text) <= _CACHED_LENGTH:
        return list(_store_labels(text))
    return _find(text, patterns)


# One projection gates each entry twice (its block, then MEMORY.md): remember short texts.
_CACHED_LENGTH = 8192


@functools.lru_cache(maxsize=2048)
def _store_labels(text: str) -> tuple[str, ...]:
    return tuple(_find(text, STORE_PATTERNS))


def _find(text: str, patterns: Sequence[SecretPattern]) -> list[str]:
    texts = [text]
    if _INVISIBLE.search(text):
        # A token split by a NUL, a zero-width or bidi character or a lone surrogate reads
        # whole to an agent, and renderers drop some of these: scan it with them removed too.
        texts.append(visible(text))
    return find_secrets_any(texts, patterns)


def find_secrets_any(
    texts: Iterable[str], patterns: Sequence[SecretPattern] = STORE_PATTERNS
) -> list[str]:
    """Labels found in any of ``texts`` (each scanned on its own), in pattern order."""
    listed = []
    for text in texts:
        lowered = text.lower()
        # Which literals occur, once per text (substring tests run in C); each pattern then
        # costs one set operation unless one of its literals is there.
        listed.append((text, {lit for lit in _ALL_LITERALS if lit in lowered}))
    labels: list[str] = []
    for label, pattern in patterns:
        if label in labels:
            continue
        literals = _LITERALS.get(pattern)
        for text, present in listed:
            if literals and literals.isdisjoint(present):
                continue
            if pattern is _ASSIGNED_SECRET and not _assignment_near_keyword(text):
                continue
            if pattern.search(text):
                labels.append(label)
                break
    return labels


_ASSIGN_WINDOW = re.compile(r"[=:]")


def _assignment_near_keyword(text: str) -> bool:
    """Whether some credential keyword is followed, within 40 characters, by ``=`` or ``:``.

    The keyword pattern has no literal prefix, so ``re`` tries it at every position; this
    finds the few places where it can match with plain substring searches first.
    """
    lowered = text.lower()
    for keyword in ("passw", "secret", "token", "key", "credential", "creds"):
        at = lowered.find(keyword)
        while at >= 0:
            if _ASSIGN_WINDOW.search(lowered, at, at + len(keyword) + 40):
                return True
            at = lowered.find(keyword, at + 1)
    return False


# C0/C1 controls other than TAB/LF/CR, format characters (zero-width, bidi, soft hyphen,
# BOM) and surrogates: characters nobody sees.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def visible(text: str) -> str:
    """``text`` without the characters nobody sees (see ``_INVISIBLE``) and other
    format characters (Unicode category Cf)."""
    text = _INVISIBLE.sub("", text)
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def redact(text: str, patterns: Sequence[SecretPattern] = STORE_PATTERNS) -> str:
    """``text`` with every secret-shaped span replaced by ``[redacted <label>]``.

    For messages that must name something (a file whose name holds a token): the reader can
    still tell which file is meant, and the credential is never printed or logged.
    """
    for label, pattern in patterns:
        text = pattern.sub(f"[redacted {label}]", text)
    return text
