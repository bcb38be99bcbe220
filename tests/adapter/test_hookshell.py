"""Session-start hook commands rendered for cmd.exe and PowerShell, read back the way the
agent's launcher, the shell and the MSVCRT argv parser read them (coffer.adapter.hookshell)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from coffer.adapter import SESSION_START_MARKER, HookShell, Launch
from coffer.adapter.hookshell import HookShellError, render
from coffer.base import platform

# cmd.exe's environment while it runs the hook: %PATH% and %USERNAME% are defined.
CMD_ENV = {"PATH": r"C:\Windows\system32", "USERNAME": "me"}


def rust_quote(arg: str) -> str:
    """Rust std's Windows append_arg (Quote::Auto): how Codex hands the command to cmd."""
    quote = not arg or " " in arg or "\t" in arg
    out, slashes = [], 0
    for ch in arg:
        if ch == "\\":
            slashes += 1
        else:
            if ch == '"':
                out.append("\\" * (slashes + 1))
            slashes = 0
        out.append(ch)
    return f'"{"".join(out)}{chr(92) * slashes}"' if quote else "".join(out)


def msvcrt_args(line: str) -> list[str]:
    """CommandLineToArgvW / UCRT rules; argv[0] toggles quotes and has no escapes."""
    i, n, first = 0, len(line), []
    quoted = False
    while i < n and (quoted or line[i] not in " \t"):
        if line[i] == '"':
            quoted = not quoted
        else:
            first.append(line[i])
        i += 1
    args, cur, have, quoted = ["".join(first)], [], False, False
    while i < n:
        ch = line[i]
        if ch in " \t" and not quoted:
            if have:
                args.append("".join(cur))
            cur, have = [], False
            i += 1
            continue
        if ch == "\\":
            j = i
            while j < n and line[j] == "\\":
                j += 1
            if j < n and line[j] == '"':
                cur.append("\\" * ((j - i) // 2))
                if (j - i) % 2:
                    cur.append('"')
                    i = j + 1
                else:
                    i = j
            else:
                cur.append("\\" * (j - i))
                i = j
            have = True
            continue
        if ch == '"':
            if quoted and i + 1 < n and line[i + 1] == '"':
                cur.append('"')
                i += 2
            else:
                quoted = not quoted
                i += 1
            have = True
            continue
        cur.append(ch)
        have = True
        i += 1
    if have:
        args.append("".join(cur))
    return args


def cmd_expand(line: str, env: dict[str, str]) -> str:
    """Phase 1 in command-line mode: %NAME% of a defined variable expands, else stays."""
    out, i = [], 0
    while i < len(line):
        end = line.find("%", i + 1) if line[i] == "%" else -1
        name = line[i + 1 : end] if end > 0 else ""
        found = next((v for k, v in env.items() if k.upper() == name.upper()), None)
        if found is not None and name:
            out.append(found)
            i = end + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def cmd_commands(line: str) -> list[str]:
    """Phase 2: carets outside quotes escape, `&`/`&&` outside quotes split."""
    commands, cur, quoted, i = [], [], False, 0
    while i < len(line):
        ch = line[i]
        if ch == '"':
            quoted = not quoted
            cur.append(ch)
        elif quoted:
            cur.append(ch)
        elif ch == "^":
            i += 1
            cur.append(line[i])
        elif ch == "&":
            commands.append("".join(cur))
            cur = []
            if line[i + 1 : i + 2] == "&":
                i += 1
        else:
            assert ch not in "|<>", f"unescaped {ch!r} in {line!r}"
            cur.append(ch)
        i += 1
    return [*commands, "".join(cur)]


def run_cmd(command: str) -> tuple[str, list[str], dict[str, str]]:
    """What `%COMSPEC% /C <command>` (spawned by Rust) runs: (exe, args, env set)."""
    line = rust_quote(command)
    # /C with more than two quotes (or a non-file between two): the first and the last
    # quote are stripped and the rest is run as is
    assert line.startswith('"') and line.endswith('"')
    line = line[1:-1]
    env: dict[str, str] = dict(CMD_ENV)
    set_here: dict[str, str] = {}
    for part in cmd_commands(cmd_expand(line, env)):
        part = part.lstrip(" ")
        if part.lower().startswith("set "):
            name, _, value = part[4:].partition("=")
            set_here[name] = value
            continue
        argv = msvcrt_args(part)
        # Win32 path normalisation collapses a run of separators into one
        return re.sub(r"\\+", r"\\", argv[0]), argv[1:], set_here
    raise AssertionError(f"no program in {command!r}")


def ps_tokens(text: str) -> list[tuple[str, str]]:
    """PowerShell's statements split into ('str', value) / ('bare', word) / (';',)."""
    out: list[tuple[str, str]] = []
    i, quotes = 0, "'\u2018\u2019\u201a\u201b"
    while i < len(text):
        ch = text[i]
        if ch == " ":
            i += 1
        elif ch == ";":
            out.append((";", ";"))
            i += 1
        elif ch in quotes:
            value, i = [], i + 1
            while True:
                if text[i] in quotes:
                    if i + 1 < len(text) and text[i + 1] in quotes:
                        value.append(text[i])
                        i += 2
                        continue
                    i += 1
                    break
                value.append(text[i])
                i += 1
            out.append(("str", "".join(value)))
        else:
            m = re.match(r"[^ ;]+", text[i:])
            assert m is not None
            word = m.group()
            if word.startswith("$env:") and "=" in word:
                name = word[5:].partition("=")[0]
                out.append(("set", name))
                i += 5 + len(name) + 1
                continue
            assert not set("$@,(){}\"'`#|<>") & set(word), word
            out.append(("bare", word))
            i += len(word)
    return out


def run_powershell(command: str) -> tuple[str, list[str], dict[str, str]]:
    tokens, env = ps_tokens(command), {}
    while tokens and tokens[0][0] == "set":
        assert tokens[1][0] == "str" and tokens[2][0] == ";"
        env[tokens[0][1]] = tokens[1][1]
        tokens = tokens[3:]
    assert tokens[0] == ("bare", "&") and tokens[1][0] == "str"
    args = [value for _, value in tokens[2:]]
    # Windows PowerShell 5.1 passes a native argument with a space wrapped in quotes
    line = " ".join(f'"{a}"' if " " in a else a for a in ["x.exe", *args])
    return tokens[1][1], msvcrt_args(line)[1:], env


PATHS = [
    r"C:\Python312\python.exe",
    r"C:\Program Files\Python 3.12\python.exe",
    r"C:\Users\O'Brien\py\python.exe",
    r"C:\Users\A&B\py\python.exe",
    r"C:\Users\x%PATH%y\py\python.exe",
    r"C:\tools\^caret\python.exe",
    r"C:\Users\Jürgen Müller\py\python.exe",
    r"C:\Users\O'Brien & Co\a^b\python.exe",
]
HOMES = [r"C:\my store", r"C:\it's", r"C:\a&b", r"C:\%PATH%\x", r"C:\x^y", r"D:\Müll", "50% & more"]
AGENTS = ["codex", "o'neil", "a&b", "100%", "x^y", "ünï"]


def vectors() -> list[tuple[str, str, str]]:
    return [(p, h, "codex") for p in PATHS for h in HOMES[:2]] + [
        (PATHS[1], h, a) for h in HOMES for a in AGENTS
    ]


@pytest.mark.parametrize(("python", "store", "agent"), vectors())
@pytest.mark.parametrize("syntax", ["cmd", "powershell"])
def test_each_vector_round_trips(syntax: str, python: str, store: str, agent: str) -> None:
    argv = [python, "-m", "coffer", "project", "--hook", "--for", agent]
    command = render(syntax, argv, {"COFFER_HOME": store})  # type: ignore[arg-type]
    exe, args, env = (run_cmd if syntax == "cmd" else run_powershell)(command)
    assert (exe, args, env) == (python, argv[1:], {"COFFER_HOME": store})
    assert all(m in command for m in SESSION_START_MARKER)  # `setup --undo` finds it


@pytest.mark.parametrize(
    ("syntax", "argv"),
    [
        ("cmd", [r"C:\100% sure\python.exe", "-m"]),  # a % where cmd sees quotes
        ("cmd", [r"C:\my app.exe", "-m"]),  # spaces in the last component
        ("cmd", [r"C:\py\python.exe", "--for", "two words"]),
        ("cmd", [r"C:\py\python.exe", 'say"hi']),
        ("powershell", [r"C:\py\python.exe", 'say"hi']),
    ],
)
def test_what_cannot_arrive_intact_is_refused(syntax: str, argv: list[str]) -> None:
    with pytest.raises(HookShellError):
        render(syntax, argv, {})  # type: ignore[arg-type]


def test_the_core_renders_for_the_declared_shell_only_on_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    launch = Launch(
        (r"C:\Program Files\Python\python.exe", "-m", "coffer"), {"COFFER_HOME": "C:\\s"}
    )
    shell = HookShell("powershell", {"shell": "powershell"})
    monkeypatch.setattr(platform, "WINDOWS", False)
    assert launch.session_start_entry("claude", shell) == {
        "type": "command",
        "command": launch.session_start_for("claude"),
    }
    assert launch.session_start_for("claude", shell).startswith("COFFER_HOME=")
    monkeypatch.setattr(platform, "WINDOWS", True)
    entry = launch.session_start_entry("claude", shell, timeout=30)
    assert entry["shell"] == "powershell" and entry["timeout"] == 30
    assert run_powershell(entry["command"]) == (
        launch.argv[0],
        ["-m", "coffer", "project", "--hook", "--for", "claude"],
        {"COFFER_HOME": "C:\\s"},
    )


@pytest.mark.skipif(shutil.which("pwsh") is None, reason="pwsh is not installed")
def test_real_powershell_reads_the_same_argv(tmp_path: object) -> None:
    python = shutil.which("python3") or "python3"
    argv = [python, "-c", "import os,sys;print(repr((sys.argv[1:],os.environ['COFFER_HOME'])))"]
    command = render("powershell", [*argv, "o'neil", "a&b", "x y"], {"COFFER_HOME": "it's %PATH%"})
    out = subprocess.run(
        ["pwsh", "-NoProfile", "-Command", command], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == repr((["o'neil", "a&b", "x y"], "it's %PATH%"))
