"""The platform seam, each branch: the native one, and the Windows one run on this host by
patching the seam's switches (the same switches ``COFFER_SIMULATE=windows`` patches)."""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from coffer.base import platform
from coffer.base.errors import InvalidInputError
from coffer.store.entry import check_name
from tests.helpers import coffer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX host branches")


@pytest.fixture(params=["native", "windows"])
def seam(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs once as this host is and once as Windows is."""
    native = request.param == "native"
    monkeypatch.setattr(platform, "NOFOLLOW", os.O_NOFOLLOW if native else 0)
    monkeypatch.setattr(platform, "UTIME_NOFOLLOW", native)
    monkeypatch.setattr(platform, "RETRY_REPLACE", not native)
    if not native:
        monkeypatch.setattr(platform, "REPLACE_DELAYS", (0.0, 0.0, 0.0))
    return str(request.param)


def test_open_nofollow_reads_a_file_and_refuses_a_link(seam: str, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("secret")
    link = tmp_path / "link"
    link.symlink_to(target)
    fd = platform.open_nofollow(target, os.O_RDONLY)
    with os.fdopen(fd) as fh:
        assert fh.read() == "secret"
    with pytest.raises(OSError, match="link") as caught:
        platform.open_nofollow(link, os.O_RDONLY)
    assert caught.value.errno == errno.ELOOP


def test_open_nofollow_creates_exclusively(seam: str, tmp_path: Path) -> None:
    new = tmp_path / "new"
    os.close(platform.open_nofollow(new, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):
        platform.open_nofollow(new, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)


def test_without_nofollow_a_link_swapped_in_after_the_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(platform, "NOFOLLOW", 0)
    path, elsewhere = tmp_path / "file", tmp_path / "elsewhere"
    path.write_text("mine")
    elsewhere.write_text("not mine")
    real_open = os.open

    def racing_open(p: Any, flags: int, mode: int = 0o777) -> int:
        path.unlink()  # another process swaps a link in between the lstat and the open
        path.symlink_to(elsewhere)
        return real_open(p, flags, mode)

    monkeypatch.setattr(os, "open", racing_open)
    with pytest.raises(OSError, match="link") as caught:
        platform.open_nofollow(path, os.O_RDONLY)
    assert caught.value.errno == errno.ELOOP


def test_without_nofollow_a_file_renamed_over_between_check_and_open_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent saving its config (write a temporary file, rename it over) between coffer's
    # lstat and its open: a new file, no link; read it, never refuse it as one.
    monkeypatch.setattr(platform, "NOFOLLOW", 0)
    path, new = tmp_path / "config.json", tmp_path / "config.json.tmp"
    path.write_text("old")
    real_open = os.open
    renames = []

    def racing_open(p: Any, flags: int, mode: int = 0o777) -> int:
        if not renames:
            new.write_text("new")
            os.replace(new, path)
            renames.append(p)
        return real_open(p, flags, mode)

    monkeypatch.setattr(os, "open", racing_open)
    with os.fdopen(platform.open_nofollow(path, os.O_RDONLY)) as fh:
        assert fh.read() == "new"
    assert len(renames) == 1


def test_without_nonblock_a_fifo_is_refused_unopened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The simulation's host has FIFOs but no O_NONBLOCK in the seam: an open would wait for
    # a writer for ever, so the no-follow open refuses the FIFO before opening it.
    monkeypatch.setattr(platform, "NOFOLLOW", 0)
    monkeypatch.setattr(platform, "NONBLOCK", 0)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(platform.NotRegularFile, match="regular file") as caught:
        platform.open_nofollow(fifo, os.O_RDONLY)
    assert caught.value.errno == errno.ENXIO


def test_open_nofollow_reads_a_cloud_placeholder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(platform, "NOFOLLOW", 0)
    path = tmp_path / "notes.md"
    path.write_text("kept in the cloud")
    real = os.lstat(path)

    def lstat(p: object) -> os.stat_result:  # as Windows reports a OneDrive file on disk
        found = SimpleNamespace(st_mode=real.st_mode, st_ino=real.st_ino, st_dev=real.st_dev)
        found.st_file_attributes, found.st_reparse_tag = 0x420, 0x9000001A
        return cast(os.stat_result, found)

    monkeypatch.setattr(os, "lstat", lstat)
    fd = platform.open_nofollow(path, os.O_RDONLY)
    with os.fdopen(fd) as fh:
        assert fh.read() == "kept in the cloud"


def test_set_mtime_never_touches_a_link_target(seam: str, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("x")
    before = target.stat().st_mtime_ns
    link = tmp_path / "link"
    link.symlink_to(target)
    platform.set_mtime_ns(link, 1_000_000_000)
    assert target.stat().st_mtime_ns == before
    platform.set_mtime_ns(target, 2_000_000_000)
    assert target.stat().st_mtime_ns == 2_000_000_000


def test_replace_waits_for_a_briefly_held_file(
    seam: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.write_text("new")
    dst.write_text("old")
    real_replace, calls = os.replace, []

    def held_twice(a: Any, b: Any) -> None:
        calls.append(a)
        if len(calls) <= 2:
            raise PermissionError(errno.EACCES, "in use by another process", str(b))
        real_replace(a, b)

    monkeypatch.setattr(os, "replace", held_twice)
    if seam == "native":
        with pytest.raises(PermissionError):
            platform.replace(src, dst)
        return
    platform.replace(src, dst)
    assert dst.read_text() == "new"
    assert len(calls) == 3


def test_replace_gives_up_on_a_file_held_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(platform, "RETRY_REPLACE", True)
    monkeypatch.setattr(platform, "REPLACE_DELAYS", (0.0, 0.0))
    calls: list[object] = []

    def held(a: Any, b: Any) -> None:
        calls.append(a)
        raise PermissionError(errno.EACCES, "in use", str(b))

    monkeypatch.setattr(os, "replace", held)
    with pytest.raises(PermissionError):
        platform.replace(tmp_path / "a", tmp_path / "b")
    assert len(calls) == 3


def test_a_reserved_name_is_refused_as_an_entry_name(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="Windows reserves"):
        check_name("nul")
    assert check_name("nul-notes") == "nul-notes"
    result = coffer("remember", "--name", "con", "a fact", cwd=tmp_path)
    assert result.returncode != 0
    assert "Windows reserves" in result.stderr + result.stdout
