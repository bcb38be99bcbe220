"""The digest a recall takes straight off a tier directory is the one its listing gives
(coffer.store.tier_listing): the cache compares the two, so any difference would make every
recall re-check every row."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from coffer.store import tier_listing


def _both(tier: Path) -> tuple[str, str]:
    return tier_listing.directory_digest(tier), tier_listing.digest(tier_listing.stats(tier))


@pytest.mark.needs_symlinks
def test_the_direct_digest_is_the_listings(tmp_path: Path) -> None:
    tier = tmp_path / "memory"
    missing, listed = _both(tier)
    assert missing == listed  # no directory yet
    tier.mkdir()
    empty, listed = _both(tier)
    assert empty == listed
    for i in range(50):
        (tier / f"fact-{i}.md").write_text(f"entry {i}\n")
    (tier / "MEMORY.md").write_text("# Memory\n")  # the index is not an entry
    (tier / ".coffer-tmp-1").write_text("half written")  # nor are hidden files
    (tier / "linked.md").symlink_to(tier / "fact-1.md")  # lstat, not the target's stat
    (tier / "ünïcode.md").write_text("x\n")
    full, listed = _both(tier)
    assert full == listed and full != empty
    assert full.startswith("52:")  # 50 facts, the link and the unicode name
    (tier / "fact-3.md").write_text("entry 3, edited\n")
    os.utime(tier / "fact-3.md", ns=(1, 1))
    edited, listed = _both(tier)
    assert edited == listed and edited != full
    (tier / ".hidden.md").write_text("x")
    (tier / "MEMORY.md").write_text("# Memory\n- changed\n")
    assert _both(tier)[0] == edited  # neither is looked at


def test_a_file_instead_of_a_directory_digests_as_nothing(tmp_path: Path) -> None:
    (tmp_path / "memory").write_text("not a directory")
    missing, listed = _both(tmp_path / "memory")
    assert missing == listed == tier_listing.directory_digest(tmp_path / "absent")


class _Gone:
    """A directory entry whose file was removed after the directory was read."""

    name = "deleted-meanwhile.md"

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        raise FileNotFoundError(2, "No such file or directory", self.name)


def test_a_file_removed_while_listed_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent deletes an entry between the directory's read and the file's stat: the tier
    # is listed as it is a moment later, not failed (a recall must not stop on it).
    tier = tmp_path / "memory"
    tier.mkdir()
    (tier / "kept.md").write_text("x\n")
    before = _both(tier)
    real = os.scandir

    class Listing:
        def __init__(self, where: int | Path) -> None:
            self.it = real(where)

        def __enter__(self) -> Listing:
            return self

        def __exit__(self, *exc: object) -> None:
            self.it.close()

        def __iter__(self) -> Iterator[object]:
            yield _Gone()
            yield from self.it

    monkeypatch.setattr(os, "scandir", Listing)
    assert _both(tier) == before
    assert [name for name, _ in tier_listing.stats(tier)] == ["kept.md"]
