from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from coffer.vault import cli
from coffer.vault.document import serialize

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git repository as the cwd (docs/vault-format.md §13: ECC's
    checklist runs its CLI in one, with a private HOME)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def vault_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run ``ecc memory <args>`` in-process; ``stdin`` is fed through a real descriptor."""

    def invoke(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Result:
        capsys.readouterr()
        environment = dict(os.environ)
        environment.update(env or {})
        fd = 0
        if stdin is not None:
            feed = tmp_path / f"stdin-{os.urandom(4).hex()}"
            feed.write_bytes(stdin)
            fd = os.open(feed, os.O_RDONLY)
        try:
            code = cli.run(list(args), env=environment, stdin_fd=fd)
        finally:
            if stdin is not None:
                os.close(fd)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def memory(**overrides: Any) -> dict[str, Any]:
    """A valid normalized memory object, with overrides."""
    base: dict[str, Any] = {
        "schema": "ecc.memory.v1",
        "id": "mem_20260726_fixture",
        "title": "Fixture",
        "kind": "note",
        "scope": "project",
        "trust": "unreviewed",
        "status": "active",
        "sourceHarness": "codex",
        "targetHarnesses": ["all"],
        "tags": [],
        "links": [],
        "createdAt": "2026-07-26T20:00:00.000Z",
        "updatedAt": "2026-07-26T20:00:00.000Z",
        "body": "Body.",
    }
    base.update(overrides)
    return base


def write_memory(root: Path, rel: str, **overrides: Any) -> Path:
    """Write a memory file (canonical form) at ``root/rel``; returns its path."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(serialize(memory(**overrides)), encoding="utf-8")
    return path


def project_root(repo: Path) -> Path:
    return repo / ".ecc" / "memory" / "project"


def team_root(repo: Path) -> Path:
    return repo / ".ecc" / "memory" / "team"
