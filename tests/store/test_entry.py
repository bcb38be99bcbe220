from __future__ import annotations

import pytest

from coffer.store.entry import EntryParseError, parse, serialize, slugify

CLAUDE_FILE = """---
name: release-process
description: Releases are cut with `make release`; never push tags by hand.
type: project
modified: 2026-10-01
metadata:
  originSessionId: 3f2a
  type: feedback
---

Cut releases with `make release`.

**Why:** the target signs artifacts.
"""


def test_claude_file_top_level_keys_fold_into_metadata_and_metadata_wins():
    e = parse(CLAUDE_FILE, "feedback_release.md")
    assert e.name == "release-process"
    assert e.type == "feedback"  # metadata: wins over the top-level type
    assert e.metadata["originSessionId"] == "3f2a"
    assert e.metadata["modified"] == "2026-10-01"  # timestamps stay strings
    assert e.body.startswith("Cut releases")


def test_legacy_top_level_type_is_read():
    e = parse("---\nname: a\ndescription: d\ntype: user\n---\nbody\n", "a.md")
    assert e.type == "user"


def test_missing_name_and_description_fall_back():
    e = parse("---\nmetadata:\n  type: user\n---\n\n# Prefers tabs\nmore\n", "user_prefs.md")
    assert e.name == "user_prefs"
    assert e.description == "Prefers tabs"


def test_no_frontmatter_at_all_is_an_entry():
    e = parse("Just a note.\n", "note.md")
    assert (e.name, e.description, e.body) == ("note", "Just a note.", "Just a note.\n")


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: [unclosed\n---\nbody\n",
        "---\nname: a\n",  # no closing ---
        "---\n- a list\n---\nbody\n",
        "---\nname: a\nmetadata: 3\n---\n",
    ],
)
def test_unparsable_files_raise(text):
    with pytest.raises(EntryParseError):
        parse(text, "x.md")


def test_rewrite_keeps_unknown_keys():
    e = parse(CLAUDE_FILE, "f.md")
    again = parse(serialize(e), "f.md")
    assert again.metadata == e.metadata
    assert again.name == e.name and again.description == e.description
    assert again.body.strip() == e.body.strip()


def test_serialize_is_claude_shaped():
    e = parse("---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\n\nhello\n", "a.md")
    assert serialize(e) == "---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\n\nhello\n"


@pytest.mark.parametrize(
    ("raw", "slug"),
    [("Deploy Process!", "deploy-process"), ("../../etc/passwd", "etc-passwd"), ("___", "")],
)
def test_slugify(raw, slug):
    assert slugify(raw) == slug
