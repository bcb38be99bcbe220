"""Issue 12 §5: `coffer explain` — what each agent loads here, in order, what its caps cut,
what hides what, and whether coffer's memory is in it (docs/adr/0029).

The mechanics (walks, globs, order, shadowing, caps) are checked on facts written here, the
named hazards on the built-in adapters' own FACTS, through the real CLI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from coffer.adapter import Context, Mode, Target
from coffer.adapter.facts import AgentFacts, Cap, Load, Setting
from coffer.projection.explain.caps import measure
from coffer.projection.explain.files import Session, found, walk_dirs
from tests.helpers import coffer, make_repo


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    for agent in (".claude", ".codex", ".gemini"):
        (fake_home / agent).mkdir()
    repo = make_repo(tmp_path / "repo")
    (repo / "sub" / "deeper").mkdir(parents=True)
    assert coffer("remember", "Deploys use make release.", cwd=repo).returncode == 0
    return repo


def _session(cwd: Path, root: Path | None, home: Path, **targets: Target) -> Session:
    ctx = Context(home, dict(os.environ), home / "store", root)
    return Session(cwd, root, ctx, home / ".agent", {k: [t] for k, t in targets.items()})


def _names(facts: AgentFacts, session: Session) -> list[tuple[str, str]]:
    return [
        (str(f.path.relative_to(session.ctx.home.parent)), f.state) for f in found(facts, session)
    ]


def _explain(cwd: Path, agent: str) -> dict[str, Any]:
    done = coffer("explain", "--agent", agent, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)["agents"][0]
    return data


def _files(view: dict[str, Any]) -> dict[str, str]:
    return {f["path"]: f["state"] for f in view["files"]}


# ---- mechanics ---------------------------------------------------------------------------


def test_walks_visit_directories_in_the_agents_order(tmp_path: Path) -> None:
    root = tmp_path / "r"
    cwd = root / "a" / "b"
    assert walk_dirs("cwd-up-to-root", cwd, root) == [cwd, root / "a", root]
    assert walk_dirs("root-down-to-cwd", cwd, root) == [root, root / "a", cwd]
    assert walk_dirs("above-root-down-to-cwd", cwd, root)[:2] == [tmp_path, root]
    assert walk_dirs("cwd", cwd, root) == [cwd]
    assert walk_dirs("root", cwd, root) == [root]
    assert walk_dirs("fs-root-down-to-cwd", cwd, root)[0] == Path("/")
    assert walk_dirs("cwd-up-to-root", cwd, None) == [cwd]  # no repository: only <cwd>


def test_by_file_and_by_directory_order(tmp_path: Path, fake_home: Path) -> None:
    root = make_repo(tmp_path / "r")
    (root / "sub").mkdir()
    for d in (root, root / "sub"):
        (d / "ONE.md").write_text("1")
        (d / "TWO.md").write_text("2")
    loads = (
        Load("{cwd}/ONE.md", "project", "root-down-to-cwd"),
        Load("{cwd}/TWO.md", "project", "root-down-to-cwd"),
    )
    session = _session(root / "sub", root, fake_home)
    by_file = _names(AgentFacts("t", loads), session)
    assert by_file == [
        ("r/ONE.md", "loaded"),
        ("r/sub/ONE.md", "loaded"),
        ("r/TWO.md", "loaded"),
        ("r/sub/TWO.md", "loaded"),
    ]
    by_dir = _names(AgentFacts("t", loads, order="by-directory"), session)
    assert [p for p, _ in by_dir] == ["r/ONE.md", "r/TWO.md", "r/sub/ONE.md", "r/sub/TWO.md"]


def test_globs_are_listed_sorted_and_global_files_never_shadow(
    tmp_path: Path, fake_home: Path
) -> None:
    root = make_repo(tmp_path / "r")
    rules = root / ".agent" / "rules"
    rules.mkdir(parents=True)
    for name in ("b.md", "a.md", "c.txt"):
        (rules / name).write_text(name)
    (fake_home / ".agent").mkdir()
    (fake_home / ".agent" / "MAIN.md").write_text("global")
    facts = AgentFacts(
        "t",
        (
            Load("{config}/MAIN.md", "global"),
            Load("{root}/.agent/rules/*.md", "project", shadowed_by=("{config}/MAIN.md",)),
        ),
    )
    assert _names(facts, _session(root, root, fake_home)) == [
        ("home/.agent/MAIN.md", "loaded"),
        ("r/.agent/rules/a.md", "loaded"),
        ("r/.agent/rules/b.md", "loaded"),
    ]


def test_shadowing_in_the_directory_or_anywhere_in_a_walk(tmp_path: Path, fake_home: Path) -> None:
    root = make_repo(tmp_path / "r")
    (root / "sub").mkdir()
    (root / "A.md").write_text("a")
    (root / "sub" / "B.md").write_text("b")
    (root / "B.md").write_text("b")
    same_dir = Load("{cwd}/B.md", "project", "cwd-up-to-root", shadowed_by=("A.md",))
    session = _session(root / "sub", root, fake_home)
    assert _names(AgentFacts("t", (same_dir,)), session) == [
        ("r/sub/B.md", "loaded"),
        ("r/B.md", "shadowed"),
    ]
    walked = Load(
        "{cwd}/B.md",
        "project",
        "cwd-up-to-root",
        shadowed_by=("A.md",),
        shadow_walk="cwd-up-to-root",
    )
    assert [s for _, s in _names(AgentFacts("t", (walked,)), session)] == ["shadowed"] * 2


def test_conditions_switch_a_file_off(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "r")
    (root / "X.md").write_text("x")
    (fake_home / ".agent").mkdir()
    named = Setting("{config}/settings.json", ("context", "fileName"), "X.md")
    facts = AgentFacts(
        "t", (Load("{root}/X.md", "project", if_setting=named, unless_env=("NO_X",)),)
    )
    assert _names(facts, _session(root, root, fake_home)) == [("r/X.md", "off")]
    (fake_home / ".agent" / "settings.json").write_text('{"context": {"fileName": ["X.md"]}}')
    assert _names(facts, _session(root, root, fake_home)) == [("r/X.md", "loaded")]
    monkeypatch.setenv("NO_X", "1")
    assert _names(facts, _session(root, root, fake_home)) == [("r/X.md", "off")]


def test_caps_cut_and_say_whether_the_block_survives(tmp_path: Path, fake_home: Path) -> None:
    root = make_repo(tmp_path / "r")
    block = (
        "<!-- coffer:memory:start (managed, do not edit) -->\nfact\n<!-- coffer:memory:end -->\n"
    )
    (root / "HEAD.md").write_text(block + "x\n" * 300)
    (root / "TAIL.md").write_text("x\n" * 300 + block)
    lines = (Cap(200, "lines"),)
    facts = AgentFacts(
        "t",
        (
            Load("{root}/HEAD.md", "project", caps=lines),
            Load("{root}/TAIL.md", "project", caps=lines),
        ),
    )
    head, tail = measure(found(facts, _session(root, root, fake_home)), fake_home / "store")
    assert (head.lines, head.kept, head.coffer, head.coffer_cut) == (
        303,
        (400 + len(block) - 6, 0),
        "block",
        "",
    )
    assert tail.coffer_cut == "entirely" and tail.cut[0].startswith("200 lines a file (303 here)")
    # a shared budget: the root file first, the next gets what is left
    budget = Cap(1_000, "bytes", "total")
    (root / "sub").mkdir()
    (root / "sub" / "HEAD.md").write_text("y" * 900)
    walked = AgentFacts("t", (Load("{cwd}/HEAD.md", "project", "root-down-to-cwd", (budget,)),))
    first, second = measure(found(walked, _session(root / "sub", root, fake_home)), fake_home)
    assert first.kept == (first.size, 0) and second.kept == (1_000 - first.size, 0)
    last_first = Cap(1_000, "bytes", "total", fills="last-first")
    walked = AgentFacts("t", (Load("{cwd}/HEAD.md", "project", "root-down-to-cwd", (last_first,)),))
    first, second = measure(found(walked, _session(root / "sub", root, fake_home)), fake_home)
    assert (
        second.kept == (900, 0) and first.kept == (100, 0) and first.coffer_cut == ""
    )  # the block is at its head


def test_head_and_tail_are_kept_around_the_cut(tmp_path: Path, fake_home: Path) -> None:
    root = make_repo(tmp_path / "r")
    (root / "F.md").write_text("a" * 2_000)
    cap = Cap(1_000, "chars", head=0.7, tail=0.2)
    (m,) = measure(
        found(
            AgentFacts("t", (Load("{root}/F.md", "project", caps=(cap,)),)),
            _session(root, root, fake_home),
        ),
        fake_home,
    )
    assert m.kept == (700, 200)


def test_memory_directory_template_follows_the_link_target(tmp_path: Path, fake_home: Path) -> None:
    memory = tmp_path / "mem"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("- [x](x.md)\n")
    facts = AgentFacts("t", (Load("{memory}/MEMORY.md", "project"),))
    link = Target("project", Mode.SYMLINK, memory, note="auto-memory off", active=False)
    (f,) = found(facts, _session(tmp_path, None, fake_home, project=link))
    assert (f.path, f.state, f.why) == (memory / "MEMORY.md", "off", "auto-memory off")


# ---- the built-in adapters' facts, through the CLI --------------------------------------


def test_memory_is_present_after_project_and_missing_after_unproject(repo: Path) -> None:
    assert coffer("remember", "We deploy with make release.", cwd=repo).returncode == 0
    assert coffer("remember", "Answer briefly.", "--scope", "global", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    claude = _explain(repo / "sub", "claude")
    memory = claude["memory"]
    assert memory["project"]["state"] == "loaded" and memory["project"]["path"].endswith(
        "/MEMORY.md"
    )
    assert memory["global"]["state"] == "loaded" and claude["ok"] is True
    index = next(f for f in claude["files"] if f["path"].endswith("MEMORY.md"))
    assert index["coffer"] == "index" and index["order"] == len(
        [f for f in claude["files"] if f["order"]]
    )
    assert coffer("unproject", cwd=repo).returncode == 0
    codex = _explain(repo, "codex")
    assert codex["memory"]["project"]["state"] == "missing"
    assert codex["memory"]["project"]["hint"] == "run `coffer project`"
    assert codex["ok"] is False


def test_an_empty_global_tier_asks_for_nothing(repo: Path) -> None:
    # No global entry, so `coffer project` writes no global block (docs/adr/0045): not a
    # fault, and no hint to run `coffer project` (which would write nothing).
    assert coffer("project", cwd=repo).returncode == 0
    for agent in ("claude", "codex"):
        view = _explain(repo, agent)
        assert view["memory"]["global"]["state"] == "empty"
        assert view["memory"]["project"]["state"] == "loaded"
        assert view["ok"] is True and view["hints"] == []
    (repo / "AGENTS.md").unlink()  # a real fault beside the empty tier is still said
    codex = _explain(repo, "codex")
    assert codex["hints"] == ["run `coffer project`"] and codex["ok"] is False


def test_a_project_claude_md_hides_agents_md_from_claude(repo: Path) -> None:
    assert coffer("project", cwd=repo).returncode == 0
    (repo / "AGENTS.md").write_text("# shared\n", encoding="utf-8") if not (
        repo / "AGENTS.md"
    ).exists() else None
    (repo / "CLAUDE.md").write_text("# claude only\n", encoding="utf-8")
    view = _explain(repo / "sub" / "deeper", "claude")
    agents = next(f for f in view["files"] if f["path"] == str(repo / "AGENTS.md"))
    assert (agents["state"], agents["shadowed_by"], agents["order"]) == (
        "shadowed",
        str(repo / "CLAUDE.md"),
        None,
    )
    assert any("hides" in h and "AGENTS.md" in h for h in view["hints"])


def test_agents_override_hides_agents_md_from_codex(repo: Path) -> None:
    assert coffer("project", cwd=repo).returncode == 0
    (repo / "AGENTS.override.md").write_text("# override\n", encoding="utf-8")
    view = _explain(repo, "codex")
    assert _files(view)[str(repo / "AGENTS.md")] == "shadowed"
    assert _files(view)[str(repo / "AGENTS.override.md")] == "loaded"
    # coffer's target moved to the override, which holds no block yet
    project = view["memory"]["project"]
    assert (project["state"], project["hint"]) == ("missing", "run `coffer project`")
    assert "AGENTS.md, which has it" in project["detail"]
    assert coffer("project", cwd=repo).returncode == 0
    assert _explain(repo, "codex")["memory"]["project"]["state"] == "loaded"


def test_codex_reads_root_first_and_its_budget_cuts_the_block(repo: Path) -> None:
    assert coffer("project", cwd=repo).returncode == 0
    agents = repo / "AGENTS.md"
    agents.write_text("x" * 40_000 + "\n" + agents.read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "sub" / "AGENTS.md").write_text("# sub\n", encoding="utf-8")
    view = _explain(repo / "sub", "codex")
    project = [f for f in view["files"] if f["scope"] == "project"]
    assert [f["path"] for f in project] == [str(agents), str(repo / "sub" / "AGENTS.md")]
    assert project[0]["state"] == "cut" and project[0]["kept_bytes"] == 32_768
    assert project[0]["coffer_cut"] == "entirely"
    assert (project[1]["state"], project[1]["kept_bytes"], project[1]["order"]) == (
        "dropped",
        0,
        None,
    )
    memory = view["memory"]["project"]
    assert memory["state"] == "cut" and "past Codex's limit" in memory["hint"]


def test_opencode_agents_md_hides_claude_md_and_its_global_file_hides_claudes(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    (repo / "AGENTS.md").write_text("# shared\n", encoding="utf-8")
    (repo / "sub" / "CLAUDE.md").write_text("# claude\n", encoding="utf-8")
    (fake_home / ".claude" / "CLAUDE.md").write_text("# mine\n", encoding="utf-8")
    view = _explain(repo / "sub", "opencode")
    assert _files(view)[str(repo / "sub" / "CLAUDE.md")] == "shadowed"  # AGENTS.md above
    assert _files(view)[str(fake_home / ".claude" / "CLAUDE.md")] == "loaded"
    own = tmp_path / "xdg_config_home" / "opencode" / "AGENTS.md"
    own.parent.mkdir(parents=True)
    own.write_text("# opencode\n", encoding="utf-8")
    view = _explain(repo / "sub", "opencode")
    assert _files(view)[str(fake_home / ".claude" / "CLAUDE.md")] == "shadowed"
    assert view["files"][0]["path"] == str(own) and view["files"][0]["order"] == 1


def test_windsurf_cap_cuts_a_global_block(repo: Path, fake_home: Path) -> None:
    rules = fake_home / ".codeium" / "windsurf" / "memories" / "global_rules.md"
    rules.parent.mkdir(parents=True)
    assert coffer("remember", "Answer briefly.", "--scope", "global", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0  # coffer keeps within 6,000 itself
    assert _explain(repo, "windsurf")["memory"]["global"]["state"] == "loaded"
    # rules written above the block afterwards push it past Windsurf's cap
    rules.write_text("r" * 7_000 + "\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
    view = _explain(repo, "windsurf")
    global_rules = next(f for f in view["files"] if f["path"] == str(rules))
    assert global_rules["state"] == "cut" and global_rules["coffer_cut"] == "entirely"
    assert view["memory"]["global"]["state"] == "cut"


def test_the_json_shape_is_stable(repo: Path) -> None:
    assert coffer("project", cwd=repo).returncode == 0
    done = coffer("explain", "--json", cwd=repo)
    data = json.loads(done.stdout)
    assert list(data) == ["cwd", "root", "project", "agents", "hidden"]
    assert {a["name"] for a in data["agents"]} >= {"claude", "codex", "gemini"}
    agent = data["agents"][0]
    assert list(agent) == [
        "name",
        "title",
        "present",
        "enabled",
        "ok",
        "files",
        "memory",
        "hints",
        "notes",
        "checked",
        "error",
        "coffer_memory",
    ]
    assert list(agent["memory"]) == ["project", "global"]
    assert list(agent["memory"]["project"]) == ["state", "ok", "path", "detail", "hint"]
    first = next(a for a in data["agents"] if a["files"])["files"][0]
    assert list(first) == [
        "order",
        "path",
        "template",
        "scope",
        "state",
        "bytes",
        "lines",
        "chars",
        "kept_bytes",
        "cut",
        "shadowed_by",
        "why",
        "coffer",
        "coffer_cut",
        "when",
        "how",
        "imported_by",
        "coffer_bytes",
    ]


def test_text_output_unknown_agent_and_outside_a_project(repo: Path, tmp_path: Path) -> None:
    assert coffer("project", cwd=repo).returncode == 0
    text = coffer("explain", "--agent", "codex", "--project", str(repo / "sub"), cwd=tmp_path)
    assert text.returncode == 0
    assert "codex — Codex" in text.stdout and "coffer project memory: loaded" in text.stdout
    bad = coffer("explain", "--agent", "nope", cwd=repo)
    assert bad.returncode == 2 and "unknown agent nope; known agents:" in bad.stderr
    outside = tmp_path / "plain"
    outside.mkdir()
    view = _explain(outside, "claude")
    assert view["memory"]["project"]["state"] == "no-project"


def test_a_hidden_block_is_said_with_what_hides_it(tmp_path: Path, fake_home: Path) -> None:
    from coffer.projection.explain.verdict import Agent, tier_view

    root = make_repo(tmp_path / "r")
    block = "<!-- coffer:memory:start (managed, do not edit) -->\nx\n<!-- coffer:memory:end -->\n"
    (root / "SHARED.md").write_text(block)
    (root / "OWN.md").write_text("mine")
    facts = AgentFacts("Tester", (Load("{root}/SHARED.md", "project", shadowed_by=("OWN.md",)),))
    files = measure(found(facts, _session(root, root, fake_home)), fake_home)
    target = Target("project", Mode.RENDER, root / "SHARED.md")
    view = tier_view(Agent("t", "Tester", True, root), "project", [target], files, True)
    assert (view.state, view.path) == ("shadowed", root / "SHARED.md")
    assert view.hint.startswith(f"{root / 'OWN.md'} hides {root / 'SHARED.md'} from Tester")


def test_settings_move_a_cap_and_lift_a_shadow(repo: Path, fake_home: Path) -> None:
    assert coffer("project", cwd=repo).returncode == 0
    (fake_home / ".codex" / "config.toml").write_text("project_doc_max_bytes = 64\n")
    assert _explain(repo, "codex")["memory"]["project"]["state"] == "cut"
    (repo / "CLAUDE.md").write_text("# claude\n", encoding="utf-8")
    assert _files(_explain(repo, "claude"))[str(repo / "AGENTS.md")] == "shadowed"
    both = {"options": {"instructionFiles": "claude-md-and-agents-md"}}
    settings = {"pluginConfigs": {"agents-md@builtin": both}}
    (fake_home / ".claude" / "settings.json").write_text(json.dumps(settings))
    assert _files(_explain(repo, "claude"))[str(repo / "AGENTS.md")] == "loaded"
