"""`coffer status`, one overview, and `coffer edit NAME` through $EDITOR (issue 23 §10,
docs/adr/0046). Through the real CLI; the editor is a script that rewrites the file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from coffer.projection import managed_block as block
from tests.helpers import coffer, make_repo

TEXT = "Deploys use make release."


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    monkeypatch.delenv("VISUAL", raising=False)
    r = make_repo(tmp_path / "repo")
    assert coffer("remember", TEXT, "--name", "deploys", cwd=r).returncode == 0
    assert coffer("remember", "Prefer tabs.", "--name", "tabs", "--scope", "global").returncode == 0
    assert coffer("project", cwd=r).returncode == 0
    return r


def _editor(tmp_path: Path, script: str) -> dict[str, str]:
    path = tmp_path / "editor.sh"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return {"EDITOR": str(path)}


def _status(cwd: Path) -> dict[str, Any]:
    done = coffer("status", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_status_shows_entries_agents_watcher_sync_and_the_last_problem(
    repo: Path, fake_home: Path
) -> None:
    data = _status(repo)
    assert data["project"]["root"] == str(repo)
    assert data["entries"] == {"project": 1, "global": 1, "team": None}
    agents = {a["name"]: a for a in data["agents"]}
    assert agents["claude"]["projected"] and agents["codex"]["projected"]
    assert agents["codex"]["wired"] == {} and agents["codex"]["trust"] is None
    assert data["watch"]["running"] is False and data["sync"]["configured"] is False
    assert data["problems"] == []
    # the same judgement as `coffer adapter list`, not a second one
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    assert {a["name"]: a["ok"] for a in listed["adapters"]} == {
        n: a["projected"] for n, a in agents.items()
    }
    assert coffer("setup", "--yes", "--agent", "codex", "--no-service").returncode == 0
    (repo / "AGENTS.md").unlink()  # a block gone: not projected any more
    text = coffer("status", cwd=repo)
    assert text.returncode == 0
    assert "codex: not projected, hook wired, mcp wired, skill wired, hook untrusted" in text.stdout
    assert "trusted_hash = " in text.stdout  # how to trust it without the TUI
    assert "sync: not set up" in text.stdout and "watch: not running" in text.stdout
    assert coffer("status", cwd=repo).stdout == text.stdout  # the quick path prints the same


def test_status_names_what_the_last_hook_run_told(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("<!-- coffer:memory:start (managed, do not edit) -->\nx\n")
    assert coffer("project", "--hook", cwd=repo).returncode == 0  # tells the problem once
    problems = _status(repo)["problems"]
    assert any("AGENTS.md" in p for p in problems), problems
    assert "last problem: coffer:" in coffer("status", cwd=repo).stdout


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_edit_opens_the_editor_and_refreshes_every_block(repo: Path, tmp_path: Path) -> None:
    env = _editor(tmp_path, "sed -i 's/make release/make ship/' \"$1\"")
    done = coffer("edit", "deploys", cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert "updated deploys" in done.stdout and f"updated {repo / 'AGENTS.md'}" in done.stdout
    span = block.find((repo / "AGENTS.md").read_bytes())
    assert span is not None and "Deploys use make ship." in span.body
    shown = coffer("show", "deploys", cwd=repo).stdout
    assert "make ship" in shown and "updated_at" in shown
    unchanged = coffer("edit", "deploys", cwd=repo, env=_editor(tmp_path, "true"))
    assert unchanged.returncode == 0 and "already remembered" in unchanged.stdout


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
@pytest.mark.parametrize(
    ("script", "says"),
    [
        ("printf -- '---\\nname: deploys\\n: [broken\\n---\\nx\\n' > \"$1\"", "cannot be read"),
        ("echo 'token AKIAIOSFODNN7EXAMPLE' >> \"$1\"", "looks like a secret"),
        ("sed -i 's/^name: deploys/name: other/' \"$1\"", "an entry keeps its name"),
        ("printf -- '---\\nname: deploys\\n---\\n' > \"$1\"", "the edited entry is empty"),
        ("exit 3", "the editor exited with 3"),
    ],
)
def test_a_bad_edit_is_refused_and_the_entry_kept(
    repo: Path, tmp_path: Path, script: str, says: str
) -> None:
    from coffer.store import Store

    tier = Store.from_environ(os.environ).tier_at(repo)
    assert tier is not None
    entry = tier.dir / "deploys.md"
    before, agents = entry.read_bytes(), (repo / "AGENTS.md").read_bytes()
    done = coffer("edit", "deploys", cwd=repo, env=_editor(tmp_path, script))
    assert done.returncode != 0
    assert done.stderr.startswith("coffer: error: ") and says in done.stderr, done.stderr
    assert "deploys is unchanged" in done.stderr and "kept in" in done.stderr
    assert entry.read_bytes() == before and (repo / "AGENTS.md").read_bytes() == agents


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_edit_of_an_unknown_entry_says_so(repo: Path, tmp_path: Path) -> None:
    done = coffer("edit", "nope", cwd=repo, env=_editor(tmp_path, "true"))
    assert done.returncode != 0 and "coffer: error:" in done.stderr and "nope" in done.stderr
    global_one = coffer("edit", "tabs", cwd=repo, env=_editor(tmp_path, "true"))
    assert "it is in the global tier (add --scope global)" in global_one.stderr
    edited = coffer(
        "edit",
        "tabs",
        "--scope",
        "global",
        cwd=repo,
        env=_editor(tmp_path, "sed -i 's/Prefer tabs/Prefer spaces/' \"$1\""),
    )
    assert edited.returncode == 0 and "updated tabs in global" in edited.stdout
    assert "Prefer spaces." in (repo.parent / "home" / ".codex" / "AGENTS.md").read_text()
