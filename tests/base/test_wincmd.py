"""The junction maker's command line, read back as cmd.exe reads it (``%`` expansion, then
carets, ``&`` and quotes) and as ``mklink`` splits its arguments: every path arrives
unchanged; and mklink's output in the OEM code page never crashes a read."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from coffer.base import platform
from coffer.base.wincmd import cmd_path, oem_text
from tests.adapter.test_hookshell import cmd_commands, cmd_expand

# The real maker, before COFFER_SIMULATE=windows swaps in its fake one for each test.
REAL_MAKE_JUNCTION = platform.make_junction
# cmd's environment: variables a path's text could name, defined so an expansion shows.
ENV = {"PATH": r"C:\Windows", "D": "EXPANDED", "USERNAME": "me", "RANDOM": "42"}
PATHS = [
    r"C:\Users\R&D\.claude\projects\-repo\memory",
    r"C:\Users\me\100%\store",
    r"C:\Users\Jürgen\.coffer\store",
    r"C:\Users\a%D%b\x",
    r"C:\Users\%PATH%\x%",
    r"C:\Users\O'Brien & Co (Ltd)\x^y!z",
    r"C:\My Documents\a|b<c>d",
    r"C:\%\%%\x",
]


def builtin_args(tail: str) -> list[str]:
    """How a built-in such as mklink splits what phase 2 left: spaces outside quotes."""
    args: list[str] = []
    cur: list[str] = []
    quoted = have = False
    for ch in tail:
        if ch == '"':
            quoted, have = not quoted, True
        elif ch == " " and not quoted:
            if have:
                args.append("".join(cur))
            cur, have = [], False
        else:
            cur.append(ch)
            have = True
    return [*args, "".join(cur)] if have else args


def read_by_cmd(line: str) -> list[str]:
    commands = cmd_commands(cmd_expand(line, ENV))
    assert len(commands) == 1, commands  # no `&` split the line
    return builtin_args(commands[0])


@pytest.mark.parametrize("path", PATHS)
def test_each_path_reaches_mklink_unchanged(path: str) -> None:
    line = f"mklink /J {cmd_path(path)} {cmd_path(PATHS[0])}"
    assert read_by_cmd(line) == ["mklink", "/J", path, PATHS[0]]


@pytest.mark.parametrize("bad", ['C:\\a"b', "C:\\a\nb", "C:\\a\0b"])
def test_what_cmd_cannot_carry_is_refused(bad: str) -> None:
    with pytest.raises(OSError, match=r"cmd\.exe cannot"):
        cmd_path(bad)


def test_oem_output_is_decoded_with_replacements() -> None:
    # cp850's ü is 0x81: undefined in cp1252, not UTF-8 either
    assert "J" in oem_text(b"C:\\Users\\J\x81rgen") and "rgen" in oem_text(b"J\x81rgen")


class FakeCmd:
    """subprocess.run as the seam calls it; makes a stand-in link where told to succeed."""

    def __init__(self, returncode: int, stderr: bytes = b"") -> None:
        self.returncode, self.stderr = returncode, stderr
        self.calls: list[Any] = []

    def __call__(self, args: Any, **kw: Any) -> subprocess.CompletedProcess[bytes]:
        self.calls.append((args, kw))
        return subprocess.CompletedProcess(args, self.returncode, b"", self.stderr)


@pytest.fixture
def junctions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "JUNCTIONS", True)
    monkeypatch.setattr(platform, "make_junction", REAL_MAKE_JUNCTION)


@pytest.mark.needs_symlinks
@pytest.mark.usefixtures("junctions")
def test_make_junction_hands_cmd_one_literal_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "R&D" / "100%"
    target.mkdir(parents=True)
    link = tmp_path / "Jürgen"
    fake = FakeCmd(0)

    def run(args: Any, **kw: Any) -> subprocess.CompletedProcess[bytes]:
        os.symlink(target, link)  # stands in for the junction
        return fake(args, **kw)

    monkeypatch.setattr(subprocess, "run", run)
    platform.make_junction(link, target)
    ((line, kw),) = fake.calls
    assert isinstance(line, str)  # one string: Windows hands it to cmd as is
    assert kw.get("text") is None and kw.get("capture_output") is True  # bytes back
    assert line.startswith("cmd /d /v:off /c ")
    assert read_by_cmd(line.removeprefix("cmd /d /v:off /c ")) == [
        "mklink",
        "/J",
        str(link),
        str(target),
    ]


@pytest.mark.usefixtures("junctions")
def test_a_refusal_in_the_oem_code_page_is_an_oserror(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subprocess, "run", FakeCmd(1, b"Zugriff verweigert: J\x81rgen\r\n"))
    with pytest.raises(OSError, match="Zugriff verweigert") as caught:
        platform.make_junction(tmp_path / "Jürgen", tmp_path)
    assert "rgen" in str(caught.value)  # the rest of the line, past the undecodable byte
