"""Real agents, run offline against a local recorder (tests/agents/run.sh runs them).

A test here starts the agent's real binary with its model provider pointed at
``recorder.py``, which records every request and answers with an error, so the agent stops
after its first call and the test reads exactly what the agent put in the prompt. The
binaries are taken from ``$COFFER_AGENTS_BIN`` (run.sh installs pinned versions there);
without it every test here is skipped, so the default suite needs no agent and no network.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.agents


@dataclass(frozen=True)
class Recorder:
    log: Path
    url: str

    def bodies(self) -> list[str]:
        """The body of every request recorded so far, oldest first."""
        if not self.log.exists():
            return []
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["body"] for line in lines]

    def clear(self) -> None:
        self.log.write_text("", encoding="utf-8")


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    log, port = tmp_path / "requests.jsonl", tmp_path / "recorder.port"
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("recorder.py")), str(log), str(port)]
    )
    try:
        deadline = time.monotonic() + 30
        while not port.exists():
            if time.monotonic() > deadline or server.poll() is not None:
                pytest.fail("the request recorder did not start")
            time.sleep(0.05)
        yield Recorder(log, f"http://127.0.0.1:{port.read_text()}")
    finally:
        server.terminate()
        server.wait(timeout=10)


def agent_binary(name: str) -> str:
    """The agent's executable from $COFFER_AGENTS_BIN, or skip the test."""
    where = os.environ.get("COFFER_AGENTS_BIN", "")
    found = shutil.which(name, path=where) if where else None
    if not found:
        pytest.skip(f"{name} is not installed for the agent suite (tests/agents/run.sh)")
    return found


def git_repo(path: Path) -> Path:
    """A real git repository (the agents ask git for the project root)."""
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60)
    return path


def agent_env(extra: dict[str, str]) -> dict[str, str]:
    """The test's fake home, with this interpreter's bin directory first on PATH: the
    hook `coffer setup` installed runs the `coffer` beside it, i.e. this tree's."""
    bindir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", **extra}


def sent_text(bodies: list[str]) -> str:
    """Recorded request bodies as one searchable text: each raw body, then every string in
    it once JSON-decoded, so text an agent escaped (``\\u003c``, ``\\n``) is found as written."""
    parts: list[str] = []

    def strings(value: object) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    for body in bodies:
        parts.append(body)
        with contextlib.suppress(ValueError):  # not JSON: the raw body is all there is
            strings(json.loads(body))
    return "\n".join(parts)
