"""coffer's bytes under a legacy code page (issue 27 point 7), checked byte for byte.

Each test runs once per code page here, and ``.ci/run`` runs tests/cli again with
``PYTHONIOENCODING`` set to cp1252 and to gbk for the whole process tree, so every CLI test
also runs under them. A pipe gets UTF-8 whatever the code page; a console (a pseudo-terminal
here) keeps the code page and shows ``?`` for what it cannot encode; nothing crashes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import coffer

# Latin-1 (in cp1252), CJK (in gbk, not in cp1252), and a check mark in neither.
BODY = "café naïve 中文 ✓"
CODE_PAGES = ["cp1252", "gbk"]


def _remembered(tmp_path: Path, code_page: str) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    made = coffer("remember", "--name", "uni", BODY, cwd=tmp_path, env=_env(code_page))
    assert made.returncode == 0, made.stderr
    return tmp_path


def _env(code_page: str) -> dict[str, str]:
    return {**os.environ, "PYTHONIOENCODING": code_page}


@pytest.mark.parametrize("code_page", CODE_PAGES)
def test_a_pipe_gets_exact_utf8_bytes(code_page: str, tmp_path: Path) -> None:
    repo = _remembered(tmp_path, code_page)
    shown = subprocess.run(
        [sys.executable, "-m", "coffer", "list"],
        cwd=repo,
        capture_output=True,
        env=_env(code_page),
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert b"Traceback" not in shown.stderr
    line = next(x for x in shown.stdout.splitlines() if b" uni " in x)
    assert line.split(b"project", 1)[1].strip() == BODY.encode("utf-8")
    # the bytes a reader decoding the code page would have got (and crashed on) are absent
    assert BODY.encode(code_page, errors="replace") not in shown.stdout


@pytest.mark.parametrize("code_page", CODE_PAGES)
def test_piped_text_is_read_as_utf8(code_page: str, tmp_path: Path) -> None:
    # cp1252 would decode these bytes to mojibake and store it, gbk refuse them as a file's
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    piped = subprocess.run(
        [sys.executable, "-m", "coffer", "remember", "--name", "piped", "-"],
        cwd=tmp_path,
        input=BODY.encode("utf-8"),
        capture_output=True,
        env=_env(code_page),
        timeout=60,
    )
    assert piped.returncode == 0, piped.stderr
    shown = coffer("show", "piped", "--json", cwd=tmp_path, env=_env(code_page))
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["body"].strip() == BODY


@pytest.mark.posix_only("a pseudo-terminal (pty); Windows' console is another API")
@pytest.mark.parametrize("code_page", CODE_PAGES)
def test_a_console_keeps_its_code_page_and_replaces_the_rest(
    code_page: str, tmp_path: Path
) -> None:
    import pty  # imports termios, which Windows lacks: only where the test runs

    repo = _remembered(tmp_path, code_page)
    controller, terminal = pty.openpty()
    try:
        ran = subprocess.run(
            [sys.executable, "-m", "coffer", "list"],
            cwd=repo,
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=subprocess.PIPE,
            env={**_env(code_page), "TERM": "dumb", "NO_COLOR": "1"},
            timeout=60,
        )
        os.close(terminal)
        terminal = -1
        out = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    assert ran.returncode == 0, ran.stderr
    assert b"Traceback" not in ran.stderr
    assert BODY.encode(code_page, errors="replace") in out
    assert BODY.encode("utf-8") not in out
