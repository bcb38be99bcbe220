"""`coffer adapter list` with two dozen adapters: agents neither installed nor enabled are
counted (listed with --all, and not audited without it); each agent says what `coffer setup`
wired into its own config (issue 12 §6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import coffer, make_repo


def _listed(*args: str, cwd: Path) -> Any:
    done = coffer("adapter", "list", "--json", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _agent(name: str, cwd: Path) -> Any:
    return next(a for a in _listed(cwd=cwd)["adapters"] if a["name"] == name)


def test_absent_agents_are_counted_and_listed_with_all(fake_home: Path, tmp_path: Path) -> None:
    (fake_home / ".claude").mkdir()
    repo = make_repo(tmp_path / "repo")
    data = _listed(cwd=repo)
    names = [a["name"] for a in data["adapters"]]
    hidden = data["hidden"]
    assert "claude" in names and "aider" not in names
    assert isinstance(hidden, list) and "aider" in hidden and "claude" not in hidden
    every = _listed("--all", cwd=repo)
    all_names = {a["name"] for a in every["adapters"]}
    assert all_names == set(names) | set(hidden) and every["hidden"] == []
    aider = next(a for a in every["adapters"] if a["name"] == "aider")
    assert aider["present"] is False and aider["enabled"] is False
    text = coffer("adapter", "list", cwd=repo).stdout
    assert f"not installed, not enabled ({len(hidden)}): " in text
    assert "aider (absent" not in text
    assert "aider (absent, disabled" in coffer("adapter", "list", "--all", cwd=repo).stdout
    # Enabling an absent agent by hand brings it back into the list.
    assert coffer("adapter", "enable", "aider", cwd=repo).returncode == 0
    assert "aider" in [a["name"] for a in _listed(cwd=repo)["adapters"]]


def test_the_list_says_what_setup_wired(fake_home: Path, tmp_path: Path) -> None:
    (fake_home / ".claude").mkdir()
    repo = make_repo(tmp_path / "repo")
    before = coffer("adapter", "list", cwd=repo).stdout
    assert "setup: not wired (`coffer setup` wires its MCP server and more)" in before
    done = coffer("setup", "--yes", "--agent", "claude", "--no-service", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    wired = {"hook": "wired", "mcp": "wired", "skill": "wired"}
    assert _agent("claude", repo)["setup"] == wired
    listed = coffer("adapter", "list", cwd=repo).stdout
    assert "setup: hook wired, mcp wired, skill wired" in listed
    settings = fake_home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().rstrip("\n") + "\n\n")  # a hand edit
    assert _agent("claude", repo)["setup"]["hook"] == "wired, file edited since"
    assert coffer("setup", "--undo", cwd=repo).returncode == 0
    assert "not wired" in coffer("adapter", "list", cwd=repo).stdout


def test_the_list_asks_each_adapter_for_its_targets_once(fake_home: Path, tmp_path: Path) -> None:
    # `coffer adapter list` runs engine.status(): each adapter's targets are asked once
    # with the real context (presence, the blocks' readers and the audit share them) and
    # once with the neutral probe its modes are read off (coffer.adapter.modes).
    import os
    from collections import Counter

    from coffer.adapter import Context, Target
    from coffer.app import App

    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    assert coffer("project", cwd=repo).returncode == 0
    engine = App(os.environ).engine()
    root = engine.store.here(repo).project
    real = engine.context(root)
    calls: Counter[tuple[str, str]] = Counter()
    for name, adapter in engine.loaded.adapters.items():

        def counted(ctx: Context, _asked: Any = adapter.targets, _name: str = name) -> Any:
            which = "real" if ctx == real else "probe" if not ctx.environ else "other"
            calls[(_name, which)] += 1
            targets: list[Target] = list(_asked(ctx))
            return targets

        setattr(adapter, "targets", counted)  # noqa: B010 (a counter in the adapter's place)
    statuses, _ = engine.status(repo, every=True)
    names = set(engine.loaded.adapters)
    assert len(statuses) == len(names) > 20 and any(s.targets for s in statuses)
    assert calls == Counter({(n, w): 1 for n in names for w in ("real", "probe")})
