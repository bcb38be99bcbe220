"""The repository layout's path checks, git's blob ids and the checks on what a round takes
in (coffer.sync.tree, coffer.sync.local; docs/adr/0034)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coffer.sync import local, tree


@pytest.mark.parametrize(
    "path",
    [
        "global/../x.md",
        "projects/../../x.md",
        "projects/a/.git/x.md",
        "global/MEMORY.md",
        "global/.hidden.md",
        "global/notes.txt",
        "global/sub/x.md",
        "journal/x.md",
        "x.md",
    ],
)
def test_paths_outside_the_layout_are_refused(path: str) -> None:
    assert tree.split(path) is None


def test_paths_inside_the_layout() -> None:
    assert tree.split("global/tabs.md") == ("global", "tabs.md")
    assert tree.split("projects/github.com/o/r/deploy.md") == ("github.com/o/r", "deploy.md")


def test_incoming_checks() -> None:
    good = b"---\nname: fine\n---\n\nA fine fact.\n"
    item = tree.Item("100644", tree.blob_id(good), len(good))
    assert local.check_incoming("global/fine.md", item, good) is None
    link = tree.Item("120000", item.sha, 11)
    assert "not a plain file" in (
        local.check_incoming("global/fine.md", link, b"/etc/passwd") or ""
    )
    big = tree.Item("100644", item.sha, tree.MAX_FILE + 1)
    assert "at most 65536" in (local.check_incoming("global/fine.md", big, good) or "")
    assert "not UTF-8" in (local.check_incoming("global/fine.md", item, b"\xff\xfe") or "")
    token = b"---\nname: t\n---\n\nghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
    assert "secret" in (local.check_incoming("global/t.md", item, token) or "")
    assert "path" in (local.check_incoming("global/../t.md", item, good) or "")


def test_blob_ids_are_gits(tmp_path: Path) -> None:
    import subprocess

    f = tmp_path / "x"
    f.write_bytes(b"hello\n")
    out = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True, check=True)
    assert tree.blob_id(b"hello\n") == out.stdout.strip()
