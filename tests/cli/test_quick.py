"""Issue 11: the typer-free quick path of the read commands (coffer.cli.quick, ADR 0023)
accepts what typer accepts, prints what typer prints, and hands typer everything else."""

from __future__ import annotations

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
    for argv in (["list", "--scope", "project"], ["show", "x", "--scope", "project"]):
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
        ["remember", "x"],
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
