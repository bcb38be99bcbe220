"""Fast paths of the scan decide exactly as the general rules they shortcut.

The read-side quarantine's raw-string pre-check against the JSON scan (§5.4), and the
parser's calendar check against ``is_timestamp`` (§3.1).
Sections and rules (§n, Rn) are those of docs/vault-format.md.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from coffer.secrets import REFERENCE_PATTERNS
from coffer.vault.document import _day_exists
from coffer.vault.ids import is_timestamp
from coffer.vault.jscompat import json_compact
from coffer.vault.secret_policy import _maybe, is_quarantined

from .conftest import memory

# Pieces of every literal and pattern tail, plus what JSON escapes (R1, §5.5).
PIECES = [
    "sk-",
    "SK-",
    "rk_live_",
    "_live_",
    "npm_",
    "pm_",
    "hf_",
    "ghp_",
    "gho_",
    "ghr_",
    "ghs_",
    "github_pat_",
    "_pat_",
    "AIza",
    "xoxb-",
    "xox",
    "AKIA",
    "ASIA",
    "-----BEGIN ",
    "RSA PRIVATE KEY-----",
    "\u212a",  # KELVIN SIGN: folds to k in Unicode, not under re.ASCII
    "a" * 16,
    "A1" * 10,
    "\n",
    "\r",
    "\t",
    '"',
    "\\",
    "\ud83d",
    "\ude00",
    "é",
    " ",
    "_",
    "-",
    "x",
]

text = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


def reference(value: dict[str, Any]) -> bool:
    encoded = json_compact(value)
    return _maybe(encoded) and any(p.search(encoded) for _, p in REFERENCE_PATTERNS)


@settings(max_examples=2000, deadline=None)
@given(title=text, body=text, tags=st.lists(text, max_size=3))
def test_pre_check_is_exact(title: str, body: str, tags: list[str]) -> None:
    value = memory(title=title, body=body, tags=tags)
    assert is_quarantined(value) == reference(value)


def test_known_cases() -> None:
    token = "npm_" + "a" * 20
    assert is_quarantined(memory(body="x\n" + token[1:]))  # `\n` + "pm_…" reads as npm_…
    assert not is_quarantined(memory(body="x\nsk-abcdefghijklmnopqrstu"))  # §5.5 blind spot
    assert is_quarantined(memory(body="x sk-abcdefghijklmnopqrstu"))
    assert is_quarantined(memory(tags=["ghp_abcdefghijklmnopqrst"]))
    assert is_quarantined({"weird": 1, "body": "sk-abcdefghijklmnopqrstu"})  # generic input


def test_calendar_check_matches_is_timestamp() -> None:
    for year in ("0000", "1900", "2000", "2023", "2024", "2100", "9999"):
        for month in range(1, 13):
            for day in range(1, 32):
                stamp = f"{year}-{month:02d}-{day:02d}T10:00:00.000Z"
                assert _day_exists(stamp) == is_timestamp(stamp), stamp
