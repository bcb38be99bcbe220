from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from coffer.base import platform
from coffer.store import Store


def make_repo(path: Path) -> Path:
    """A directory that looks like a git work tree (a `.git` directory), no git needed."""
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text('[remote "origin"]\n\turl = git@example.com:o/r.git\n')
    return path


def project_shared_block(tmp_path: Path, fake_home: Path, agent_dirs: tuple[str, ...]) -> Path:
    """A repository projected for the agents whose config directories ``agent_dirs`` are
    (made under ``fake_home``), with one project and one global entry; the repository's
    AGENTS.md is checked to hold one block with the project entry."""
    for d in agent_dirs:
        (fake_home / d).mkdir(parents=True)
    repo = make_repo(tmp_path / "work" / "p")
    assert coffer("remember", "We deploy with make release.", cwd=repo).returncode == 0
    # a global entry: the global files get a block only when there is one to show
    assert coffer("remember", "Answer briefly.", "--scope", "global", cwd=repo).returncode == 0
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    text = (repo / "AGENTS.md").read_text()
    assert text.count("coffer:memory:start") == 1 and "make release" in text
    return repo


def make_worktree(main: Path, wt: Path, name: str = "wt") -> Path:
    """A linked worktree of ``main`` laid out as `git worktree add` does, no git needed."""
    admin = main / ".git" / "worktrees" / name
    admin.mkdir(parents=True)
    wt.mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {admin}\n")
    (admin / "gitdir").write_text(f"{wt / '.git'}\n")
    return wt


def store() -> Store:
    return Store.from_environ(os.environ)


def write_entry(tier_dir: Path, name: str, text: str) -> Path:
    """An entry file written straight into a tier directory, as an agent writes through its
    link: no coffer command runs, so a set-up of hundreds of entries costs milliseconds."""
    path = tier_dir / f"{name}.md"
    path.write_text(f"---\nname: {name}\ndescription: {text}\ntype: project\n---\n\n{text}\n")
    return path


def coffer(
    *args: str,
    cwd: Path | None = None,
    input: str | None = None,
    env: dict[str, str] | None = None,
    wrap: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (the environment is the test's fake home);
    ``wrap`` is a command to run it under (`setpriv …`, to drop a capability)."""
    return subprocess.run(
        [*wrap, sys.executable, "-m", "coffer", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def python_code(
    code: str, cwd: Path, *, check: bool = False, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter of this virtualenv (the test's environment)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
        check=check,
    )


def imported_after(
    argv: list[str], cwd: Path, modules: tuple[str, ...], input: str | None = None
) -> tuple[object, list[str]]:
    """Run ``coffer *argv`` in a fresh interpreter (``input`` on its stdin); (exit code,
    which ``modules`` it imported)."""
    code = (
        "import sys\n"
        f"sys.argv = ['coffer', *{argv!r}]\n"
        "from coffer.main import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        f"print(repr((code, [m for m in {modules!r} if m in sys.modules])), file=sys.stderr)\n"
    )
    out = python_code(code, cwd, input=input)
    import ast

    result: tuple[object, list[str]] = ast.literal_eval(out.stderr.strip().splitlines()[-1])
    return result


def run_hook(
    command: str, cwd: Path, windows: Literal["posix", "cmd", "powershell"] = "posix"
) -> subprocess.CompletedProcess[str]:
    """What an agent does at session start: run its hook command in its shell. That is a
    POSIX shell, except under the seam's Windows (``COFFER_SIMULATE=windows``), where it is
    the shell the agent uses there (``windows``, its adapter's ``HookShell.syntax``). This
    host has neither cmd.exe nor PowerShell, so the line is read as they read it
    (tests/adapter/test_hookshell.py) and its program started with the variables it sets."""
    env = dict(os.environ)
    argv: str | list[str] = command
    if platform.WINDOWS and windows != "posix":
        from tests.adapter.test_hookshell import run_cmd, run_powershell

        exe, args, sets = (run_cmd if windows == "cmd" else run_powershell)(command)
        argv, env = [exe, *args], {**env, **sets}
    return subprocess.run(
        argv,
        shell=isinstance(argv, str),
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


# ---- `coffer mcp` over stdio, as raw JSON-RPC lines ---------------------------------------

MCP_INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def mcp_lines(*messages: object) -> bytes:
    """One line per message: a JSON object, or bytes sent as they are."""
    return b"".join(
        (m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in messages
    )


def mcp_call(request_id: object, tool: str, arguments: object) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def mcp_serve(cwd: Path, data: bytes, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Run `coffer mcp` in ``cwd`` with ``data`` on its stdin; its answers, in order."""
    done = subprocess.run(
        [sys.executable, "-m", "coffer", "mcp"],
        cwd=cwd,
        input=data,
        capture_output=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def mcp_tools(cwd: Path, client: str, *calls: dict[str, Any]) -> list[Any]:
    """A session of the MCP client named ``client``: each call (``{"name": tool,
    "arguments": {...}}``) made in turn; each call's structured result."""
    info = {"name": client, "version": "1"}
    init = {**MCP_INIT, "params": {**MCP_INIT["params"], "clientInfo": info}}
    requests = [mcp_call(n, c["name"], c["arguments"]) for n, c in enumerate(calls, 1)]
    answers = mcp_serve(cwd, mcp_lines(init, MCP_INITIALIZED, *requests))
    return [answer["result"]["structuredContent"] for answer in answers[1:]]
