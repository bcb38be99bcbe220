"""The secret shapes the gate looks for (docs/adr/0018), compiled on first use.

``REFERENCE_PATTERNS`` are the ``ecc.memory.v1`` patterns verbatim (the vault's read side must
match the reference byte for byte, so they are compiled with ``re.ASCII`` exactly as
docs/vault-format.md §5.1 says). ``STORE_PATTERNS`` is the superset every coffer write and every
render goes through: the families of gitleaks' default rules and detect-secrets' default plugins
that have a recognisable shape (ADR 0018 lists what is matched and what is left out, and why). A
false positive costs a rephrase; a false negative puts a live credential into a file an agent
may commit.
"""

from __future__ import annotations

import re


class LazyPattern:
    """A regular expression compiled the first time it is used.

    There are 52 of them; compiling them all costs more than the rest of `coffer where`
    (docs/adr/0023), while the literal screen below (``LITERALS``) leaves most of them unused
    for ordinary prose. ``re.compile`` caches, so the compiled pattern is the one ``re``
    would give.
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def sub(self, repl: str, string: str) -> str:
        return self.compiled.sub(repl, string)


SecretPattern = tuple[str, LazyPattern]

_A = re.ASCII
_AI = re.ASCII | re.IGNORECASE

REFERENCE_PATTERNS: tuple[SecretPattern, ...] = (
    ("provider API key", LazyPattern(r"\bsk-[A-Za-z0-9_-]{16,}\b", _AI)),
    ("Stripe key", LazyPattern(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b", _A)),
    ("npm token", LazyPattern(r"\bnpm_[A-Za-z0-9]{20,}\b", _A)),
    ("Hugging Face token", LazyPattern(r"\bhf_[A-Za-z0-9]{20,}\b", _A)),
    ("GitHub token", LazyPattern(r"\bgh[pors]_[A-Za-z0-9]{16,}\b", _A)),
    ("GitHub token", LazyPattern(r"\bgithub_pat_[A-Za-z0-9_]{16,}\b", _A)),
    ("Google API key", LazyPattern(r"\bAIza[A-Za-z0-9_-]{16,}\b", _A)),
    ("Slack token", LazyPattern(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b", _A)),
    ("AWS access key", LazyPattern(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", _A)),
    ("private key", LazyPattern(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----", _A)),
)

# A keyword naming a credential, then an assignment (``=``, ``:``, ``:=``, ``=>``, a JSON or
# YAML key), then a value that is not a placeholder (``$VAR``, ``{{x}}``, ``<token>``,
# ``os.environ[...]``, ``***``) and looks like a credential rather than a word of prose: it
# has a digit or a symbol, or is at least 12 characters long. ``password=hunter2`` and
# ``DB_PASSWORD: s3cret!`` are refused; ``password: ask Alice`` is not.
_STRONG_KEYWORD = r"(?:passw(?:or)?d|passwd|secret|private[_-]?key|credentials?|\bcreds)"
# Words that name identifiers as often as credentials: a whole UUID, ULID (coffer's own ids)
# or git object id after them is an id (``session_token_id=01HZ…``, ``key: 9fceb02…``).
_WEAK_KEYWORD = (
    r"(?:token|api[_-]?key|access[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key)"
)
# (A bare 32-hex value is not among them: many services' keys have that shape.)
ID_SHAPE = (
    r"(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?-i:[0-7][0-9A-HJKMNP-TV-Z]{25})|[0-9a-f]{40}|[0-9a-f]{64}|mem_\d{8}_[0-9a-f]{20})"
)
_VALUE = (
    r"(?!(?:true|false|null|none|nil|undefined|os\.|process\.|env\b|getenv|secrets\.|xxx"
    r"|\*\*\*|\.\.\.|<|\$|%|\{|/|~/|\./|https?://|\d+(?:[\s\"'`,;]|$)))"
    r"(?=[^\s\"'`,;]{0,200}?[0-9!@#^&*+/=~]|[^\s\"'`,;]{12})"
    r"[^\s\"'`,;]{6,}"
)
_ASSIGN = r"[\w.-]{0,20}?[\"']?[ \t]{0,10}(?:=>|:=|\?=|=|:)[ \t]*[\"'`]?"
ASSIGNED_SECRET = LazyPattern(
    # Bounded gaps: _assignment_near_keyword relies on the operator being within 40
    # characters of the keyword.
    rf"(?:{_STRONG_KEYWORD}{_ASSIGN}|{_WEAK_KEYWORD}{_ASSIGN}(?!{ID_SHAPE}(?![\w-]))){_VALUE}",
    _AI,
)

# (label, pattern) beyond the reference. Shapes follow gitleaks' default config and
# detect-secrets' plugins; labels reuse the reference's where the family is the same.
_EXTRA_PATTERNS: tuple[SecretPattern, ...] = (
    # Provider keys with a fixed prefix.
    # (Anthropic's and OpenAI's ``sk-…`` keys are the reference's first pattern.)
    ("provider API key", LazyPattern(r"\bpplx-[A-Za-z0-9]{20}", _A)),
    ("Stripe key", LazyPattern(r"\b(?:sk|rk|pk)_(?:test|live|prod)_[A-Za-z0-9]{10,}", _A)),
    ("npm token", LazyPattern(r"\bnpm_[A-Za-z0-9]{20,}", _A)),
    ("Hugging Face token", LazyPattern(r"\b(?:hf_|api_org_)[A-Za-z0-9]{20,}", _A)),
    ("GitHub token", LazyPattern(r"\bgh[pousr]_[A-Za-z0-9]{16,}|\bgithub_pat_\w{16,}", _A)),
    (
        "GitLab token",
        LazyPattern(
            r"\b(?:glpat|glptt|glrt|gldt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)"
            r"-[\w-]{20,}|\bGR1348941[\w-]{20}|_gitlab_session=[0-9a-z]{32}",
            _A,
        ),
    ),
    ("Google API key", LazyPattern(r"\bAIza[\w-]{16,}", _A)),
    (
        "Slack token",
        LazyPattern(
            r"\bxox[a-z]-[A-Za-z0-9-]{10,}|\bxoxe\.xox[a-z]-|\bxapp-\d-[A-Za-z0-9-]{10,}"
            r"|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
            _A,
        ),
    ),
    ("AWS access key", LazyPattern(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", _A)),
    (
        "AWS secret access key",
        LazyPattern(
            r"aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?[=:\"'\s]"
            r"[\"']?[0-9a-zA-Z/+]{40}(?![0-9a-zA-Z/+])",
            _AI,
        ),
    ),
    ("AWS Bedrock key", LazyPattern(r"\bABSK[A-Za-z0-9+/]{100,}|bedrock-api-key-YmVkcm9", _A)),
    (
        "private key",
        LazyPattern(
            r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d"
            r"|-----BEGIN SSH2 ENCRYPTED PRIVATE KEY-----",
            _AI,
        ),
    ),
    (
        "JSON Web Token",
        LazyPattern(
            r"\beyJ[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{2,}={0,2}\.[A-Za-z0-9_\-+/=]*", _A
        ),
    ),
    ("JSON Web Token", LazyPattern(r"\bZXlK[A-Za-z0-9+/]{40,}", _A)),
    ("bearer token", LazyPattern(r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*", _A)),
    (
        "authorization header",
        LazyPattern(
            r"authorization[\"']?\s*[:=]\s*[\"']?(?:basic|token)\s+[A-Za-z0-9._~+/-]{8,}", _AI
        ),
    ),
    (
        "password in URL",
        # An empty user name too: redis://:password@host (issue 22.7).
        LazyPattern(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s:@]{3,}@", _AI),
    ),
    ("password or secret assignment", ASSIGNED_SECRET),
    (
        "Azure storage key",
        LazyPattern(r"AccountKey\s*=\s*[A-Za-z0-9+/=]{40,}|\b[\w~.]{3}\dQ~[\w~.-]{31,34}", _A),
    ),
    ("Twilio key", LazyPattern(r"\bSK[0-9a-fA-F]{32}\b", _A)),
    ("SendGrid key", LazyPattern(r"\bSG\.[\w-]{16,32}\.[\w-]{16,64}", _A)),
    ("Mailchimp key", LazyPattern(r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", _A)),
    ("Mailgun key", LazyPattern(r"\bkey-[0-9a-f]{32}\b", _A)),
    ("Square token", LazyPattern(r"\b(?:sq0atp|sq0csp)-[\w-]{22,}|\bEAAA[\w-]{60}", _A)),
    ("Discord bot token", LazyPattern(r"\b[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,}", _A)),
    ("Telegram bot token", LazyPattern(r"\b\d{8,10}:AA[\w-]{33}\b", _A)),
    ("PyPI token", LazyPattern(r"\bpypi-AgEIcHlwaS5vcmc[\w-]{50,}", _A)),
    ("Artifactory token", LazyPattern(r"\bAKCp[A-Za-z0-9]{60,}|\bcmVmd[A-Za-z0-9]{59}\b", _A)),
    ("Vault token", LazyPattern(r"\bhv[sb]\.[\w-]{90,}", _A)),
    (
        "service token",
        LazyPattern(
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

# Shapes gitleaks' default rules miss, or match only next to a service's name (issue 22.7,
# docs/adr/0042). gitleaks' rules themselves run after these (coffer.secrets.gitleaks).
_OWN_PATTERNS: tuple[SecretPattern, ...] = (
    (
        "netrc password",
        LazyPattern(
            r"\b(?:machine[ \t\r\n]+\S+|default)(?:[ \t\r\n]+(?:login|account)[ \t\r\n]+\S+)*"
            r"[ \t\r\n]+password[ \t\r\n]+(?![<$%{])\S{3,}",
            _A,
        ),
    ),
    (
        "Docker registry auth",
        LazyPattern(r"\"(?:auth|identitytoken)\"\s*:\s*\"[A-Za-z0-9+/]{8,}={0,2}\"", _A),
    ),
    ("kubeconfig client key", LazyPattern(r"\bclient-key-data:[ \t]*[\"']?[A-Za-z0-9+/]{16,}", _A)),
    ("Stripe webhook secret", LazyPattern(r"\bwhsec_[A-Za-z0-9+/=]{20,}", _A)),
    ("Atlassian API token", LazyPattern(r"\bATATT3[A-Za-z0-9_=-]{30,}", _A)),
    ("Google OAuth client secret", LazyPattern(r"\bGOCSPX-[A-Za-z0-9_-]{20,}", _A)),
    ("Contentful token", LazyPattern(r"\bCFPAT-[A-Za-z0-9_-]{30,}", _A)),
    ("Typeform token", LazyPattern(r"\btfp_[A-Za-z0-9_.=-]{30,}", _A)),
    ("Mapbox secret token", LazyPattern(r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{16,}", _A)),
    ("Facebook access token", LazyPattern(r"\bEAACEdEose0cBA[A-Za-z0-9]{20,}", _A)),
    ("Supabase token", LazyPattern(r"\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,}", _A)),
    ("signed URL signature", LazyPattern(r"[?&]sig=[A-Za-z0-9%+/_-]{30,}", _A)),
)

STORE_PATTERNS: tuple[SecretPattern, ...] = (*REFERENCE_PATTERNS, *_EXTRA_PATTERNS, *_OWN_PATTERNS)


# One row per pattern of STORE_PATTERNS, in order: see _literals.
_LITERAL_TABLE: tuple[tuple[str, ...], ...] = (
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
    ("password",),
    ('"auth"', '"identitytoken"'),
    ("client-key-data",),
    ("whsec_",),
    ("atatt3",),
    ("gocspx-",),
    ("cfpat-",),
    ("tfp_",),
    ("sk.eyj",),
    ("eaacedeose0cba",),
    ("sbp_", "sb_secret_"),
    ("sig=",),
)


def _literals() -> dict[LazyPattern, frozenset[str]]:
    """For each pattern, lowercase literals one of which every match contains.

    A cheap ``in`` test over the lowercased text skips most patterns for ordinary prose
    (a 32 KiB entry is checked in a few milliseconds instead of tens). Lowercasing only adds
    candidates (ASCII letters map to themselves), so the filter never hides a match.
    """
    assert len(_LITERAL_TABLE) == len(STORE_PATTERNS)
    return {
        pattern: frozenset(literals)
        for (_, pattern), literals in zip(STORE_PATTERNS, _LITERAL_TABLE, strict=True)
    }


LITERALS = _literals()
ALL_LITERALS = tuple(sorted(set().union(*LITERALS.values())))
