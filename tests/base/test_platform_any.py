"""The platform seam's branches that hold on every system, Windows included (the rest of
tests/base/test_platform.py builds POSIX links and FIFOs, so it is skipped there)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from coffer.base import platform
from tests.helpers import python_code


def test_process_alive_tells_live_dead_and_unknown() -> None:
    assert platform.process_alive(os.getpid()) is True
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert platform.process_alive(child.pid) is False
    assert platform.process_alive(0) is None
    assert platform.process_alive(-1) is None


def test_the_seam_imports_no_ctypes(tmp_path: Path) -> None:
    # The session-start no-op imports the seam; ctypes loads at the first liveness check.
    code = "import sys, coffer.base.platform as p; print('ctypes' in sys.modules)"
    done = python_code(code, tmp_path, check=True)
    assert done.stdout.strip() == "False"


def _windows_lstat(mode: int, attributes: int, tag: int = 0) -> os.stat_result:
    found = SimpleNamespace(st_mode=mode, st_file_attributes=attributes, st_reparse_tag=tag)
    return cast(os.stat_result, found)


def test_a_name_surrogate_reparse_point_counts_as_a_link() -> None:
    directory, file = stat.S_IFDIR | 0o755, stat.S_IFREG | 0o644
    assert platform.is_link(_windows_lstat(directory, 0x410, 0xA0000003))  # junction
    assert platform.is_link(_windows_lstat(file, 0x420, 0xA000000C))  # symlink, as a file
    assert not platform.is_link(_windows_lstat(directory, 0x10))  # a plain directory
    # A cloud placeholder (OneDrive, Dropbox) or a deduplicated file is the file itself.
    assert not platform.is_link(_windows_lstat(file, 0x420, 0x9000001A))
    assert not platform.is_link(_windows_lstat(file, 0x420, 0x80000013))
    assert not platform.is_link(_windows_lstat(file, 0x420))  # no tag reported


@pytest.mark.parametrize(
    ("name", "reserved"),
    [
        ("con", True),
        ("NUL", True),
        ("nul.md", True),
        ("com1", True),
        ("lpt9.txt", True),
        ("aux ", True),
        ("com0", False),
        ("console", False),
        ("con-notes", False),
        ("lpt10", False),
    ],
)
def test_reserved_device_names(name: str, reserved: bool) -> None:
    assert platform.reserved_name(name) is reserved


def test_host_name_is_the_short_name_socket_gives() -> None:
    # What `coffer sync init` names this machine and provenance stamps as where an entry
    # was made: the same name socket.gethostname() gives, before its first dot.
    import socket

    assert platform.host_name() == socket.gethostname().partition(".")[0]
    assert "." not in platform.host_name()


def test_the_write_path_imports_neither_socket_nor_platform(tmp_path: Path) -> None:
    # provenance stamps every write with this machine's name; on POSIX that costs no import.
    code = (
        "import sys\n"
        "from coffer.store import provenance\n"
        "assert provenance.machine(__import__('pathlib').Path(sys.argv[1]))\n"
        "print(sorted(m for m in ('socket', 'platform') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    expected = "['platform']" if sys.platform == "win32" else "[]"
    assert done.stdout.strip() == expected
