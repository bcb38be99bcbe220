"""The file-by-file three-way decision and the conflict copies it leaves
(coffer.sync.merge, docs/adr/0034)."""

from __future__ import annotations

import pytest

from coffer.store.entry import parse
from coffer.sync import merge

A, B, C = ("100644", "a" * 40), ("100644", "b" * 40), ("100644", "c" * 40)


@pytest.mark.parametrize(
    ("base", "ours", "theirs", "merged", "conflict"),
    [
        (A, A, A, A, False),
        (A, B, A, B, False),  # only we changed it
        (A, A, B, B, False),  # only they changed it
        (A, B, B, B, False),  # both made the same change
        (A, B, C, B, True),  # both changed it: ours stays, theirs becomes a copy
        (None, B, C, B, True),  # both added it differently
        (None, None, B, B, False),  # they added it
        (A, None, A, None, False),  # we deleted it
        (A, A, None, None, False),  # they deleted it
        (A, None, B, B, False),  # our deletion against their edit: the edit stays
        (A, B, None, B, False),  # their deletion against our edit: the edit stays
        (A, None, None, None, False),
    ],
)
def test_the_three_way_decision(base, ours, theirs, merged, conflict) -> None:  # type: ignore[no-untyped-def]
    def side(x: tuple[str, str] | None) -> dict[str, tuple[str, str]]:
        return {} if x is None else {"global/e.md": x}

    decision = merge.decide(side(base), side(ours), side(theirs))
    assert decision.merged.get("global/e.md") == merged
    assert bool(decision.conflicts) == conflict
    if conflict:
        assert decision.conflicts == (("global/e.md", theirs),)


def test_conflict_copies_are_entries_that_say_where_they_came_from() -> None:
    text = (
        "---\nname: deploy\ndescription: How we deploy\nmetadata:\n  type: project\n"
        "---\n\nShip it.\n"
    )
    copy = merge.conflict_copy(text.encode(), "deploy.md", "laptop", "2026-12-01T10:00:00+00:00")
    assert copy is not None
    entry = parse(copy.decode(), "deploy.conflict-laptop-20261201.md")
    assert entry.name == "deploy-conflict-laptop"
    assert entry.body.strip() == "Ship it."
    assert entry.type == "project"
    assert entry.metadata["conflict_of"] == "deploy.md"
    assert entry.metadata["conflict_from"] == "laptop"
    assert merge.conflict_copy(b"---\nname: [unclosed\n---\n", "x.md", "h", "t") is None
    taken = {"global/deploy.conflict-h-20261201.md"}
    assert merge.copy_name("global/deploy.md", "h", "20261201", taken) == (
        "global/deploy.conflict-h-20261201-2.md"
    )
