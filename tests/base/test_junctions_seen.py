"""A junction counts as a link wherever coffer refuses to follow one. On Windows lstat shows
a junction as a plain directory (never S_IFLNK), so ``Path.is_symlink`` misses it; each
place asks the seam (``platform.link_at``, ``platform.is_link``). Here a real directory
is made a junction by the seam's ``is_junction``, as Windows would report it."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from coffer.adapter.native import import_file, markdown_files
from coffer.base import fsutil, platform
from coffer.base.errors import CofferError
from coffer.sync import waiting as sync_waiting
from coffer_adapters.gemini import memory as gemini_memory
from coffer_adapters.qwen import native as qwen_native


@pytest.fixture
def junction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in junction: a directory the seam calls a junction, holding a file that
    must never be read or removed through it (each test renames it where it needs one)."""
    made = tmp_path / "junction"
    made.mkdir()
    (made / "secret.md").write_text("outside\n")
    monkeypatch.setattr(platform, "is_junction", lambda p: Path(p) == made)
    return made


def junction_at(junction: Path, where: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Move the stand-in junction to ``where``, and let the seam call it a junction there."""
    where.parent.mkdir(parents=True, exist_ok=True)
    junction.rename(where)
    monkeypatch.setattr(platform, "is_junction", lambda p: Path(p) == where)
    return where


def test_the_native_import_does_not_walk_into_a_junction(
    junction: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "kept.md").write_text("a memory\n")
    inner = junction_at(junction, root / "linked", monkeypatch)
    found = markdown_files(root, "agent")
    refused = [f for f in found if not isinstance(f, Path)]
    assert [f for f in found if isinstance(f, Path)] == [root / "kept.md"]
    assert len(refused) == 1 and "symlink or junction" in refused[0].refused
    item = import_file(root, inner / "secret.md", "x", "x", "agent")
    assert item is not None and item.refused and not item.body


def test_gemini_does_not_follow_a_junction(
    junction: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini = tmp_path / ".gemini"
    junction_at(junction, gemini / "tmp" / "repo", monkeypatch)
    why = gemini_memory._owner_problem(gemini, "repo", tmp_path / "repo")
    assert "symlink or junction" in why


def test_qwen_does_not_follow_a_junction(
    junction: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / ".qwen"
    junction_at(junction, base / "projects" / "slug", monkeypatch)
    roots = qwen_native._roots(base)
    assert roots[0] == base / "memories"
    assert len(roots) == 2 and not isinstance(roots[1], Path)
    assert "symlink or junction" in roots[1].refused


def test_the_sync_waiting_area_removes_a_junction_not_what_it_holds(
    junction: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    area = tmp_path / "waiting"
    area.mkdir()
    key_dir = area / "github.com+me+app"
    # os.rmdir removes a junction on Windows; here the stand-in is emptied by nothing else
    target = tmp_path / "target"
    junction.rename(target)
    key_dir.mkdir()
    monkeypatch.setattr(platform, "is_junction", lambda p: Path(p) == key_dir)
    removed: list[Path] = []
    monkeypatch.setattr(fsutil, "unlink", lambda p: removed.append(Path(p)))
    monkeypatch.setattr(fsutil, "rmtree", lambda p: pytest.fail(f"rmtree through {p}"))
    sync_waiting._drop_gone(area, {"github.com+me+app": {}})
    assert removed == [key_dir]  # the link itself, never a file through it
    assert (target / "secret.md").read_text() == "outside\n"


def test_a_replacing_write_refuses_a_junction_as_a_link(
    junction: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_lstat = os.lstat

    def lstat(path: str | os.PathLike[str]) -> os.stat_result:
        st = real_lstat(path)
        if Path(path) != junction:
            return st
        # as Windows reports a junction: a directory with a name-surrogate reparse point
        fields = SimpleNamespace(st_mode=st.st_mode, st_file_attributes=0x410)
        fields.st_reparse_tag = 0xA0000003
        return cast(os.stat_result, fields)

    monkeypatch.setattr(os, "lstat", lstat)
    with pytest.raises(CofferError, match="through symlink"):
        fsutil.replaceable(junction)
