"""Properties of the managed block (coffer/projection/managed_block.py and
coffer/projection/blocks/render.py).

For any bytes around it (BOM, CRLF, lone CR, no final line break, undecodable bytes, unicode,
text that resembles a marker without being one), an upsert keeps every byte outside the block,
a second upsert changes nothing, there is never a second block, and removing the block gives
back the original bytes, plus whatever was typed below the block meanwhile.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from coffer.base.errors import BlockError
from coffer.projection import managed_block
from coffer.projection.blocks import removal, render
from coffer.projection.journal import Journal
from coffer.store import Entry
from tests.helpers import coffer, make_repo
from tests.properties.budget import examples

S, E = managed_block.START_MARKER, managed_block.END_MARKER
BOM = "\ufeff"

# Pieces a real instruction file is made of, and near misses of coffer's own lines.
_LOOKALIKES = [
    S[:-1],
    S.upper(),
    "<!-- coffer:memory:start -->",
    f"`{S}`",
    f"{S} trailing text",
    f"> {E}",
    f"{E}\u00a0",  # a no-break space is not the padding markers tolerate
    f"\v{S}",
    "<!-- coffer:digest:0123456789abcdef -->",
    "<!-- coffer:memory:end --",
]
_PIECES = st.one_of(
    st.sampled_from(["\n", "\r\n", "\r", BOM, " ", "\t", "", "# Title", "- item", "```", "~~~"]),
    st.sampled_from(_LOOKALIKES),
    st.text(max_size=12),
)
_TEXT = st.lists(_PIECES, max_size=25).map("".join)
_BYTES = st.one_of(
    _TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=80),
    st.tuples(_TEXT, st.binary(max_size=8)).map(lambda p: p[0].encode("utf-8", "replace") + p[1]),
)


def _no_block(data: bytes) -> bool:
    try:
        return managed_block.find(data) is None
    except BlockError:
        return False


OUTSIDE = _BYTES.filter(_no_block)
BODIES = st.text(max_size=120).map(managed_block.render_fragment)


def _marker_lines(data: bytes) -> tuple[int, int]:
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    stripped = [line.removeprefix(BOM.encode()).strip(b" \t") for line in lines]
    return stripped.count(S.encode()), stripped.count(E.encode())


def _typed_below(once: bytes, text: bytes) -> bytes:
    """Text someone adds below the block, starting on a line of its own (an editor ends the
    marker line with the file's line break first if it had none)."""
    if once.endswith(b"\n"):
        return text
    span = managed_block.find(once)
    assert span is not None
    return span.newline.encode() + text


@examples(200)
@given(outside=OUTSIDE, body=BODIES, body2=BODIES)
def test_append_keeps_the_file_and_round_trips(outside: bytes, body: str, body2: str) -> None:
    once = managed_block.upsert(outside, body)
    assert once.startswith(outside)  # appending never rewrites what was there
    span = managed_block.find(once)
    assert span is not None and not span.edited
    assert span.body == body.rstrip("\n")
    assert _marker_lines(once) == (1, 1)
    assert managed_block.upsert(once, body) == once  # idempotent
    twice = managed_block.upsert(once, body2)
    assert _marker_lines(twice) == (1, 1)
    assert managed_block.upsert(twice, body2) == twice
    assert managed_block.remove(once) == outside
    assert managed_block.remove(twice) == outside


@examples(200)
@given(outside=OUTSIDE, below=OUTSIDE, body=BODIES, body2=BODIES)
def test_text_added_below_survives_replace_and_remove(
    outside: bytes, below: bytes, body: str, body2: str
) -> None:
    once = managed_block.upsert(outside, body)
    added = _typed_below(once, below)
    data = once + added
    assume(_marker_lines(data) == (1, 1))  # the added text did not complete a marker line
    old = managed_block.find(data)
    assert old is not None
    new = managed_block.upsert(data, body2)
    span = managed_block.find(new)
    assert span is not None and not span.edited
    assert new[: span.start] == data[: old.start]  # every byte above kept
    assert new[span.end :] == data[old.end :]  # every byte below kept
    assert managed_block.upsert(new, body2) == new
    assert _marker_lines(new) == (1, 1)
    # Issue 10, point 12: undo after text was appended below the block gave one extra blank
    # line; the original plus what was typed comes back.
    assert managed_block.remove(new) == outside + added


@examples(200)
@given(above=OUTSIDE, below=OUTSIDE, body=BODIES, crlf=st.booleans())
def test_a_block_placed_anywhere_is_replaced_in_place(
    above: bytes, below: bytes, body: str, crlf: bool
) -> None:
    nl = b"\r\n" if crlf else b"\n"
    if above and not above.endswith(b"\n"):
        above += nl
    placed = nl.join([S.encode(), b"old text", E.encode()]) + nl
    data = above + placed + below
    assume(_marker_lines(data) == (1, 1))
    out = managed_block.upsert(data, body)
    span = managed_block.find(out)
    assert span is not None
    assert out[: span.start] == above and out[span.end :] == below
    assert managed_block.upsert(out, body) == out
    removed = managed_block.remove(out)
    # Only the block's lines go, and at most the blank line an append would have put above.
    assert removed.endswith(below)
    assert above.startswith(removed[: len(removed) - len(below)])
    assert len(above) - (len(removed) - len(below)) <= 2 * len(nl)


@examples(30)
# At least one entry: an empty tier gets no block at all (docs/adr/0045).
@given(outside=OUTSIDE, below=OUTSIDE, texts=st.lists(st.text(max_size=60), min_size=1, max_size=4))
def test_projection_undo_restores_the_file_and_what_was_added(
    outside: bytes, below: bytes, texts: list[str]
) -> None:
    entries = [
        Entry(f"e{i}", text.strip()[:40] or f"entry {i}", text or f"entry {i}", {"type": "project"})
        for i, text in enumerate(texts)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "AGENTS.md"
        path.write_bytes(outside)
        journal = Journal(root / "store")
        job = render.BlockJob(path, ("codex",), "project", "p", "Memory", entries, None)
        report = render.apply(journal, render.plan(journal, job))
        assert report.ok, report.problems
        once = path.read_bytes()
        assert once.startswith(outside)
        again = render.apply(journal, render.plan(journal, job))
        assert not again.changes and path.read_bytes() == once
        added = _typed_below(once, below)
        assume(_marker_lines(once + added) == (1, 1))
        path.write_bytes(once + added)
        record = journal.load(path)
        assert record is not None
        undone = removal.apply_undo(journal, removal.plan_undo(record, force=False))
        assert undone.ok, undone.problems
        assert path.read_bytes() == outside + added
        assert journal.get(path) is None


def test_cli_unproject_after_text_appended_below_the_block(tmp_path: Path, fake_home: Path) -> None:
    """Issue 10, point 12, end to end: project, append below the block by hand, unproject."""
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    original = b"# Rules\r\n\r\nUse tabs.\r\n"
    agents = repo / "AGENTS.md"
    agents.write_bytes(original)
    assert coffer("remember", "We deploy with make release.", cwd=repo).returncode == 0
    r = coffer("project", "--project", str(repo))
    assert r.returncode == 0, r.stderr
    projected = agents.read_bytes()
    assert b"make release" in projected
    appended = b"## Added by hand\r\n\r\nRun the linter first.\r\n"
    agents.write_bytes(projected + appended)
    r = coffer("unproject", "--project", str(repo))
    assert r.returncode == 0, r.stderr
    assert agents.read_bytes() == original + appended
