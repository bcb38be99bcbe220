"""The same memory twice: `remember` says it is already there; `doctor` finds exact and
near duplicates, also between a project and the global tier."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from coffer.store import Entry, health
from coffer.store.health import NEAR, duplicates
from tests.helpers import coffer, make_repo, store


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def test_remembering_the_same_text_again_names_the_entry_and_adds_no_file(repo: Path) -> None:
    first = coffer("remember", "Releases are cut on Thursdays.", cwd=repo)
    assert first.returncode == 0, first.stderr
    tier = store().project_tier(repo)
    assert tier is not None
    files = sorted(p.name for p in tier.dir.iterdir())
    again = coffer("remember", "  Releases are cut\non   Thursdays. \n", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("already remembered as releases-are-cut-on-thursdays in ")
    assert sorted(p.name for p in tier.dir.iterdir()) == files
    named = json.loads(
        coffer(
            "remember", "Releases are cut on Thursdays.", "--name", "cut", "--json", cwd=repo
        ).stdout
    )
    assert (named["action"], named["name"]) == ("unchanged", "releases-are-cut-on-thursdays")
    assert sorted(p.name for p in tier.dir.iterdir()) == files
    # The other tier is another memory: the same text there is a new entry.
    other = coffer("remember", "Releases are cut on Thursdays.", "--scope", "global", cwd=repo)
    assert other.stdout.startswith("created ")


def write(directory: Path, name: str, body: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.md").write_text(f"---\nname: {name}\ndescription: d\n---\n{body}\n")


def test_doctor_finds_exact_and_near_duplicates(repo: Path) -> None:
    assert coffer("remember", "Seed.", cwd=repo).returncode == 0
    tier = store().project_tier(repo)
    assert tier is not None
    write(tier.dir, "a", "Deploys need a change ticket from the release manager.")
    write(tier.dir, "b", "Deploys  need a change ticket\nfrom the release manager.")  # exact
    write(tier.dir, "c", "Deploys need a change ticket from the release manager first.")  # near
    write(tier.dir, "d", "Deploys need a review from the security team.")  # unrelated
    write(store().global_tier(create=True).dir, "g", "Seed.")  # the project's seed, globally
    out = coffer("doctor", "--json", cwd=repo)
    assert out.returncode == 1
    found = {
        (Path(f["path"]).name, f["level"]): f["message"] for f in json.loads(out.stdout)["findings"]
    }
    assert "the same text as" in found["b.md", "warning"] and "a.md" in found["b.md", "warning"]
    assert "nearly the same text" in found["c.md", "info"] and "a.md" in found["c.md", "info"]
    assert "`coffer forget seed`" in found["seed.md", "warning"]
    assert "g.md" in found["seed.md", "warning"]
    assert not any(name == "d.md" for name, _ in found)


def test_prefix_filtering_finds_every_pair_brute_force_finds() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(40)]
    base = [rng.sample(vocabulary, rng.randint(3, 12)) for _ in range(60)]
    bodies = []
    for words in base:  # each sentence plus a few variants that drop or add one word
        bodies.append(" ".join(words))
        bodies.append(" ".join(words[:-1]))
        bodies.append(" ".join([*words, rng.choice(vocabulary)]))
    entries = [Entry(f"e{i}", "", b, {}, f"e{i}.md") for i, b in enumerate(bodies)]
    _, near = duplicates(entries)
    got = {b.name: a.name for a, b, _ in near}
    assert len(got) == len(near)  # one finding per duplicate
    distinct = list({" ".join(e.body.split()): e for e in reversed(entries)}.values())[::-1]
    want: dict[str, str] = {}
    for a, b in itertools.combinations(distinct, 2):  # in order: a before b
        x, y = set(a.body.split()), set(b.body.split())
        if len(x & y) / len(x | y) >= NEAR:
            want.setdefault(b.name, a.name)  # the first one it repeats
    assert want and got == want


def test_many_copies_of_one_note_are_found_in_linear_work() -> None:
    # 3,000 notes in 12 families of near copies (one word differs): each copy is reported
    # once, against the first of its family, not against every other copy.
    words = [f"w{k}" for k in range(60)]
    bodies = [" ".join(words[(i % 12) * 3 : (i % 12) * 3 + 14]) + f" n{i}" for i in range(3000)]
    entries = [Entry(f"e{i}", "", b, {}, f"e{i}.md") for i, b in enumerate(bodies)]
    _, near = duplicates(entries)
    assert len(near) == 3000 - 12
    assert all(a.name == f"e{int(b.name[1:]) % 12}" for a, b, _ in near)


def test_notes_sharing_one_template_but_not_near_are_not_compared_pair_by_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 3,000 notes from one 17-word template plus three words of their own: 74% the same
    # words, so none is near. The template's words are in every prefix; only where they sit
    # there rules the pairs out. Checked pair by pair that was 4.5 million comparisons.
    compared = 0

    def counting(a: frozenset[str], b: frozenset[str]) -> float:
        nonlocal compared
        compared += 1
        return similarity(a, b)

    similarity = health.similarity
    monkeypatch.setattr(health, "similarity", counting)
    template = " ".join(f"t{k}" for k in range(17))
    bodies = [f"{template} a{i} b{i} c{i}" for i in range(3000)]
    entries = [Entry(f"e{i}", "", b, {}, f"e{i}.md") for i, b in enumerate(bodies)]
    _, near = duplicates(entries)
    assert near == []
    assert compared <= 3000


def test_doctor_lists_fifty_near_duplicates_and_counts_the_rest(repo: Path) -> None:
    tier = store().project_tier(repo, create=True)
    assert tier is not None
    words = " ".join(f"w{k}" for k in range(12))
    for i in range(61):  # one note and 60 near copies of it
        write(tier.dir, f"n{i}", f"{words} copy{i}")
    out = coffer("doctor", "--json", cwd=repo)
    near = [f for f in json.loads(out.stdout)["findings"] if f["level"] == "info"]
    listed = [f for f in near if "nearly the same text" in f["message"]]
    assert len(listed) == 50
    (more,) = [f for f in near if f["message"].startswith("and 10 more near duplicates")]
    assert "`coffer review`" in more["message"]
