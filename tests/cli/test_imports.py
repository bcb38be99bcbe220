"""Issue 11: each command imports what it uses, nothing more (docs/adr/0023).

Each check runs the real command in a fresh interpreter and looks at ``sys.modules`` after
it, as the fast-path tests do: timings belong in benchmarks/bench_commands.py, but which
modules a command drags in is a fact a test can hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.cli.typer_app import COMMANDS
from tests.helpers import coffer, imported_after, make_repo

# Never needed by a command that only reads the store.
HEAVY = (
    "pydantic",  # typer 0.29 converts option values with it; coffer holds typer below 0.29
    "rich",  # typer formats help and usage errors with it, nothing else
    "mcp",
    "watchdog",
    "coffer.projection.engine",
    "coffer.setup.wiring",
    "coffer.vault.api",
)
OTHER_COMMANDS = tuple(
    f"coffer.cli.{m}"
    for m in ("memory", "health", "project", "setup", "watch", "adapter", "mcp", "ui")
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "Deploys use make release.", "--name", "d", cwd=repo).returncode == 0
    return repo


def test_typer_commands_import_only_their_own_module(repo: Path) -> None:
    # Past the quick path (an option it leaves to typer), typer loads one command module.
    argv = ["list", "--scope=global", "--scope=project"]  # a repeated option: typer's call
    code, found = imported_after(argv, repo, (*HEAVY, *OTHER_COMMANDS, "coffer.cli.read"))
    assert (code, found) == (0, ["coffer.cli.read"])
    code, found = imported_after(["reindex"], repo, ("pydantic", "rich", *OTHER_COMMANDS))
    assert (code, found) == (0, ["coffer.cli.health"])


@pytest.mark.parametrize(
    "argv",
    [
        ["where"],
        ["where", "--json", "--project", "."],
        ["list", "--scope", "global"],
        ["show", "d"],
        ["recall", "deploy", "--limit", "3"],
    ],
)
def test_read_commands_import_no_typer_no_engine(repo: Path, argv: list[str]) -> None:
    # The quick path (coffer.cli.quick) runs them: not even typer is imported.
    code, found = imported_after(argv, repo, ("typer", "coffer.cli.typer_app", *HEAVY))
    assert (code, found) == (0, [])


def test_version_imports_no_typer(repo: Path) -> None:
    assert imported_after(["--version"], repo, ("typer", "coffer.store.store")) == (0, [])
    assert coffer("--version").stdout == f"coffer {__import__('coffer').__version__}\n"


def test_watch_status_and_adapter_list_skip_typer(repo: Path) -> None:
    for argv in (["watch", "--status"], ["adapter", "list"]):
        code, found = imported_after(argv, repo, ("typer", "pydantic", "rich", "mcp", "watchdog"))
        assert found == [], argv
        assert code in (0, 1, 3), argv
    # Neither the setup planner nor the watcher itself: only the service's status (ADR 0023);
    # nor the adapter contract and its agent facts, which only `setup` hands a Launch to.
    status_skips = (
        "coffer.projection.engine",
        "coffer.setup.wiring",
        "coffer.watch.daemon",
        "coffer.adapter",
        "coffer.adapter.facts",
    )
    code, found = imported_after(["watch", "--status"], repo, (*status_skips, "yaml"))
    assert found == []
    # The audit loads what judges a target's state, not what writes or undoes one.
    audit_skips = ("coffer.projection.git.hiding", "coffer.projection.unproject", "difflib")
    code, found = imported_after(["adapter", "list"], repo, (*audit_skips, "filelock"))
    assert found == []


@pytest.mark.parametrize(
    ("argv", "codes"),
    [
        (["explain"], (0,)),
        (["doctor", "--json"], (0, 1)),
        (["remember", "-", "--name", "e", "--anchor", "a.py", "--anchor", "b.py"], (0,)),
    ],
)
def test_explain_doctor_and_remember_skip_typer(
    repo: Path, argv: list[str], codes: tuple[int, ...]
) -> None:
    # The quick path runs them too (docs/adr/0050): typer's start-up alone would put them
    # over their budget.
    code, found = imported_after(argv, repo, ("typer", "click", *HEAVY[:3]), input="Stdin.")
    assert code in codes and found == []


@pytest.mark.parametrize("argv", [["where"], ["list", "--scope", "global"], ["show", "d"]])
def test_reads_without_a_parse_skip_yaml_subprocess_and_tempfile(
    repo: Path, argv: list[str]
) -> None:
    # PyYAML loads on the first entry parsed, subprocess on the first git call, tempfile on
    # the first write (ADR 0023); `where` needs none, `list`/`show` read the index.
    code, found = imported_after(argv, repo, ("subprocess", "tempfile"))
    assert (code, found) == (0, [])
    code, found = imported_after(["where"], repo, ("yaml",))
    assert (code, found) == (0, [])


def test_help_and_usage_errors_still_load_everything_they_show(repo: Path) -> None:
    # Help lists every command, in the declared order, formatted by click without rich
    # (rich and markdown-it cost more than the rest of `coffer --help`; ADR 0023).
    helped = coffer("--help", cwd=repo).stdout
    # The command list ends at the epilog (the exit codes); a long summary wraps onto an
    # indented line of its own.
    commands = helped.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    listed = [line.split()[0] for line in commands.splitlines() if not line.startswith("    ")]
    assert listed == list(COMMANDS)
    assert imported_after(["--help"], repo, ("rich", "markdown_it", "coffer.watch.daemon")) == (
        0,
        [],
    )
    bad = coffer("list", "--scope", "team", cwd=repo)
    assert bad.returncode == 2 and "Invalid value for '--scope'" in bad.stderr
    typo = coffer("lsit", cwd=repo)
    assert typo.returncode == 2 and "No such command" in typo.stderr


def test_out_of_range_values_get_typers_own_message(repo: Path) -> None:
    r = coffer("recall", "x", "--limit", "0", cwd=repo)
    assert r.returncode == 2 and "--limit" in r.stderr and "0 is not in the range x>=1" in r.stderr


def test_a_full_projection_without_a_vault_never_imports_the_vault(repo: Path) -> None:
    # The stamp signs <root>/.ecc and <root>/.ecc/memory (absent): making a vault later
    # changes them, so the vault package is loaded only once a project has one.
    code, found = imported_after(["project", "--quiet"], repo, ("coffer.vault.handoffs",))
    assert (code, found) == (0, [])
    (repo / ".ecc" / "memory").mkdir(parents=True)
    code, found = imported_after(["project", "--quiet"], repo, ("coffer.vault.handoffs",))
    assert (code, found) == (0, ["coffer.vault.handoffs"])  # the vault appeared: full path


def test_a_full_projection_and_the_audit_skip_difflib_and_ranking(
    repo: Path, fake_home: Path
) -> None:
    # A real run plans its diffs without difflib, and neither command ranks. Both may use
    # dataclasses (the journal's records are), as every command off the session-start no-op
    # may (docs/adr/0049). (tempfile and threading cannot be held here: a fresh `python -c`
    # misses the adapter cache, whose rebuild imports them through importlib.metadata and git.)
    skips = ("difflib", "coffer.store.ranking")
    (fake_home / ".codex").mkdir()
    (fake_home / ".claude").mkdir()
    assert coffer("project", cwd=repo).returncode == 0
    tier = Path(json.loads(coffer("where", "--json", cwd=repo).stdout)["project"]["dir"])
    entry = tier / "d.md"
    entry.write_text(entry.read_text().replace("make release", "make ship"))
    code, found = imported_after(["project"], repo, skips)
    assert (code, found) == (0, [])  # the full path: an entry changed since the last run
    assert "make ship" in (repo / "AGENTS.md").read_text()
    code, found = imported_after(["adapter", "list"], repo, skips)
    assert found == []


def test_the_session_start_no_op_imports_no_typing(tmp_path: Path, fake_home: Path) -> None:
    # typing is ~3 ms, a sixth of a bare interpreter start: the no-op (and --version) stay
    # without it. Everyday commands may use typing, dataclasses and the rest of the stdlib
    # within their own budget (docs/adr/0049). A fresh `python -c` puts its working
    # directory on the import path, so it runs from one nothing writes to, else the entry
    # points are scanned again.
    import os

    (fake_home / ".codex").mkdir()
    (fake_home / ".claude").mkdir()
    repo = make_repo(tmp_path / "repo")
    assert coffer("remember", "Deploys use make release.", "--name", "d", cwd=repo).returncode == 0
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    os.utime(quiet, (1_600_000_000, 1_600_000_000))
    at = ["--project", str(repo)]
    assert imported_after(["project", *at], quiet, ())[0] == 0  # records the stamp
    assert "Deploys use make release." in (repo / "AGENTS.md").read_text()
    for argv in (["--version"], ["project", *at]):  # the second: the no-op
        assert imported_after(argv, quiet, ("typing",)) == (0, []), argv
