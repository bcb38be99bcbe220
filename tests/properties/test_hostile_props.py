"""Property tests for hostile content (issue 10; docs/adr/0018).

* Frontmatter parsing: any text (and any YAML built from anchors, aliases, tags, nesting)
  gives an entry or an ``EntryParseError``, in bounded time and memory, and a parsed
  entry's shown fields are one line that can neither forge a marker nor open a fence.
* The secret gate: entries carrying a secret of every known family, in the body, in every
  frontmatter field or in the file name, written straight into the store as an agent
  would, never reach a rendered file through the real ``coffer project``.
"""

from __future__ import annotations

import os
import tracemalloc
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffer.secrets import STORE_PATTERNS, find_secrets, visible
from coffer.store.entry import TYPES, EntryParseError, parse
from tests.helpers import coffer, make_repo, store
from tests.secret_samples import SAMPLES

# ---- frontmatter parsing -------------------------------------------------------------------

_SCALARS = st.one_of(
    st.text(max_size=20),
    st.integers(),
    st.sampled_from(["~", "null", "yes", "2026-01-01", "1e400", "-.inf", "0x1F", '"\\x00"']),
)


@st.composite
def yaml_frontmatter(draw: st.DrawFn) -> str:
    """YAML-looking frontmatter from hostile pieces: anchors, aliases, merges, tags, depth."""
    lines: list[str] = []
    anchors: list[str] = []
    for i in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["scalar", "anchor", "alias", "merge", "tag", "deep", "raw"]))
        if kind == "anchor":
            anchors.append(f"a{i}")
            refs = ", ".join(f"*{a}" for a in anchors[:-1]) or "1"
            lines.append(f"k{i}: &a{i} [{refs}, {refs}]")
        elif kind == "alias" and anchors:
            lines.append(f"k{i}: *{draw(st.sampled_from(anchors))}")
        elif kind == "merge" and anchors:
            lines.append(f"k{i}: {{<<: *{draw(st.sampled_from(anchors))}}}")
        elif kind == "tag":
            tag = draw(st.sampled_from(["!!python/object:os.system", "!!binary", "!!set", "!x"]))
            lines.append(f"k{i}: {tag} {draw(_SCALARS)!s}")
        elif kind == "deep":
            depth = draw(st.integers(1, 3000))
            lines.append(f"k{i}: " + "[" * depth + "]" * depth)
        elif kind == "raw":
            lines.append(draw(st.text(max_size=60)))
        else:
            key = draw(st.sampled_from(["name", "description", "metadata", "type", "tags", "x"]))
            lines.append(f"{key}: {draw(_SCALARS)!s}")
    return "\n".join(lines)


def _check_parse(text: str) -> None:
    try:
        entry = parse(text, "x.md")
    except EntryParseError as exc:
        message = str(exc)
        assert message, "an EntryParseError must say what is wrong"
        return
    for field in (entry.name, entry.description):
        assert "\n" not in field and "\r" not in field
        assert "<!--" not in field and "```" not in field and "~~~" not in field
    assert entry.type is None or entry.type in TYPES
    assert "\x00" not in entry.body


@settings(max_examples=300, deadline=timedelta(seconds=2))
@given(st.text(max_size=2000))
def test_any_text_parses_to_an_entry_or_a_clear_error(text: str) -> None:
    _check_parse(text)
    _check_parse(f"---\n{text}\n---\nbody\n")


@settings(max_examples=200, deadline=timedelta(seconds=2))
@given(yaml_frontmatter(), st.text(max_size=200))
def test_hostile_yaml_parses_in_bounded_time_and_memory(front: str, body: str) -> None:
    tracemalloc.start()
    try:
        _check_parse(f"---\n{front}\n---\n{body}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024


@settings(max_examples=30, deadline=timedelta(seconds=2))
@given(st.integers(2, 12), st.integers(2, 12))
def test_alias_bombs_of_any_shape_are_refused(levels: int, width: int) -> None:
    lines = ["a0: &a0 [lol]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    text = "---\n" + "\n".join(lines) + "\n---\nboom\n"
    with pytest.raises(EntryParseError, match="alias"):
        parse(text, "bomb.md")


# ---- the secret gate -----------------------------------------------------------------------

_PIECES = st.one_of(
    st.sampled_from([secret for _, secret in SAMPLES]),
    st.sampled_from(["password", "Token", "_key", "secret", "aws", "AKIA", "xox", "eyJ"]),
    st.sampled_from(["=", ":", " ", "\t", "\n", "'", '"', "\u200b", "\x00", "-", "_"]),
    st.text(min_size=1, max_size=8),
)


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=25).map("".join))
def test_the_gate_s_shortcuts_never_hide_a_match(text: str) -> None:
    """The literal pre-filter and the keyword window only skip patterns that cannot match."""
    plain = {label for label, pattern in STORE_PATTERNS if pattern.search(text)}
    assert plain <= set(find_secrets(text))


