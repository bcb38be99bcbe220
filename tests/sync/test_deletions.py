"""Deletions through sync (docs/adr/0052): one pulled from another machine is kept in the
local history and restorable there; a burst of deletions from one machine is held, not
pushed, until `coffer sync --allow-deletions`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.sync.deletions import BURST_MIN, BURST_SHARE
from tests.sync_machines import World, git, make_world


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


def remote_files(world: World) -> list[str]:
    return git("ls-tree", "-r", "--name-only", "main", cwd=world.remote).split()


def test_a_deletion_pulled_from_another_machine_is_restorable_there(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("remember", "Tabs, not spaces.", "--name", "tabs")
    a.ok("sync")
    b.ok("sync")
    (a.claude_memory() / "deploy.md").unlink()  # an agent on A deleting it
    a.ok("sync")
    b.ok("sync")
    assert not (b.memory_dir() / "deploy.md").exists()
    (v,) = json.loads(b.ok("history", "deploy", "--json").out)
    assert v["event"] == "deleted"
    b.ok("restore", "deploy")
    assert "make release" in (b.project / "AGENTS.md").read_text()


def test_a_burst_of_deletions_is_held_until_allowed(world: World) -> None:
    a, b = world.a, world.b
    for n in range(8):
        a.ok("remember", f"Fact number {n} about the build.", "--name", f"fact-{n}")
    a.ok("sync")
    b.ok("sync")
    assert BURST_MIN == 5 and BURST_SHARE == 0.25
    memory = a.claude_memory()
    for n in range(5):  # 5 of 8 (62%) in one go: a consolidation gone wrong
        (memory / f"fact-{n}.md").unlink()
    said = a.ok("sync").out
    assert "5 deletions of 8 entries" in said and "--allow-deletions" in said
    assert len(remote_files(world)) == 8  # nothing deleted on the remote
    assert not (memory / "fact-0.md").exists()  # nor brought back here by the pull
    assert "5 deletions" in a.ok("sync").out  # still held, round after round
    b.ok("sync")
    assert (b.memory_dir() / "fact-0.md").exists()
    ran = json.loads(a.ok("sync", "--allow-deletions", "--json").out)
    assert ran["held_deletions"] == []
    assert len(remote_files(world)) == 3
    b.ok("sync")
    assert not (b.memory_dir() / "fact-0.md").exists()
    assert [v["event"] for v in json.loads(b.ok("history", "fact-0", "--json").out)] == ["deleted"]


def test_a_few_deletions_pass(world: World) -> None:
    a = world.a
    for n in range(8):
        a.ok("remember", f"Fact number {n} about the build.", "--name", f"fact-{n}")
    a.ok("sync")
    for n in range(2):  # 2 of 8: under the share
        (a.claude_memory() / f"fact-{n}.md").unlink()
    assert "held" not in a.ok("sync").out
    assert len(remote_files(world)) == 6
