"""Session-start hook mode: `coffer project --hook --for AGENT` hands the session that is
starting the memory it could not have loaded (docs/adr/0012-session-start-handover.md).

The agents read their memory files before their hook finishes, so memory the hook's own run
put in place reaches this session only through the hook's output; memory already in place
was loaded by the agent itself and must not be handed over again. tests/agents/ checks the
same against the real agents.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coffer.adapter import Context
from coffer.projection import fastpath, session_context
from coffer.projection.engine import Engine
from coffer.store import index
from coffer_adapters import claude_code
from tests.helpers import coffer, make_repo, store

FACT = "The staging cluster is called walrus-77"
HANDOVER = "Coffer put this memory in place after the session had loaded its files"


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()  # Claude detected: its project memory is a link
    (fake_home / ".codex").mkdir()  # Codex detected: it reads <repo>/AGENTS.md
    return make_repo(tmp_path / "repo")


def hook(repo: Path, agent: str) -> str:
    done = coffer("project", "--hook", "--for", agent, cwd=repo)  # as setup installs it
    assert done.returncode == 0, done.stderr
    return done.stdout


def claude_link(repo: Path, home: Path) -> Path:
    ctx = Context(home, dict(os.environ), Path(os.environ["COFFER_HOME"]), repo)
    directory, _ = claude_code.memory_dir(ctx)
    assert directory is not None
    return directory


def write_entry_by_hand(repo: Path, name: str, text: str) -> None:
    """An entry file written into the store directly, as an agent writes through its link:
    no coffer command runs, so nothing refreshes the index or the blocks."""
    link = claude_link(repo, Path(os.environ["HOME"]))
    (link / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: {text}\ntype: project\n---\n\n{text}\n"
    )


def test_first_hook_run_hands_over_what_it_put_in_place(repo: Path, fake_home: Path) -> None:
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    first = hook(repo, "claude")
    assert claude_link(repo, fake_home).is_symlink()  # the run created Claude's link ...
    assert HANDOVER in first and FACT in first  # ... after Claude had read the directory
    # Nothing changed since: Claude loads the memory through its link; no second copy.
    assert hook(repo, "claude") == ""
    argv = ["project", "--quiet", "--for", "claude"]
    assert fastpath.unchanged(argv, dict(os.environ), str(repo)) == ""


def test_each_agent_gets_only_what_changed_for_it(repo: Path) -> None:
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    assert FACT in hook(repo, "codex")  # created <repo>/AGENTS.md (and Claude's link)
    # Claude's link was created by Codex's hook run, before Claude's session started:
    # Claude read it itself, so its hook hands nothing over.
    assert hook(repo, "claude") == ""
    assert hook(repo, "codex") == ""


def test_remember_reaches_the_next_session_without_the_hook(repo: Path) -> None:
    """After `coffer remember`, the next session's hook prints nothing: the CLI regenerated
    MEMORY.md in Claude's linked directory and the block in AGENTS.md, which the agents
    load at start, so handing the entry over again would only show it twice."""
    hook(repo, "claude")
    hook(repo, "codex")
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    assert hook(repo, "claude") == ""
    assert hook(repo, "codex") == ""
    index = claude_link(repo, Path(os.environ["HOME"])) / "MEMORY.md"
    assert FACT in index.read_text()
    assert FACT in (repo / "AGENTS.md").read_text()


def test_a_stale_index_or_block_is_handed_over(repo: Path) -> None:
    hook(repo, "claude")
    hook(repo, "codex")
    write_entry_by_hand(repo, "release-freeze", "The release branch is frozen on Fridays")
    # Claude loaded a MEMORY.md without the new entry; this run regenerates it.
    claude = hook(repo, "claude")
    assert "The release branch is frozen on Fridays" in claude and HANDOVER in claude
    assert "Coffer memory: project repo" in claude


def test_codex_block_changed_by_the_hook_is_handed_over(repo: Path) -> None:
    assert coffer("remember", "Tests run with make check.", cwd=repo).returncode == 0
    hook(repo, "codex")
    agents_md = repo / "AGENTS.md"
    before = agents_md.read_bytes()
    write_entry_by_hand(repo, "release-freeze", "The release branch is frozen on Fridays")
    out = hook(repo, "codex")
    assert agents_md.read_bytes() != before  # Codex had read the old block
    assert "The release branch is frozen on Fridays" in out and HANDOVER in out
    assert hook(repo, "codex") == ""


def test_output_fits_the_agents_budget_and_says_what_did_not(repo: Path) -> None:
    def text(i: int) -> str:
        return f"Fact number {i} about the build: " + "padding words " * 30

    # 60 entries of ~450 bytes are more than the agent's limit. Stored through the store's
    # API in this process: 60 `coffer remember` runs cost seconds.
    s = store()
    tier = s.project_tier(repo, create=True)
    assert tier is not None
    for i in range(60):
        s.remember(tier, text(i), name=f"fact-{i}")
    out = hook(repo, "claude")
    assert HANDOVER in out
    assert len(out.encode("utf-8")) <= claude_code.SESSION_CONTEXT_LIMIT
    assert "more: run `coffer recall <words>` to search them" in out
    # The most useful entry comes first: under load the 60 writes span seconds, and the
    # newest (shown whole, by its text, not its name) is not always fact-59.
    first = sorted(s.scan(tier).entries, key=index.priority)[0]
    assert first.body.split(":")[0] in out


def test_gemini_gets_json_context_and_nothing_when_nothing_changed(
    repo: Path, fake_home: Path
) -> None:
    (fake_home / ".gemini").mkdir()
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    out = hook(repo, "gemini")
    data = json.loads(out)  # Gemini gives the model only JSON's additionalContext
    specific = data["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    assert FACT in specific["additionalContext"]
    assert HANDOVER in specific["additionalContext"]
    assert hook(repo, "gemini") == ""


def test_dry_run_hands_nothing_over(repo: Path) -> None:
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    done = coffer("project", "--dry-run", "--for", "claude", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert HANDOVER not in done.stdout


def test_a_tier_without_room_is_named_not_cut(repo: Path) -> None:
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    engine = Engine(store(), os.environ)
    tier = engine.store.project_tier(repo)
    assert tier is not None
    text = session_context.memory_text(engine, [tier], 900)
    assert FACT not in text
    assert "Not shown for lack of room: the project memory (1 entry); `coffer list`" in text
    assert len(text.encode("utf-8")) <= 900


def test_the_last_guard_cuts_at_a_line_end() -> None:
    text = "".join(f"line {i} é\n" for i in range(3000))
    cut = session_context._fit(text, 1000)
    assert len(cut.encode("utf-8")) <= 1000
    kept, note = cut.rsplit("\n", 1)
    assert kept.endswith(" é") and note.startswith("…cut here to fit")
