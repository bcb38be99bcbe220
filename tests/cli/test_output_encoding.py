"""Output under a legacy code page (issue 27 point 7): a pipe gets UTF-8 whatever the
code page, so non-ASCII entries never crash a command whose output is read by a program."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import coffer

TEXT = "Ünïcode fact: 中文, naïve café ✓"


@pytest.mark.parametrize("code_page", ["cp1252", "gbk"])
def test_piped_output_is_utf8_under_a_legacy_code_page(code_page: str, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {"PYTHONIOENCODING": code_page}
    made = coffer("remember", "--name", "unicode-fact", TEXT, cwd=tmp_path, env=env)
    assert made.returncode == 0, made.stderr
    for args in (("list",), ("show", "unicode-fact"), ("status",)):
        result = coffer(*args, cwd=tmp_path, env=env)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
    assert TEXT in coffer("show", "unicode-fact", cwd=tmp_path, env=env).stdout


def test_a_console_replaces_what_its_code_page_cannot_show() -> None:
    import io

    from coffer.base import consoles

    class Console(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    raw = io.BytesIO()
    console = Console(raw, encoding="cp1252")
    pipe = io.TextIOWrapper(io.BytesIO(), encoding="gbk")
    mp = pytest.MonkeyPatch()
    with mp.context() as patch:
        patch.setattr("sys.stdout", console)
        patch.setattr("sys.stderr", pipe)
        consoles.fit_output_streams()
        console.write("café 中文\n")
        console.flush()
        assert pipe.encoding == "utf-8"
    assert raw.getvalue() == "café ??\n".encode("cp1252")


def test_piped_input_is_read_as_utf8_and_a_console_is_left_alone() -> None:
    import io

    from coffer.base import consoles

    class Console(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    pipe = io.TextIOWrapper(io.BytesIO("café 中文 ".encode() + b"\xff"), encoding="cp1252")
    console = Console(io.BytesIO("café".encode("cp1252")), encoding="cp1252")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdin", pipe)
        consoles.fit_input_stream()
        patch.setattr("sys.stdin", console)
        consoles.fit_input_stream()
    # a byte that is not UTF-8 stays visible (a lone surrogate) for check_utf8 to name
    assert pipe.read() == "café 中文 \udcff"
    assert (console.encoding, console.read()) == ("cp1252", "café")