# ---- the secret gate, end to end -----------------------------------------------------------

_FIELDS = ("body", "name", "description", "type", "tags", "filename", "other-key")
_INVISIBLE = ("", "\u200b", "\x00", "\u202e", "\u00ad")


def _yaml_string(text: str) -> str:
    # A double-quoted YAML scalar holding ``text`` exactly (JSON strings are valid YAML).
    import json

    return json.dumps(text)


@st.composite
def hostile_entry(draw: st.DrawFn) -> tuple[str, str, str]:
    """(file name, file text, the secret in it)."""
    _, secret = draw(st.sampled_from(SAMPLES))
    field = draw(st.sampled_from(_FIELDS))
    split = draw(st.sampled_from(_INVISIBLE))
    if split and len(secret) > 8 and field not in ("filename",):
        at = draw(st.integers(4, len(secret) - 4))
        secret_text = secret[:at] + split + secret[at:]
    else:
        secret_text = secret
    around = draw(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
    value = f"{around} {secret_text}"
    stem = f"e-{uuid.uuid4().hex[:8]}"
    front = {"name": _yaml_string(stem), "description": '"a note"'}
    body = "plain body"
    if field == "body":
        body = value
    elif field == "name":
        front["name"] = _yaml_string(value)
    elif field == "description":
        front["description"] = _yaml_string(value)
    elif field in ("type", "tags", "other-key"):
        key = {"type": "type", "tags": "tags", "other-key": "origin"}[field]
        rendered = f"[{_yaml_string(value)}]" if key == "tags" else _yaml_string(value)
        front["metadata"] = f"\n  {key}: {rendered}"
    filename = f"{stem}.md"
    if field == "filename":
        usable = "/" not in secret and len(secret.encode()) < 200
        filename = f"{secret}.md" if usable else filename
        front.pop("name")
    head = "\n".join(f"{k}: {v}" for k, v in front.items())
    return filename, f"---\n{head}\n---\n{body}\n", secret


@settings(
    max_examples=int(os.environ.get("COFFER_PROPERTY_EXAMPLES", "8")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(hostile_entry(), min_size=1, max_size=5))
def test_no_rendered_file_ever_holds_a_secret_the_gate_knows(
    tmp_path: Path, fake_home: Path, entries: list[tuple[str, str, str]]
) -> None:
    (fake_home / ".claude").mkdir(exist_ok=True)
    (fake_home / ".codex").mkdir(exist_ok=True)
    repo = make_repo(tmp_path / uuid.uuid4().hex)
    first = coffer("remember", "We deploy with make release.", "--name", "deploy", cwd=repo)
    assert first.returncode == 0, first.stderr
    tier = store().project_tier(repo)
    assert tier is not None
    for filename, text, _ in entries:
        (tier.dir / filename).write_text(text, encoding="utf-8", errors="surrogatepass")
    result = coffer("project", cwd=repo)
    assert result.returncode == 0, result.stderr
    rendered = [
        repo / "AGENTS.md",
        fake_home / ".claude" / "CLAUDE.md",
        fake_home / ".codex" / "AGENTS.md",
        *Path(os.environ["COFFER_HOME"]).glob("projects/*/memory/MEMORY.md"),
    ]
    files = [p.read_text(encoding="utf-8", errors="replace") for p in rendered if p.exists()]
    for text in files:
        assert find_secrets(text) == [], text
    # coffer's own messages may name an entry; they never print the secret itself.
    for text in [*files, result.stdout, result.stderr]:
        for _, _, secret in entries:
            assert secret not in text and secret not in visible(text)
    assert "We deploy with make release." in (repo / "AGENTS.md").read_text()
