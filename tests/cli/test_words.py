"""Issue 9, point 8: hints that name real commands, exit codes, words, exact output."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from coffer.cli.typer_app import app, register_commands
from coffer.vault.cli import COMMANDS as VAULT_COMMANDS
from tests.helpers import coffer, make_repo, store, write_entry

ROOT = Path(__file__).resolve().parents[2]
_HINT = re.compile(r"`(coffer [^`\n]*)`")


def _hints() -> list[tuple[str, str]]:
    """Every backticked `coffer …` in the package source: (where, command line)."""
    found = []
    for path in sorted([*(ROOT / "coffer").rglob("*.py"), *(ROOT / "adapters").rglob("*.py")]):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for m in _HINT.finditer(line):
                # An f-string placeholder stands for a value: any word will do.
                found.append((f"{path.relative_to(ROOT)}:{n}", re.sub(r"\{[^}]*\}", "x", m[1])))
    return found


def _readme_lines() -> list[str]:
    """The README's command lines: shell-block lines and inline `coffer …` spans."""
    text = (ROOT / "README.md").read_text()
    lines = [m[1] for m in _HINT.finditer(text)]
    for blk in re.findall(r"```sh\n(.*?)```", text, re.S):
        lines += [ln for ln in blk.splitlines() if ln.startswith("coffer ")]
    return lines


def check_command_line(line: str) -> None:
    """Parse ``line`` (``coffer …``) with the real CLI; raise if a word names nothing."""
    words = shlex.split(line, comments=True)
    # Shell plumbing around the command is not the command's.
    for i, w in enumerate(words):
        if w in ("<", ">", "<<<", "|", "&&", ";"):
            assert w != "|" or "coffer" not in words[i + 1 :], f"{line!r} pipes into coffer"
            words = words[:i]
            break
    assert words[0] == "coffer", line
    words = [w[1:-1] if w.startswith("[") and w.endswith("]") else w for w in words]  # [--opt]
    register_commands()
    command = typer.main.get_command(app)
    args = words[1:]
    path = ["coffer"]
    while args and not args[0].startswith("-"):
        sub = getattr(command, "commands", {}).get(args[0])
        if sub is None:
            assert not getattr(command, "commands", None), f"{line!r}: no command {args[0]!r}"
            break
        if args[0] == "vault":  # raw arguments: the vault's own parser owns them
            assert len(args) == 1 or args[1] in VAULT_COMMANDS, line
            return
        command, path, args = sub, [*path, args[0]], args[1:]
    if getattr(command, "commands", None) and not args:
        return  # a group named on its own (`coffer adapter`) lists its commands
    eager = {"--help", "--version", "--show-completion", "--install-completion"} & set(args)
    if eager:
        # Parsing these would act (print, install) and exit: check only that they exist.
        opts = {o for p in command.params for o in getattr(p, "opts", ())} | {"--help"}
        assert eager <= opts, f"{line!r}: {eager - opts} not options of {' '.join(path)}"
        return
    # Raises on an unknown command or option, a bad value or an extra argument, as the real
    # run would. A missing argument is fine: prose names a command (`coffer update`) too.
    try:
        with command.make_context(" ".join(path), list(args)):
            pass
    except Exception as exc:
        if type(exc).__name__ != "MissingParameter":
            raise


HINTS = _hints()


def test_the_package_has_hints_to_check() -> None:
    assert len(HINTS) > 30 and any("--replace-edited" in h for _, h in HINTS)


@pytest.mark.parametrize(("where", "hint"), HINTS, ids=[w for w, _ in HINTS])
def test_every_hint_names_a_real_command_and_options(where: str, hint: str) -> None:
    check_command_line(hint)


@pytest.mark.parametrize("line", _readme_lines())
def test_every_readme_command_line_parses(line: str) -> None:
    check_command_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "coffer where --scope global",  # what `where` once suggested
        "coffer list | coffer show NAME",
        "coffer setup --agent",
        "coffer nosuch",
    ],
)
def test_the_checker_catches_what_is_wrong(line: str) -> None:
    with pytest.raises(Exception):  # noqa: B017, PT011 - any refusal will do
        check_command_line(line)


