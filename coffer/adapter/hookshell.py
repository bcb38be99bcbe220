"""A session-start hook command rendered for the shell an agent runs it with.

Every agent runs hook commands through a POSIX shell on Linux and macOS. On Windows each
adapter declares which shell its agent uses (``HookShell`` in coffer.adapter), and the
command is rendered for it here:

- ``posix``: ``NAME='v' 'argv0' arg ...`` (shlex quoting), what Git Bash runs as well.
- ``cmd``: the string is handed to ``%COMSPEC% /C`` as one argument, quoted by the launcher
  with the MSVCRT rules (``"`` becomes ``\\"``, every backslash run before it doubled),
  so any ``"`` in the command reaches cmd.exe with a backslash in front. The form is
  therefore ``set NAME=v&& argv0 arg ...`` with no quotes where none are needed: cmd's
  specials are escaped with ``^`` and a ``%`` is followed by ``^``, which breaks the
  variable name (``%^PATH%`` names no variable, so nothing expands) and is then removed
  with the other carets (cmd /C leaves an undefined ``%NAME%`` alone). A path with
  spaces gets one quoted stretch that starts and ends right after a path separator; the
  backslashes the launcher adds before each ``"`` then only double a separator, which
  Windows path normalisation collapses. What cannot survive that (a ``"``, a ``%`` or
  space in a stretch that cannot be bounded by separators, an argument with a space) is
  refused with ``HookShellError`` rather than written as a hook that would never run.
- ``powershell``: ``$env:NAME='v'; & 'argv0' arg ...``; single quotes (and the typographic
  ones PowerShell also accepts as quotes) doubled inside single-quoted strings; plain
  arguments left bare so the hook still reads ``coffer project --hook``. A ``"`` is
  refused: Windows PowerShell 5.1 drops it from arguments of native commands.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Literal

from coffer.base.errors import CofferError

Syntax = Literal["posix", "cmd", "powershell"]

# Arguments that need no quoting in any of the three shells (an option, a module name,
# an agent name): kept bare so coffer's own markers (`coffer`, `project --`) stay visible.
_PLAIN = re.compile(r"[A-Za-z0-9_\-./=]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# cmd.exe's specials outside quotes, each escaped with a caret there.
_CMD_SPECIAL = frozenset("^&|<>()!")
# PowerShell takes these as single quotes too (U+2018, U+2019, U+201A, U+201B).
_PS_QUOTES = "'\u2018\u2019\u201a\u201b"


class HookShellError(CofferError):
    """A value that the agent's Windows shell cannot be given intact."""


def render(syntax: Syntax, argv: Sequence[str], env: Mapping[str, str]) -> str:
    """The command line running ``argv`` with ``env`` set, for ``syntax``."""
    if syntax == "cmd":
        return _cmd(argv, env)
    if syntax == "powershell":
        return _powershell(argv, env)
    prefix = [f"{k}={shlex.quote(v)}" for k, v in sorted(env.items())]
    return " ".join([*prefix, shlex.join(argv)])


def _cmd_bare(text: str, what: str) -> str:
    if '"' in text or "\n" in text or "\r" in text:
        raise HookShellError(f"{what} {text!r} cannot be passed through cmd.exe intact")
    out = []
    for ch in text:
        out.append(f"^{ch}" if ch in _CMD_SPECIAL else "%^" if ch == "%" else ch)
    return "".join(out)


def _cmd_path(path: str) -> str:
    """``path`` for cmd: bare, or with its spaced components in one quoted stretch that
    begins and ends right after a backslash (see the module docstring)."""
    if " " not in path and "\t" not in path:
        return _cmd_bare(path, "path")
    parts = path.split("\\")
    spaced = [i for i, p in enumerate(parts) if " " in p or "\t" in p]
    first, last = spaced[0], spaced[-1]
    inside = "\\".join(parts[first : last + 1])
    if first == 0 or last == len(parts) - 1 or '"' in inside or "%" in inside:
        raise HookShellError(f"path {path!r} cannot be passed through cmd.exe intact")
    head = "\\".join(_cmd_bare(p, "path") for p in parts[:first])
    tail = "\\".join(_cmd_bare(p, "path") for p in parts[last + 1 :])
    return f'{head}\\"{inside}\\"{tail}'


def _variables(env: Mapping[str, str]) -> list[tuple[str, str]]:
    for name in env:
        if not _NAME.fullmatch(name):
            raise HookShellError(f"variable name {name!r} cannot be set in a Windows shell")
    return sorted(env.items())


def _cmd(argv: Sequence[str], env: Mapping[str, str]) -> str:
    # unquoted set: the value runs to the `&&` (spaces included, none before it)
    sets = [f"set {k}={_cmd_bare(v, 'value')}&& " for k, v in _variables(env)]
    words = [_cmd_path(argv[0])]
    for arg in argv[1:]:
        if not arg or any(ch.isspace() for ch in arg):
            raise HookShellError(f"argument {arg!r} cannot be passed through cmd.exe intact")
        words.append(_cmd_bare(arg, "argument"))
    line = "".join(sets) + " ".join(words)
    # a `%` that ends the line can start no variable name, and a caret there would escape
    # the end of the line instead
    return line[:-1] if line.endswith("%^") else line


def _ps_quote(text: str) -> str:
    if '"' in text or "\n" in text or "\r" in text:
        raise HookShellError(f"{text!r} cannot be passed through PowerShell intact")
    return "'" + "".join(ch * 2 if ch in _PS_QUOTES else ch for ch in text) + "'"


def _powershell(argv: Sequence[str], env: Mapping[str, str]) -> str:
    sets = [f"$env:{k}={_ps_quote(v)}; " for k, v in _variables(env)]
    args = [a if _PLAIN.fullmatch(a) else _ps_quote(a) for a in argv[1:]]
    return "".join(sets) + " ".join(["&", _ps_quote(argv[0]), *args])


__all__ = ["HookShellError", "Syntax", "render"]
