"""Issue 11: the typer-free quick path of the everyday commands (coffer.cli.quick, ADR 0050)
accepts what typer accepts, prints what typer prints, and hands typer everything else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import typer.main

from coffer.cli import quick, typer_app
from tests.helpers import coffer, make_repo


def _typer_command(words: tuple[str, ...]) -> typer.core.TyperCommand:
    typer_app.register_commands(list(words))
    command = typer.main.get_command(typer_app.app)
    for word in words:
        command = command.commands[word]  # type: ignore[attr-defined]
    return command  # type: ignore[return-value]


@pytest.mark.parametrize("words", list(quick.COMMANDS))
def test_the_runner_takes_what_the_typer_command_declares(words: tuple[str, ...]) -> None:
    # Each option is declared once (coffer.cli.grammar) and typer builds its Option from
    # it; a command lists its options twice, in its typer signature and in its runner's
    # parameters, and here the two must agree (docs/adr/0050).
    spec = quick.COMMANDS[words]
    params = quick.params_of(spec.runner())
    options = spec.options(params)
    declared = _typer_command(words).params
    by_word = {w: p for p in declared for w in (*p.opts, *p.secondary_opts)}
    for option in options.values():
        for word, value in option.words().items():
            param = by_word[word]
            assert param.is_flag == option.flag, word  # type: ignore[attr-defined]
            assert (word in param.secondary_opts) == (value is False), word
            assert param.default == option.default, word
    # The other way round: an option added to the typer command must reach the runner too,
    # or the quick path would refuse it and every such call would pay typer's start-up.
    # Only a command the quick path serves in one form (`watch --status`) may have more.
    words_here = {w for o in options.values() for w in o.words()}
    missing = {
        w for p in declared if p.param_type_name == "option" for w in by_word if by_word[w] is p
    }
    missing -= words_here
    assert not missing or spec.required, sorted(missing)
    arguments = [p.name for p in declared if p.param_type_name == "argument"]
    assert arguments == [p for p in params if p not in options]
    # What a missing project's error suggests depends on these.
    for key in ("--project", "--scope", "--global"):
        assert (key in words_here) == (key in typer_app.options_of(list(words))), key


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    for args in (
        ["remember", "Deploys use make release.", "--name", "deploys"],
        ["remember", "Prefer tabs \x1b[31mred\x1b[0m.", "--name", "tabs", "--scope", "global"],
        ["remember", "token sk-" + "a" * 24 + " end", "--name", "leak"],
    ):
        assert coffer(*args, cwd=repo).returncode in (0, 1)
    return repo


SAME = [
    ["where"],
    ["where", "--json"],
    ["list"],
    ["list", "--json", "--scope=global"],
    ["list", "--scope", "project", "--project", "."],
    ["show", "deploys"],
    ["show", "--json", "tabs"],
    ["show", "nope"],
    ["recall", "make release"],
    ["recall", "deploy", "--limit", "1", "--json"],
    ["recall", "zzz-nothing"],
    ["watch", "--status"],
    ["watch", "--json", "--status"],
    ["adapter", "list"],
    ["adapter", "list", "--json"],
    ["project", "--dry-run"],
    ["project", "--dry-run", "-q", "--for", "claude"],
    ["project", "--dry-run", "--no-resume", "--for=claude"],
    ["explain"],
    ["explain", "--json"],
    ["explain", "--agent", "claude"],
    ["explain", "--agent=codex", "--json", "--project", "."],
    ["explain", "--agent", "vim"],
    ["doctor"],
    ["doctor", "--json"],
    ["doctor", "--all"],
    ["doctor", "--rebuild-projects"],
    ["doctor", "--rebuild-registry", "--json", "--all"],
]


@pytest.mark.parametrize("argv", SAME, ids=" ".join)
def test_quick_prints_exactly_what_typer_prints(
    repo: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    quick_code = quick.run(argv)
    quick_out = capfd.readouterr()
    typer_code = typer_app.run(argv)
    typer_out = capfd.readouterr()
    assert quick_code is not None
    assert (quick_code, quick_out.out, quick_out.err) == (typer_code, typer_out.out, typer_out.err)


def test_outside_a_project_the_error_names_the_same_ways_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for argv in (
        ["list", "--scope", "project"],
        ["show", "x", "--scope", "project"],
        ["remember", "A fact.", "--name", "fact"],
    ):
        quick_code = quick.run(argv)
        quick_err = capfd.readouterr().err
        assert (quick_code, quick_err) == (typer_app.run(argv), capfd.readouterr().err)
        assert quick_code == 1 and "--project PATH" in quick_err


@pytest.mark.parametrize(
    "argv",
    [
        ["where", "--help"],
        ["list", "-h"],
        ["list", "--scope", "team"],
        ["list", "--scope"],
        ["list", "--json", "--json"],
        ["list", "--sc", "global"],
        ["show"],
        ["show", "a", "b"],
        ["show", "--", "-x"],
        ["recall", "x", "--limit", "0"],
        ["recall", "x", "--limit", "ten"],
        ["recall", "x", "--limit", "010"],
        ["where", "--project", ""],
        ["watch"],
        ["watch", "--status", "--verbose"],
        ["adapter", "enable", "claude"],
        ["explain", "--agent"],
        ["explain", "--help"],
        ["doctor", "--all", "--all"],
        ["doctor", "--json=yes"],
        ["remember"],
        ["remember", "x", "y"],
        ["remember", "--", "-x"],
        ["remember", "x", "--name", "Not A Slug"],
        ["remember", "x", "--name", "con"],
        ["remember", "x", "--name", "a", "--name", "b"],
        ["remember", "x", "--type", "opinion"],
        ["remember", "x", "--scope", "team"],
        ["remember", "x", "--description", ""],
        ["remember", "x", "--anchor"],
        ["remember", "x", "--replace=yes"],
        ["--json", "where"],
        ["project", "--git-block", "public"],
        ["project", "--for"],
    ],
    ids=" ".join,
)
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert quick.run(argv) is None


def test_completion_is_left_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_COFFER_COMPLETE", "complete_bash")
    assert quick.run(["where"]) is None


def test_a_closed_pipe_ends_quietly_as_before(repo: Path) -> None:
    import subprocess
    import sys

    # `coffer list | head -0`: the reader is gone before coffer writes.
    proc = subprocess.Popen(
        [sys.executable, "-m", "coffer", "list"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 1) and b"Traceback" not in err


def test_project_runs_the_same_either_way(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    assert quick.run(["project"]) == 0
    assert capfd.readouterr().out  # what it changed
    # Projected already: both paths find nothing to do and say the same.
    for argv in (["project"], ["project", "--quiet", "--git-block", "hide"]):
        quick_code, quick_out = quick.run(argv), capfd.readouterr()
        typer_code, typer_out = typer_app.run(argv), capfd.readouterr()
        assert (quick_code, quick_out) == (typer_code, typer_out)


# What `coffer remember` writes and says, the quick path's run against typer's. NAME is the
# entry's name (and in its text, since an entry of the same text is "already remembered"):
# fact-q on the quick path, fact-t through typer, so that both create one.
REMEMBER = [
    ["remember", "Builds run in CI for NAME.", "--name", "NAME"],
    ["remember", "Builds run in CI for NAME.", "--name=NAME", "--json"],
    ["remember", "-", "--name", "NAME", "--description", "From stdin.", "--type", "project"],
    ["remember", "Global NAME.", "--name", "NAME", "--scope", "global", "--no-replace"],
    ["remember", "Replaced NAME.", "--name", "NAME", "--replace", "--type=user"],
    ["remember", "Anchored NAME.", "--name", "NAME", "--anchor", "a.py", "--anchor=b.py#main"],
    [
        "remember",
        "Later NAME.",
        "--name",
        "NAME",
        "--review-after",
        "90d",
        "--origin-session-id",
        "s1",
    ],
    ["remember", "Bad date NAME.", "--name", "NAME", "--review-after", "someday"],
    ["remember", "token sk-" + "b" * 24 + " NAME", "--name", "NAME"],
]


@pytest.mark.parametrize("argv", REMEMBER, ids=" ".join)
def test_remember_writes_and_says_the_same_either_way(
    repo: Path,
    fake_home: Path,
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    import io

    (fake_home / ".codex").mkdir()  # an agent, so the write refreshes its AGENTS.md
    monkeypatch.chdir(repo)
    (repo / "a.py").write_text("x = 1\n")
    (repo / "b.py").write_text("def main(): ...\n")
    assert quick.run(["project", "--quiet"]) == 0
    capfd.readouterr()

    def said(run: Callable[[list[str]], int | None], name: str) -> tuple[object, ...]:
        monkeypatch.setattr("sys.stdin", io.StringIO(f"Read from stdin for {name}.\n"))
        code = run([w.replace("NAME", name) for w in argv])
        out = capfd.readouterr()
        return code, out.out.replace(name, "NAME"), out.err.replace(name, "NAME")

    created = said(quick.run, "fact-q")
    assert created[0] is not None
    assert created == said(typer_app.run, "fact-t")
    assert created[0] != 0 or "AGENTS.md" in str(created[1])  # the refresh is said too
    # Again, now that each entry exists: both say so alike.
    assert said(quick.run, "fact-q") == said(typer_app.run, "fact-t")