def test_readme_everyday_commands_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `coffer edit NAME` opens the editor: one that leaves the entry as it was.
    monkeypatch.setenv("VISUAL", "true")
    repo = make_repo(tmp_path / "repo")
    (repo / "note.md").write_text("Prefer small commits.\n")
    text = (ROOT / "README.md").read_text()
    block = text.split("## Everyday use", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    ran = 0
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words[1] in ("watch", "setup"):  # a foreground daemon; a prompt
            continue
        stdin = None
        if "<" in words:
            stdin = (repo / words[words.index("<") + 1]).read_text()
            words = words[: words.index("<")]
        if ">" in words:
            words = words[: words.index(">")]
        if "NAME" in words:
            tier = store().project_tier(repo)
            assert tier is not None
            name = store().entries(tier)[0].name
            words = [name if w == "NAME" else w for w in words]
        r = coffer(*words[1:], cwd=repo, input=stdin)
        assert r.returncode == 0, (line, r.stdout, r.stderr)
        ran += 1
    assert ran >= 9


def test_hints_at_home_name_options_the_command_has(fake_home: Path) -> None:
    where = coffer("where", cwd=fake_home)
    assert where.returncode == 0, where.stderr
    assert "project: none" in where.stdout and "--scope" not in where.stdout + where.stderr
    assert json.loads(coffer("where", "--json", cwd=fake_home).stdout)["project"] is None

    said = coffer("remember", "x", cwd=fake_home)
    assert said.returncode == 1 and "add --scope global" in said.stderr
    assert coffer("remember", "x", "--scope", "global", cwd=fake_home).returncode == 0
    undo = coffer("unproject", cwd=fake_home)
    assert undo.returncode == 1
    assert "--scope" not in undo.stderr and "add --global" in undo.stderr
    init = coffer("init", cwd=fake_home)
    assert "--scope" not in init.stderr and "--project PATH" in init.stderr


def test_outside_git_the_hints_name_init_and_real_options(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    said = coffer("forget", "x", cwd=scratch)
    assert said.returncode == 1
    assert "`coffer init` there makes it one" in said.stderr and "--scope global" in said.stderr
    where = coffer("where", cwd=scratch)
    assert where.returncode == 0 and "`coffer init` there makes it one" in where.stdout


def test_one_list_of_agent_names_in_every_unknown_agent_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    from coffer.adapter import registry

    # every installed adapter, in the registry's order (the list grows with each new agent)
    known = "known agents: " + ", ".join(registry.load_adapters().adapters)
    for args in (
        ["setup", "--agent", "vim"],
        ["unproject", "--agent", "vim"],
        ["adapter", "enable", "vim"],
        ["adapter", "disable", "vim"],
    ):
        r = coffer(*args, cwd=repo)
        assert r.returncode == 2, (args, r.stderr)  # a usage error
        assert f"coffer: error: unknown agent vim; {known}\n" == r.stderr, args


def test_setup_never_suggests_an_agent_it_would_refuse(fake_home: Path) -> None:
    r = coffer("setup", "--dry-run")
    assert r.returncode == 0, r.stderr
    # One line for the absent agents setup could wire, one for those it could not, so two
    # dozen absent agents are two lines, and --agent is suggested only where it works.
    lines = [x for x in r.stdout.splitlines() if "not found on this machine" in x]
    assert len(lines) == 2, r.stdout
    wireable, unwireable = lines
    assert "claude" in wireable and "`coffer setup --agent NAME` wires one anyway" in wireable
    assert "aider" in unwireable and "--agent" not in unwireable  # aider: nothing to wire


@pytest.mark.parametrize(
    "args",
    [
        ["remember", "x", "--type", "bogus"],
        ["remember", "x", "--scope", "team"],
        ["remember", "x", "--name", "Not A Name"],
        ["list", "--scope", "team"],
        ["recall", "x", "--scope", "team"],
        ["recall", "x", "--limit", "0"],
        ["forget", "x", "--scope", "team"],
        ["update", "x", "new text", "--scope", "team"],
        ["update", "x", "--type", "bogus"],
        ["show", "x", "--scope", "team"],
    ],
)
def test_invalid_option_values_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    repo = make_repo(tmp_path / "repo")
    r = coffer(*args, cwd=repo)
    assert r.returncode == 2, r.stderr
    assert "Invalid value for" in r.stderr and args[-2] in r.stderr
    assert store().project_tier(repo) is None  # nothing was written


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    tier = store().project_tier(repo, create=True)
    assert tier is not None
    # 400 entries make `list` print ~90 KB, more than a pipe holds (64 KiB), so the command is
    # still writing when the reader goes away. Written as files: 400 `remember`s cost seconds.
    for i in range(400):
        write_entry(tier.dir, f"fact-{i}", f"fact {i} " + "padding " * 30)
    for args in (["list"], ["list", "--json"], ["vault", "--help"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "coffer", *args],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # `| head -1`
        err = proc.stderr.read()
        assert proc.wait(timeout=60) in (0, 1), err
        assert err == b"", args  # no traceback, no "Exception ignored"


def test_show_into_a_file_is_the_entry_file_exactly(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "We deploy on Fridays.", "--name", "deploy", cwd=repo).returncode == 0
    tier = store().project_tier(repo)
    assert tier is not None
    path = tier.dir / "deploy.md"
    # Hand-made formatting (comment, key order, no final newline) must survive as is.
    original = b"---\n# mine\ndescription: d\nname: deploy\n---\n\nWe deploy on Fridays."
    path.write_bytes(original)
    out = subprocess.run(
        [sys.executable, "-m", "coffer", "show", "deploy"], cwd=repo, capture_output=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == original
    assert str(path).encode() in out.stderr  # the header went elsewhere


def test_words_plurals_tenses_and_no_doubled_prefix(tmp_path: Path, fake_home: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (fake_home / ".codex").mkdir()
    (fake_home / ".codex" / "config.toml").write_text("[features]\nmemories = true\n")
    assert coffer("remember", "One fact.", cwd=repo).returncode == 0
    listed = coffer("list", cwd=repo).stdout
    assert ": 1 entry\n" in listed and ": 0 entries\n" in listed
    for fact in ("Answer briefly.", "Use metric units."):
        assert coffer("remember", fact, "--scope", "global", cwd=repo).returncode == 0
    done = coffer("project", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "1 project entry" in done.stdout and "2 global entries" in done.stdout
    assert "coffer: coffer" not in done.stderr and "coffer turned off codex's own" in done.stderr
    dry = coffer("unproject", "--dry-run", cwd=repo).stdout
    assert "would remove" in dry and "deleted" not in dry and "removed" not in dry, dry


def test_columns_stay_aligned_with_long_names(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    long_name = "a-name-much-longer-than-thirty-two-characters-for-alignment"
    assert coffer("remember", "Long.", "--name", long_name, cwd=repo).returncode == 0
    assert coffer("remember", "Short.", "--name", "s", "--type", "user", cwd=repo).returncode == 0
    rows = [ln for ln in coffer("list", cwd=repo).stdout.splitlines() if ln.startswith("  ")]
    assert len(rows) == 2
    # The type column starts at the same place on every row.
    assert (
        len({row.index(" project ") if "project" in row else row.index(" user ") for row in rows})
        == 1
    )


def test_help_text_is_not_broken_mid_sentence() -> None:
    register_commands()
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    for name, command in group.commands.items():
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (name, paragraph)


# ---- shell completion (issue 9, point 9) ------------------------------------------------


def complete(line: str, **env: str) -> list[str]:
    """What the shell would offer after ``line`` (bash protocol, as the installed script asks)."""
    words = line.split(" ")
    r = coffer(
        env={
            "_COFFER_COMPLETE": "complete_bash",
            "COMP_WORDS": line,
            "COMP_CWORD": str(len(words) - 1),
            **env,
        }
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_shell_completion_is_on(fake_home: Path) -> None:
    helped = coffer("--help").stdout
    assert "--install-completion" in helped and "--show-completion" in helped
    fixed = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    script = coffer("--show-completion", "bash", env=fixed)
    assert script.returncode == 0, script.stderr
    assert "_COFFER_COMPLETE=complete_bash" in script.stdout
    installed = coffer("--install-completion", "bash", env=fixed)
    assert installed.returncode == 0, installed.stderr
    assert "coffer" in (fake_home / ".bashrc").read_text()

    assert complete("coffer rem") == ["remember"]
    assert complete("coffer list --scope ") == ["project", "global"]
    assert complete("coffer remember x --type f") == ["feedback"]
    assert set(complete("coffer setup --agent ")) >= {"claude", "codex"}
    assert complete("coffer adapter enable cl") == ["claude", "cline"]
    assert "handoff" in complete("coffer vault ")


def test_completion_leaves_the_session_start_paths_alone(tmp_path: Path) -> None:
    from tests.helpers import imported_after

    repo = make_repo(tmp_path / "repo")
    assert coffer("project", "--quiet", cwd=repo).returncode == 0
    for argv in (["project"], ["vault", "--help"]):
        code, mods = imported_after(argv, repo, ("typer", "shellingham", "coffer.cli"))
        assert (code, mods) == (0, []), argv
