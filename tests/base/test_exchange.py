"""The atomic directory/link exchange (swaps.exchange) and the two-rename fallback.

The real ``renamex_np(RENAME_SWAP)`` runs only on macOS (the macOS CI job, APFS); on this
host the same code path is driven with the C library replaced, to prove a refused call
falls back to the two renames.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from coffer.base import swaps
from coffer.projection.symlink import swap


def _dir_and_link(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A directory holding a file, and a symlink to a store directory beside it."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "note.md").write_text("the agent's own")
    store = tmp_path / "store"
    store.mkdir()
    new = swap.new_link(memory)
    new.symlink_to(store)
    return memory, new, store


@pytest.mark.needs_symlinks
@pytest.mark.skipif(sys.platform != "darwin", reason="renamex_np(RENAME_SWAP) exists only on macOS")
def test_renamex_np_swaps_a_directory_and_a_link_in_one_step(tmp_path: Path) -> None:
    memory, new, store = _dir_and_link(tmp_path)
    dir_inode = memory.lstat().st_ino
    assert swaps.exchange(new, memory)  # one call: no moment where neither is there
    assert memory.is_symlink() and memory.resolve() == store.resolve()
    assert not new.is_symlink() and new.lstat().st_ino == dir_inode
    assert (new / "note.md").read_text() == "the agent's own"


@pytest.mark.needs_symlinks
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 exists only on Linux")
def test_renameat2_swaps_a_directory_and_a_link_in_one_step(tmp_path: Path) -> None:
    memory, new, store = _dir_and_link(tmp_path)
    dir_inode = memory.lstat().st_ino
    if not swaps.exchange(new, memory):
        pytest.skip("this file system has no RENAME_EXCHANGE")
    assert memory.is_symlink() and memory.resolve() == store.resolve()
    assert new.lstat().st_ino == dir_inode


class _FakeLibc:
    """A C library whose swap call is missing, or fails with ``err``."""

    def __init__(self, err: int | None, calls: list[tuple[Any, ...]]) -> None:
        self._err, self._calls = err, calls

    def __getattr__(self, name: str) -> Any:
        if self._err is None or name != "renamex_np":
            raise AttributeError(name)  # as ctypes does for a symbol the library lacks
        calls, err = self._calls, self._err

        class _Fn:
            argtypes: tuple[Any, ...] = ()
            restype: Any = None

            def __call__(self, *args: Any) -> int:
                calls.append((self.argtypes, self.restype, *args))
                ctypes.set_errno(err)
                return -1

        return _Fn()


@pytest.mark.needs_symlinks
@pytest.mark.parametrize("err", [None, errno.ENOTSUP, errno.EINVAL])
def test_a_refused_swap_falls_back_to_two_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int | None
) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: _FakeLibc(err, calls))
    monkeypatch.setattr(ctypes, "get_errno", lambda: err)
    memory, new, store = _dir_and_link(tmp_path)
    assert swaps.exchange(new, memory) is False
    if err is not None:  # called as the man page declares it, with RENAME_SWAP
        argtypes, restype, src, dst, flags = calls[0]
        assert argtypes == (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint)
        assert restype is ctypes.c_int
        assert (src, dst, flags) == (os.fsencode(new), os.fsencode(memory), 2)
    backup = tmp_path / "backup"
    swap.swap_in(memory, str(backup))  # the caller's fallback: aside, then in
    assert memory.is_symlink() and memory.resolve() == store.resolve()
    assert (backup / "note.md").read_text() == "the agent's own"
    assert not new.exists() and not swap.old_dir(memory).exists()


@pytest.mark.needs_symlinks
def test_another_failure_is_raised_not_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: _FakeLibc(errno.EACCES, []))
    monkeypatch.setattr(ctypes, "get_errno", lambda: errno.EACCES)
    memory, new, _ = _dir_and_link(tmp_path)
    with pytest.raises(PermissionError):
        swaps.exchange(new, memory)
    assert memory.is_dir() and new.is_symlink()  # nothing moved
