"""Codex runs a hook from hooks.json only once the user trusted it (a hash under
``[hooks.state]`` in config.toml, written by /hooks): `coffer adapter list` and `coffer
status` say whether it is trusted and how to trust it without the TUI (issue 23 §7,
docs/adr/0046). The hash is checked against the real Codex in tests/agents/test_codex_trust.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import coffer


@pytest.fixture
def home(fake_home: Path) -> Path:
    (fake_home / ".codex").mkdir()
    return fake_home


def _codex(cwd: Path) -> dict[str, Any]:
    listed = coffer("adapter", "list", "--json", cwd=cwd)
    data: dict[str, Any] = next(
        a for a in json.loads(listed.stdout)["adapters"] if a["name"] == "codex"
    )
    return data


def test_an_untrusted_codex_hook_is_said_with_the_lines_that_trust_it(
    home: Path, tmp_path: Path
) -> None:
    assert coffer("setup", "--yes", "--agent", "codex", "--no-service").returncode == 0
    codex = _codex(tmp_path)
    assert codex["setup"]["hook"] == "wired"
    trust = codex["hook_trust"]
    assert trust["state"] == "untrusted" and "Codex skips the hook" in trust["detail"]
    key = f"{home / '.codex' / 'hooks.json'}:session_start:0:0"
    lines = re.search(
        r'^\[hooks\.state\."[^"]+"\]\ntrusted_hash = "sha256:[0-9a-f]{64}"$', trust["how"], re.M
    )
    assert lines is not None and key in lines.group(0)
    assert "--dangerously-bypass-hook-trust" in trust["how"]
    text = coffer("adapter", "list", cwd=tmp_path).stdout
    assert "hook trust: untrusted" in text and lines.group(0).splitlines()[1] in text
    # the lines as said, added by hand: what /hooks would have written
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "\n" + lines.group(0) + "\n")
    assert _codex(tmp_path)["hook_trust"]["state"] == "trusted"
    # a trust of another version of the hook (coffer's command changed since): Codex calls
    # it modified and skips it
    trusted = re.search(r"sha256:[0-9a-f]{64}", lines.group(0))
    assert trusted is not None
    config.write_text(config.read_text().replace(trusted.group(0), "sha256:" + "0" * 64))
    assert _codex(tmp_path)["hook_trust"]["state"] == "modified"
    # setup's undo leaves the user's trust lines (not coffer's) and the hook is gone
    assert coffer("setup", "--undo").returncode == 0
    assert _codex(tmp_path)["hook_trust"] is None


def test_an_agent_without_a_trust_step_reports_none(home: Path, tmp_path: Path) -> None:
    (home / ".claude").mkdir()
    assert coffer("setup", "--yes", "--agent", "claude", "--no-service").returncode == 0
    listed = json.loads(coffer("adapter", "list", "--json", cwd=tmp_path).stdout)
    claude = next(a for a in listed["adapters"] if a["name"] == "claude")
    assert claude["setup"]["hook"] == "wired" and claude["hook_trust"] is None
