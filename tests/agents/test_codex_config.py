"""Issue 22 §3 seen from the real Codex (docs/adr/0041): a user's config.toml that uses dotted
keys (`mcp_servers.tools.command = …`) before its top-level settings still means the same
to Codex after `coffer setup` adds coffer's MCP server: the model it asks for, its approval
policy and its sandbox are the user's, and coffer's tools are offered. Before the fix,
`[mcp_servers.coffer]` landed after the first dotted key, and Codex ran with its defaults
(read-only sandbox, on-request approvals, its own model) without a word.

Offline, against the recorder (tests/agents/conftest.py), with the Codex session of
tests/agents/test_every_agent.py minus its `-c model=…` override: the model must come from
the user's file. `codex exec` always runs with approval `never`, so the approval policy is
read from `codex debug prompt-input`, the prompt Codex would send in an interactive session.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder
from tests.agents.test_every_agent import CASES, Run, _session, installed
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

# Every top-level key after the dotted ones is one coffer's table used to swallow.
CONFIG = """\
mcp_servers.tools.command = "true"
mcp_servers.tools.args = ["x"]
model = "gpt-5-user-choice"
approval_policy = "never"
sandbox_mode = "workspace-write"
"""
CODEX = next(c for c in CASES if c.agent == "codex" and not c.used_before)


@pytest.mark.timeout(600)
def test_codex_keeps_the_users_model_approval_and_sandbox_after_setup(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    w, runs = installed(CODEX, tmp_path, fake_home, recorder)
    argv = list(runs[0].argv)
    at = argv.index('model="gpt-5"')
    del argv[at - 1 : at + 1]  # the model is the user's config's, not the suite's
    config = fake_home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(CONFIG, encoding="utf-8")

    done = coffer("setup", "--yes", "--no-service", "--agent", "codex", cwd=w.repo, env=w.env)
    assert done.returncode == 0, done.stdout + done.stderr

    sent = _session(recorder, [Run(argv, runs[0].env)], w)
    models = {json.loads(body).get("model") for body in recorder.bodies()}
    assert models == {"gpt-5-user-choice"}, models
    assert "`sandbox_mode` is `workspace-write`" in sent, "the user's sandbox was lost"
    assert "list_memory" in sent, "Codex did not offer coffer's MCP tools"

    prompt = subprocess.run(
        [w.exe, "debug", "prompt-input", "hi"],
        cwd=w.repo,
        env={**w.env, "PWD": str(w.repo)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert "Approval policy is currently never" in prompt.stdout, prompt.stderr[-2000:]
    assert "`sandbox_mode` is `workspace-write`" in prompt.stdout
    assert config.read_text(encoding="utf-8").startswith(CONFIG)  # coffer's table after
