"""The managed block coffer keeps inside an agent's instruction file (pure: bytes in, bytes out).

A block, as written (``NL`` is the file's line break, see below)::

    <!-- coffer:memory:start (managed, do not edit) -->NL
    <!-- coffer:digest:0123456789abcdef -->NL
    body line 1NL
    ...NL
    <!-- coffer:memory:end -->NL

Markers count only alone on their line (spaces/tabs around them tolerated when reading, and a
UTF-8 BOM before a marker on line 1). The digest is the first 16 hex digits of the sha256 of the
body (UTF-8, line breaks normalised to LF, trailing line breaks dropped); a block whose digest
line is missing or disagrees with its body counts as *edited* by someone else. Anything odd about
the markers (start without end, end without start, end before start, two blocks, a nested start)
raises :class:`BlockError` naming the 1-based line numbers; nothing is guessed or repaired.

Everything outside the block is kept byte for byte. The line break used for the block is the
file's own: CRLF if the file's line breaks outside the block are all CRLF, LF if all LF; in a
mixed file the break ending the last line before the block, or (block on line 1) the majority,
ties going to LF; with no line break outside the block, the old block's own, else LF.

Appending (no block yet) adds nothing to an empty (or BOM-only) file, one blank line after a file
ending in a line break, and a line break plus a blank line after one that does not. In that last
case the block itself gets no final line break, so the file still ends without one and
:func:`remove` can tell ``"x"`` from ``"x\\n"`` (both end in ``"x\\n\\n"`` before the block).
Replacing keeps the old block's final line break, or its absence.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import NamedTuple

from coffer.base.errors import BlockError

START_MARKER = "<!-- coffer:memory:start (managed, do not edit) -->"
END_MARKER = "<!-- coffer:memory:end -->"


class Markers:
    """One kind of block's marker pair. The personal block (:data:`MEMORY`) is what git's
    clean filter strips; the team block (:data:`TEAM`, docs/adr/0036) is committed."""

    # A plain class: git runs the clean filter, which imports this module, on every read.
    __slots__ = ("end", "start")

    def __init__(self, start: bytes, end: bytes) -> None:
        self.start, self.end = start, end


MEMORY = Markers(START_MARKER.encode(), END_MARKER.encode())
TEAM = Markers(b"<!-- coffer:team:start (managed, do not edit) -->", b"<!-- coffer:team:end -->")
_EVERY_MARKER = {m.decode() for k in (MEMORY, TEAM) for m in (k.start, k.end)}
_DIGEST_RE = re.compile(rb"[ \t]*<!-- coffer:digest:([0-9a-f]{16}) -->[ \t]*\r?")
_BOM, _CRLF, _LF = b"\xef\xbb\xbf", b"\r\n", b"\n"
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_HTML_OPENER_RE = re.compile(r"^( {0,3})<(?=[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|[!?])")


class BlockSpan(NamedTuple):
    """Where the block is. ``data[start:end]`` is exactly what :func:`upsert` replaces."""

    start: int  # byte offset of the start marker line (after a BOM on line 1)
    end: int  # byte offset just past the end marker line, its line break included if any
    start_line: int  # 1-based line numbers of the two markers
    end_line: int
    body: str  # LF line breaks, no trailing line break
    newline: str  # "\r\n" or "\n": the start marker line's line break
    edited: bool  # digest line missing or not matching the body


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _canonical(body: str) -> str:
    return _normalise(body).rstrip("\n")


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _lines(data: bytes) -> Iterator[tuple[int, int, int, bytes]]:
    """Yield (1-based number, start offset, end offset past the break, content without break)."""
    pos, number = 0, 1
    while pos < len(data):
        brk = data.find(_LF, pos)
        stop = len(data) if brk < 0 else brk + 1
        content = data[pos : len(data) if brk < 0 else brk]
        if brk >= 0 and content.endswith(b"\r"):
            content = content[:-1]
        yield number, pos, stop, content
        pos, number = stop, number + 1


_Marker = tuple[bool, int, int, int]  # (is start, line number, start, stop)


def _markers(data: bytes, kind: Markers) -> list[_Marker]:
    markers: list[_Marker] = []
    for number, begin, stop, content in _lines(data):
        if number == 1 and content.startswith(_BOM):
            content, begin = content[len(_BOM) :], begin + len(_BOM)
        text = content.strip(b" \t")
        if text in (kind.start, kind.end):
            markers.append((text == kind.start, number, begin, stop))
    return markers


def _pair(markers: list[_Marker]) -> list[tuple[_Marker, _Marker]]:
    """The (start, end) marker pairs; malformed nesting or order raises BlockError."""
    blocks: list[tuple[_Marker, _Marker]] = []
    opened: _Marker | None = None
    for index, marker in enumerate(markers):
        is_start, number = marker[0], marker[1]
        if is_start and opened is not None:
            raise BlockError(
                f"start marker on line {number} is nested inside the block "
                f"whose start marker is on line {opened[1]}"
            )
        if is_start:
            opened = marker
        elif opened is None:
            later = next((m[1] for m in markers[index + 1 :] if m[0]), None)
            if later is None:
                raise BlockError(f"end marker on line {number} has no start marker")
            raise BlockError(
                f"end marker on line {number} comes before the start marker on line {later}"
            )
        else:
            blocks.append((opened, marker))
            opened = None
    if opened is not None:
        raise BlockError(f"start marker on line {opened[1]} has no end marker")
    return blocks


def find(data: bytes, kind: Markers = MEMORY) -> BlockSpan | None:
    """Locate the one managed block of ``kind`` in ``data``; ``None`` if there is none.

    Raises :class:`BlockError` (message names the line numbers) if the markers are malformed.
    """
    if kind.start not in data and kind.end not in data:
        return None
    blocks = _pair(_markers(data, kind))
    if len(blocks) > 1:
        spans = ", ".join(f"lines {s[1]}-{e[1]}" for s, e in blocks)
        raise BlockError(f"found {len(blocks)} managed blocks ({spans}); expected at most one")
    if not blocks:
        return None
    (_, start_line, start, body_start), (_, end_line, end_begin, end) = blocks[0]
    newline = "\r\n" if data[:body_start].endswith(_CRLF) else "\n"
    digest = None
    if body_start < end_begin:  # the line after the start marker may be the digest line
        brk = data.index(_LF, body_start)
        match = _DIGEST_RE.fullmatch(data, body_start, brk)
        if match is not None:
            digest, body_start = match[1].decode(), brk + 1
    body = _normalise(data[body_start:end_begin].decode("utf-8", "surrogateescape"))
    body = body.removesuffix("\n")
    return BlockSpan(start, end, start_line, end_line, body, newline, digest != _digest(body))


def _render(body: str, newline: bytes, final_break: bool, kind: Markers) -> bytes:
    text = _canonical(body)
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip(" \t") in _EVERY_MARKER:
            raise ValueError(
                f"body line {number} would read as a coffer marker; pass entry text "
                "through render_fragment"
            )
    digest = f"<!-- coffer:digest:{_digest(text)} -->"
    lines = [kind.start.decode(), digest, *([text] if text else []), kind.end.decode()]
    out = "\n".join(lines).encode("utf-8").replace(_LF, newline)
    return out + newline if final_break else out


def _choose_newline(before: bytes, after: bytes, fallback: bytes) -> bytes:
    crlf = before.count(_CRLF) + after.count(_CRLF)
    lf = before.count(_LF) + after.count(_LF) - crlf
    if not crlf or not lf:
        return _CRLF if crlf else _LF if lf else fallback
    last = before.rfind(_LF)
    if last >= 0:
        return _CRLF if before[last - 1 : last] == b"\r" else _LF
    return _CRLF if crlf > lf else _LF


def _append_layout(data: bytes) -> tuple[bytes, bytes, bool]:
    """For a file without a block: (bytes before the block, line break, block's final break)."""
    if data in (b"", _BOM):
        return data, _LF, True
    newline = _choose_newline(data, b"", _LF)
    if data.endswith(_LF):
        return data + newline, newline, True
    return data + newline + newline, newline, False


def upsert(data: bytes | None, body: str, kind: Markers = MEMORY) -> bytes:
    """Return ``data`` with the block holding ``body`` created, appended or replaced in place.

    ``None`` means the file does not exist. Raises :class:`BlockError` on malformed markers and
    ``ValueError`` if ``body`` holds a marker line or cannot be encoded as UTF-8 (use
    :func:`render_fragment` on entry text).
    """
    if data is None:
        return _render(body, _LF, True, kind)
    span = find(data, kind)
    if span is None:
        before, newline, final_break = _append_layout(data)
        return before + _render(body, newline, final_break, kind)
    before, after = data[: span.start], data[span.end :]
    newline = _choose_newline(before, after, span.newline.encode())
    return before + _render(body, newline, data[: span.end].endswith(_LF), kind) + after


def remove(data: bytes, kind: Markers = MEMORY) -> bytes:
    """Return ``data`` without its block (unchanged if there is none).

    If the text before the block ends exactly as :func:`upsert` left it when appending, the
    separator upsert added goes too, so ``remove(upsert(x, b)) == x``, and text someone added
    below the block since survives as it was typed: ``remove(upsert(x, b) + t) == x + t``
    (a block appended without a final line break gains one when a line is added below it; that
    break is the added text's, so it stays). Otherwise only the block's lines go. Raises
    :class:`BlockError` on malformed markers.
    """
    span = find(data, kind)
    if span is None:
        return data
    before, after = data[: span.start], data[span.end :]
    newline, end = span.newline.encode(), data[: span.end]
    end_break = _CRLF if end.endswith(_CRLF) else _LF if end.endswith(_LF) else b""
    # Longest separator first: "x" + "\n\n" and "x\n" + "\n" give the same bytes when a
    # line was added below, and only the shorter original keeps the break that was typed.
    for cut in (2 * len(newline), len(newline), 0):
        candidate = before[: len(before) - cut]
        if cut > len(before):
            continue
        layout, layout_newline, final_break = _append_layout(candidate)
        if (layout, layout_newline) == (before, newline) and (end_break or not final_break):
            return candidate + (b"" if final_break else end_break) + after
    return before + after


def block_key(path: str) -> str:
    """The name under which the block of the file ``path`` is kept for git's smudge
    command (coffer.gitfilter): its real path, hashed."""
    import hashlib
    import os

    real = os.path.realpath(path)
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def is_current(data: bytes, body: str) -> bool:
    """True if ``data`` holds a well-formed block that :func:`upsert` would leave byte-identical.

    That is: body equal (after LF-normalisation), digest valid, markers clean, line breaks as
    upsert would choose. Malformed markers give ``False`` (upsert will then raise).
    """
    try:
        span = find(data)
    except BlockError:
        return False
    return span is not None and span.body == _canonical(body) and upsert(data, body) == data


# Unicode's Cc (other than TAB, LF, CR and NUL, handled above) and Cf characters, and the
# two separators (Zl, Zp) that end a line no editor shows: tests/projection/test_block.py checks the
# class against unicodedata for every code point.
_INVISIBLE = (
    "[\x01-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f"
    "\u0890-\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_INVISIBLE_RE = re.compile(_INVISIBLE)


def show_invisible(text: str) -> str:
    """``text`` with each invisible character written as ``<U+XXXX>``."""
    return _INVISIBLE_RE.sub(lambda m: f"<U+{ord(m[0]):04X}>", text)


def render_fragment(text: str) -> str:
    """Make memory text safe to place inside the block. Exactly these changes are made:

    1. surrogate pairs are joined, lone surrogates and NUL characters dropped;
    2. line breaks (CRLF, CR) become LF;
    3. every ``<!--``, code included, becomes ``&lt;!--`` (so no line can read as a marker or
       digest line; an LLM reads the entity fine and markdown renders it as ``<!--``);
    4. outside fenced code, a ``<`` that would open a raw HTML block at the start of a line (up
       to 3 spaces, then ``<tag``, ``</tag``, ``<!`` or ``<?``) becomes ``&lt;``;
    5. a backtick or tilde code fence left open is closed by the same fence line at the end;
    6. a character nobody sees (a control other than TAB and LF, a format character: bidi
       overrides and isolates, zero-width ones, tag characters, and the line and paragraph
       separators) is shown as ``<U+202E>``, so a reader sees what the agent reads (issue 22.9).
    """
    try:
        text.encode("utf-8")  # no surrogates (the common case): nothing to join or drop
    except UnicodeEncodeError:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")
    text = _normalise(text).replace("\x00", "").replace("<!--", "&lt;!--")
    text = show_invisible(text)
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE_RE.match(line)
        if fence is None:
            if match and not (match[1][0] == "`" and "`" in match[2]):
                fence = match[1]
            else:
                line = _HTML_OPENER_RE.sub(r"\1&lt;", line)
        elif match and match[1][0] == fence[0] and len(match[1]) >= len(fence):
            fence = fence if match[2].strip(" \t") else None  # a closing fence has no info
        out.append(line)
    result = "\n".join(out)
    if fence is not None:
        result += fence + "\n" if result.endswith("\n") else "\n" + fence
    return result
