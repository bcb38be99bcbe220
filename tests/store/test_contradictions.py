"""Issue 25.4: the contradiction detector, measured on a labelled set of entry pairs.

The floors below are what the detector measured when it was written (tuning set: 30 true,
19 false pairs; held-out set, labelled before the detector ran on it: 14 true, 16 false);
a change that lowers either fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.store import Entry
from coffer.store.contradictions import find

DATA = json.loads((Path(__file__).parent.parent / "data" / "contradictions.json").read_text())


def _measure(pairs: list[list[object]]) -> tuple[float, float]:
    tp = fp = fn = 0
    for a, b, label in pairs:
        got = bool(find([Entry("a", "", str(a)), Entry("b", "", str(b))]))
        tp += got and bool(label)
        fp += got and not label
        fn += (not got) and bool(label)
    return tp / (tp + fp), tp / (tp + fn)


@pytest.mark.parametrize(
    ("name", "precision", "recall"), [("tuning", 1.0, 1.0), ("held_out", 0.81, 0.92)]
)
def test_precision_and_recall(name: str, precision: float, recall: float) -> None:
    p, r = _measure(DATA[name])
    print(f"{name}: precision {p:.2f} recall {r:.2f}")
    assert p >= precision and r >= recall


def test_what_a_finding_says() -> None:
    global_ = Entry("pm", "", "We use pnpm for every project.")
    project = Entry("install", "", "Run npm install before the tests.")
    (found,) = find([global_, project])
    assert found.subject == "JavaScript package manager"
    assert found.says == ("pnpm", "npm")
    assert found.summary() == ("JavaScript package manager: pm says 'pnpm', install says 'npm'")


def test_the_same_text_twice_is_a_duplicate_not_a_contradiction() -> None:
    a = Entry("a", "", "Use pnpm, never npm.")
    assert find([a, a._replace(name="b")]) == []


def test_candidates_come_from_the_subject_index() -> None:
    """10,000 entries on unrelated subjects and one pair that disagrees: one finding."""
    entries = [
        Entry(f"e{i}", "", f"Service {i} keeps its logs for {i % 30} days.") for i in range(10_000)
    ]
    entries += [Entry("x", "", "Format with black."), Entry("y", "", "Format with yapf.")]
    (found,) = find(entries)
    assert {found.first.name, found.second.name} == {"x", "y"}
