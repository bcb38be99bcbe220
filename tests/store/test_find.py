"""``Store.find`` (``coffer show``) looks one name up in the search cache: the same entry a
scan of the tier would find first, by its name, its file name, or its file name less ``.md``."""

from __future__ import annotations

from pathlib import Path

import pytest

from coffer.base.errors import EntryNotFoundError
from coffer.store import Tier
from tests.helpers import make_repo, store, write_entry


@pytest.fixture
def tier(tmp_path: Path) -> Tier:
    made = store().project_tier(make_repo(tmp_path / "repo"), create=True)
    assert made is not None
    return made


def _first_by_scan(tier: Tier, name: str) -> str | None:
    for e in store().scan(tier).entries:
        if name in (e.name, e.filename, e.filename.removesuffix(".md")):
            return e.filename
    return None


def test_a_name_a_file_name_and_the_first_of_two(tier: Tier) -> None:
    write_entry(tier.dir, "alpha", "first note")
    write_entry(tier.dir, "beta", "second note")
    # A file whose name field repeats another entry's: the first by file name wins.
    (tier.dir / "aaa.md").write_text("---\nname: beta\ndescription: d\n---\n\nthird\n")
    for name in ("alpha", "alpha.md", "beta", "beta.md", "aaa", "aaa.md"):
        found = store().find([tier], name)
        assert found.entry.filename == _first_by_scan(tier, name)
    assert store().find([tier], "beta").entry.body == "third\n"


def test_a_name_nowhere_or_not_utf8_is_not_found(tier: Tier) -> None:
    write_entry(tier.dir, "alpha", "first note")
    for name in ("alph", "\udcff"):
        with pytest.raises(EntryNotFoundError):
            store().find([tier], name)
