"""Issue 22 points 19-20 and issue 23 point 9: a full disk, a store coffer may not read and
text that is not UTF-8 give one `coffer: error:` line (a hook exits 0 and says it); suggested
commands run as printed; one error style, exit codes said, help that reads, "did you mean"."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo, store


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    assert coffer("remember", "We deploy with make release.", cwd=r).returncode == 0
    return r


def site(tmp_path: Path, code: str) -> dict[str, str]:
    """An environment whose interpreters run ``code`` first (a sitecustomize module): the
    machine misbehaving the way the test needs, with coffer's code untouched."""
    d = tmp_path / "site"
    d.mkdir(exist_ok=True)
    (d / "sitecustomize.py").write_text(code)
    return {"PYTHONPATH": str(d)}


def one_error_line(out: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert out.returncode == code, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.splitlines()
    assert lines and lines[-1].startswith("coffer: error: "), out.stderr
    return lines[-1]


def hook_message(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 0, out.stderr  # a hook never fails the agent's start
    assert "Traceback" not in out.stderr, out.stderr
    return str(json.loads(out.stdout)["systemMessage"])


# A disk that fills up under coffer: every fsync of a file fails with ENOSPC, as on a full
# file system whose blocks are allocated at fsync (ext4's delayed allocation).
FULL_DISK = """
import errno, os, stat
_fsync = os.fsync
def fsync(fd):
    if stat.S_ISREG(os.fstat(fd).st_mode):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return _fsync(fd)
os.fsync = fsync
"""


def test_a_full_disk_is_one_error_line_and_loses_nothing(repo: Path, tmp_path: Path) -> None:
    tier = store().project_tier(repo)
    assert tier is not None
    before = sorted(p.name for p in tier.dir.iterdir())
    full = site(tmp_path, FULL_DISK)
    line = one_error_line(coffer("remember", "The cache lives in /var/cache.", cwd=repo, env=full))
    assert "no space left on the device" in line and str(tier.dir) in line
    assert sorted(p.name for p in tier.dir.iterdir()) == before  # no entry, no temp file
    # The session-start hook: exit 0, and the agent shows why nothing was projected.
    assert "no space left on the device" in hook_message(
        coffer("project", "--hook", cwd=repo, env=full)
    )
    assert coffer("remember", "The cache lives in /var/cache.", cwd=repo).returncode == 0


def test_a_full_disk_while_writing_a_block_is_said_by_the_hook(repo: Path) -> None:
    # COFFER_FAIL (coffer/base/faults.py): every change that needs space fails from the
    # first on, as a full disk makes it; here that is the block in AGENTS.md.
    full = {"COFFER_FAIL": "ENOSPC"}
    plain = coffer("project", cwd=repo, env=full)
    assert plain.returncode == 1 and "Traceback" not in plain.stderr
    assert "No space left on device" in plain.stderr
    said = hook_message(coffer("project", "--hook", cwd=repo, env=full))
    assert said.startswith("coffer: ") and "No space left on device" in said
    # Said at every start while it lasts, not once: nothing was projected.
    assert said == hook_message(coffer("project", "--hook", cwd=repo, env=full))
    assert not (repo / "AGENTS.md").exists()


# SQLite refusing to grow the search cache, exactly as on a full disk (SQLITE_FULL).
FULL_CACHE = """
import sqlite3
_connect = sqlite3.connect
def connect(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    if pages > 1:  # the cache exists: it may not grow any more
        conn.execute(f"PRAGMA max_page_count = {pages}")
    return conn
sqlite3.connect = connect
"""


def test_a_full_disk_under_the_search_cache_is_not_masked_by_rollback(
    repo: Path, tmp_path: Path
) -> None:
    assert coffer("list", cwd=repo).returncode == 0  # the cache exists
    tier = store().project_tier(repo)
    assert tier is not None
    for n in range(40):  # entries arriving through a linked folder: the cache must grow
        words = " ".join(f"word{n}x{i}" for i in range(300))
        text = f"---\nname: bulk-{n}\ndescription: bulk {n}\ntype: project\n---\n\n{words}\n"
        (tier.dir / f"bulk-{n}.md").write_text(text)
    out = coffer("list", cwd=repo, env=site(tmp_path, FULL_CACHE))
    line = one_error_line(out)
    assert "database or disk is full" in line and "cache.sqlite" in line
    assert "cannot rollback" not in out.stderr  # the real error, not ROLLBACK's
    assert "bulk-39" in coffer("list", cwd=repo).stdout  # rebuilt when there is room


def _without_root_override() -> list[str]:
    """A prefix under which a mode of 000 denies access: root reads anything unless it
    loses CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (setpriv drops them)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a mode of 000 denies nothing")
    drop = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={drop}", f"--inh-caps={drop}"]


@pytest.mark.posix_only("POSIX user ids")
def test_a_store_directory_coffer_may_not_read_is_one_error_line(repo: Path) -> None:
    wrap = _without_root_override()
    root = store().root
    root.chmod(0o000)
    try:
        for args in (["list"], ["remember", "x y z"], ["project"], ["recall", "deploy"]):
            line = one_error_line(coffer(*args, cwd=repo, wrap=wrap))
            assert "permission denied" in line and str(root) in line, line
        said = hook_message(coffer("project", "--hook", cwd=repo, wrap=wrap))
        assert "permission denied" in said
    finally:
        root.chmod(0o700)
    assert coffer("list", cwd=repo).returncode == 0


def test_text_that_is_not_utf8_is_refused_with_one_line(repo: Path) -> None:
    latin1 = os.fsdecode(b"caf\xe9 au lait")  # an argument in Latin-1, as the OS passes it
    name = "we-deploy-with-make-release"
    for args in (["remember", latin1], ["recall", latin1], ["update", name, latin1]):
        line = one_error_line(coffer(*args, cwd=repo))
        assert "not valid UTF-8 (byte 0xe9" in line, line
    piped = subprocess.run(
        [sys.executable, "-m", "coffer", "remember", "-"],
        cwd=repo,
        input=b"caf\xe9 from stdin\n",
        capture_output=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert piped.returncode == 1 and b"Traceback" not in piped.stderr
    assert piped.stderr.startswith(b"coffer: error: the text is not valid UTF-8")
    tier = store().project_tier(repo)
    assert tier is not None
    assert [e.name for e in store().entries(tier)] == [name]


def test_a_project_directory_named_in_latin1_is_refused_with_one_line(
    tmp_path: Path, fake_home: Path
) -> None:
    (fake_home / ".codex").mkdir()
    latin1 = make_repo(tmp_path / os.fsdecode(b"caf\xe9"))
    for args in (["remember", "A fact."], ["project"]):
        line = one_error_line(coffer(*args, cwd=latin1))
        assert "the project path" in line and "caf\\xe9 is not valid UTF-8" in line, line
    assert "not valid UTF-8" in hook_message(coffer("project", "--hook", cwd=latin1))
    assert coffer("list", cwd=latin1).returncode == 0  # reading still works: the global tier


def test_doctor_quotes_the_names_in_the_commands_it_suggests(repo: Path) -> None:
    tier = store().project_tier(repo)
    assert tier is not None
    # An entry written by hand (or rewritten by an agent) under a name with a space.
    (tier.dir / "zz.md").write_text(
        "---\nname: REWRITTEN fact-1\ndescription: d\ntype: project\n---\n\n"
        "We deploy with make release.\n"
    )
    out = coffer("doctor", cwd=repo).stdout
    hints = re.findall(r"`(coffer forget [^`]*)`", out)
    assert "coffer forget 'REWRITTEN fact-1'" in hints, out
    # The suggestion runs as printed.
    words = shlex.split("coffer forget 'REWRITTEN fact-1'")
    assert coffer(*words[1:], cwd=repo).returncode == 0


# ---- issue 23, point 9 ---------------------------------------------------------------------


def test_adapter_list_exits_0_when_merely_not_projected_and_1_with_a_reason(repo: Path) -> None:
    pending = coffer("adapter", "list", cwd=repo)
    assert pending.returncode == 0, pending.stderr
    assert "`coffer project` brings them up to date" in pending.stdout
    assert coffer("adapter", "list", "--json", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    agents = repo / "AGENTS.md"
    agents.write_text(agents.read_text().replace("make release", "make ship"))
    drifted = coffer("adapter", "list", cwd=repo)
    assert drifted.returncode == 1
    assert drifted.stderr.startswith("coffer: error: codex: ") and "drifted" in drifted.stderr


def test_exit_codes_are_in_the_help() -> None:
    root = coffer("--help").stdout
    assert "Exit codes:" in root and "3 `coffer watch --status`" in root
    watch = coffer("watch", "--help").stdout
    assert "Exit codes:" in watch and "3 for --status when it does not" in " ".join(watch.split())
    assert "Exit codes:" in coffer("adapter", "list", "--help").stdout


def _help_pages() -> dict[str, str]:
    from typer.main import get_command

    from coffer.cli.typer_app import app, register_commands

    register_commands()
    pages: dict[str, str] = {}

    def walk(command: object, path: list[str]) -> None:
        pages[" ".join(path)] = coffer(*path, "--help").stdout
        for name, sub in getattr(command, "commands", {}).items():
            if name != "vault":  # the vault's own parser prints ECC's help
                walk(sub, [*path, name])

    walk(get_command(app), [])
    return pages


def test_help_names_values_and_summaries_end_where_a_phrase_ends() -> None:
    for path, page in _help_pages().items():
        assert page, path
        usage = page.splitlines()[0]
        assert "{" not in usage, (path, usage)
        assert not re.search(r"<(str|int|float|list\[str\]|int range|float range)>", page), (
            path,
            page,
        )
        for line in page.split("Commands:")[-1].splitlines() if "Commands:" in page else []:
            assert not line.rstrip().endswith("..."), (path, line)
    recall = coffer("recall", "--help").stdout
    assert recall.startswith("Usage: coffer recall [OPTIONS] QUERY")
    assert "--limit N " in recall


def test_usage_errors_print_in_coffers_style_with_exit_2() -> None:
    for args in (["remember", "x", "--bogus"], ["lst"], ["list", "--scope", "team"], ["recall"]):
        out = coffer(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.startswith("coffer: error: "), (args, out.stderr)
        assert "\nError:" not in out.stderr and not out.stderr.startswith("Usage:")
    assert "Did you mean 'list'?" in coffer("lst").stderr


def test_coffer_alone_prints_the_help_and_exits_0() -> None:
    for args in ([], ["adapter"]):
        out = coffer(*args)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(f"Usage: coffer {' '.join(args)}".rstrip() + " [OPTIONS]")


def test_did_you_mean_for_agent_and_entry_names(repo: Path) -> None:
    enable = coffer("adapter", "enable", "claud")
    assert enable.returncode == 2 and "(did you mean 'claude'?)" in enable.stderr
    unproject = coffer("unproject", "--agent", "codx", cwd=repo)
    assert unproject.returncode == 2 and "(did you mean 'codex'?)" in unproject.stderr
    named = coffer("remember", "Staging runs on db2.", "--name", "staging-database", cwd=repo)
    assert named.returncode == 0, named.stderr
    show = coffer("show", "staging", cwd=repo)  # the quick path
    assert show.returncode == 1 and "(did you mean 'staging-database'?)" in show.stderr
    forget = coffer("forget", "staging", cwd=repo)  # typer's
    assert forget.returncode == 1 and "(did you mean 'staging-database'?)" in forget.stderr


def test_auto_names_end_on_a_word_that_reads(repo: Path) -> None:
    out = coffer("remember", "The API uses port 7070 in staging and production.", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "created the-api-uses-port-7070 in" in out.stdout
    out = coffer("remember", "Deploys go through the release branch of the main repo.", cwd=repo)
    assert "created deploys-go-through-the-release-branch in" in out.stdout
