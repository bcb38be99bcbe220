"""The store commands through the real CLI: output, --json, exit codes, stdin."""

from __future__ import annotations

import json

import pytest

from coffer.cli.typer_app import run
from tests.helpers import coffer, imported_after, make_repo


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


def test_remember_list_show_recall_forget_json(repo):
    out = coffer("remember", "We deploy with make release.", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    saved = json.loads(out.stdout)
    assert saved["action"] == "created" and saved["tier"]["root"] == str(repo)
    assert saved["tier"]["project"] == "repo"
    g = coffer(
        "remember",
        "-",
        "--scope",
        "global",
        "--type",
        "feedback",
        "--name",
        "tabs",
        input="Prefer tabs.\n",
        cwd=repo,
    )
    assert g.returncode == 0, g.stderr
    listed = json.loads(coffer("list", "--json", cwd=repo).stdout)
    assert [t["scope"] for t in listed["tiers"]] == ["project", "global"]
    assert listed["tiers"][1]["entries"][0]["name"] == "tabs"
    shown = json.loads(coffer("show", "tabs", "--json", cwd=repo).stdout)
    assert shown["type"] == "feedback" and shown["body"].strip() == "Prefer tabs."
    hits = json.loads(coffer("recall", "deploy release", "--json", cwd=repo).stdout)["results"]
    assert hits[0]["name"] == "we-deploy-with-make-release"
    assert hits[0]["file"].endswith(".md") and hits[0]["tier"]["scope"] == "project"
    human = coffer("recall", "deploy", cwd=repo).stdout
    assert "[repo (" in human and ".md" in human
    assert coffer("forget", "tabs", "--scope", "global", cwd=repo).returncode == 0
    assert coffer("show", "tabs", cwd=repo).returncode == 1


def test_where_names_the_project_by_path(repo):
    (repo / "sub").mkdir()
    out = coffer("where", "--json", cwd=repo / "sub")
    data = json.loads(out.stdout)
    assert data["project"]["root"] == str(repo) and data["project"]["name"] == "repo"
    assert data["project"]["id"] is None  # read commands never register a project


def test_project_option_acts_elsewhere(repo, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert coffer("remember", "fact", "--project", str(repo), cwd=other).returncode == 0
    listed = json.loads(coffer("list", "--json", "--project", str(repo), cwd=other).stdout)
    assert listed["tiers"][0]["root"] == str(repo)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["remember", ""], "nothing to remember"),
        (["remember", "key ghp_" + "a" * 36], "looks like a secret (GitHub token)"),
        (["show", "missing"], "no entry named 'missing'"),
        (["recall", "  "], "the query is empty"),
        (["list", "--project", "/definitely/not/here"], "does not exist"),
    ],
)
def test_errors_are_one_line_exit_1_and_never_echo_secrets(repo, args, message):
    out = coffer(*args, cwd=repo)
    assert out.returncode == 1
    assert out.stderr.startswith("coffer: error: ") and message in out.stderr
    assert "Traceback" not in out.stderr and "ghp_aaaa" not in out.stderr


def test_usage_errors_exit_2(repo):
    # Invalid option values (`--type bogus`, `--scope team`) too: tests/cli/test_words.py.
    out = coffer("recall", cwd=repo)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert coffer("nosuch", cwd=repo).returncode == 2


def test_home_directory_is_not_a_project(fake_home):
    out = coffer("remember", "x", cwd=fake_home)
    assert out.returncode == 1 and "home directory" in out.stderr
    assert coffer("remember", "x", "--scope", "global", cwd=fake_home).returncode == 0


def test_doctor_reports_and_exits_nonzero(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    assert run(["remember", "See [[nowhere]] for more.", "--name", "linker"]) == 0
    from tests.helpers import store

    tier = store().project_tier(repo)
    (tier.dir / "bad.md").write_text("---\nname: [x\n---\n")
    (tier.dir / "dup.md").write_text("---\nname: linker\ndescription: d\n---\nb\n")
    capsys.readouterr()
    assert run(["doctor", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    messages = " | ".join(f["message"] for f in findings)
    assert "not a usable entry" in messages
    assert "duplicate name 'linker'" in messages
    assert "broken link [[nowhere]]" in messages
    assert "out of date" in messages
    assert (tier.dir / "bad.md").read_text() == "---\nname: [x\n---\n"  # reports only
    assert run(["reindex"]) == 0
    capsys.readouterr()
    run(["doctor", "--json"])
    assert "out of date" not in capsys.readouterr().out


def test_clean_doctor_exits_zero(repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert run(["remember", "fine"]) == 0
    assert run(["doctor"]) == 0


def test_remember_twice_same_name_needs_replace(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    assert run(["remember", "one", "--name", "n"]) == 0
    assert run(["remember", "two", "--name", "n"]) == 1
    assert "--replace" in capsys.readouterr().err
    assert run(["remember", "two", "--name", "n", "--replace"]) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["remember", "x", "--name", "x"],
        ["recall", "x"],
        ["list"],
        ["doctor"],
        ["where"],
        ["project"],
        ["adapter", "list"],
        ["vault", "search", "x"],
        ["--help"],
    ],
)
def test_no_command_but_watch_and_mcp_imports_watchdog_or_mcp(repo, argv):
    _, heavy = imported_after(argv, repo, ("watchdog", "mcp"))
    assert heavy == []


def test_corrupt_registry_is_reported_and_rebuilt(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    assert run(["remember", "fact", "--name", "f"]) == 0
    from tests.helpers import store

    registry = store().root / "projects.json"
    registry.write_text("{not json")
    capsys.readouterr()
    assert run(["list"]) == 1
    assert "--rebuild-projects" in capsys.readouterr().err
    assert run(["doctor"]) == 1
    assert "projects.json" in capsys.readouterr().out
    assert run(["doctor", "--rebuild-projects"]) == 0
    assert "rebuilt" in capsys.readouterr().out
    assert run(["show", "f"]) == 0
    assert [p.read_text() for p in registry.parent.glob("projects.json.*.bak")] == ["{not json"]


def test_doctor_rebuild_registry_is_the_old_spelling_of_rebuild_projects(capsys):
    assert run(["remember", "fact", "--name", "f"]) == 0
    capsys.readouterr()
    assert run(["doctor", "--rebuild-registry"]) == 0
    assert "rebuilt" in capsys.readouterr().out


def test_version():
    from coffer import __version__

    out = coffer("--version")
    assert (out.returncode, out.stdout) == (0, f"coffer {__version__}\n")
