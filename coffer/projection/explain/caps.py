"""How much of each loaded file reaches the model: its size in the units the agent's caps
count, what a cap cuts, and whether coffer's memory (a managed block, or the index of a
linked memory directory) is in it and survives the cut.

Pure over bytes once the files are read; the block is found by the same parser that writes
it (coffer.projection.managed_block), never by a second one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from coffer.adapter.facts import Cap
from coffer.base.errors import BlockError
from coffer.projection import managed_block
from coffer.projection.explain.files import Found


class Section(NamedTuple):
    """One piece of coffer's memory in a file: a tier's block, or a linked memory index."""

    tier: str  # "project", "global" or "team"
    kind: str  # "block" or "index"
    start: int
    end: int
    # bytes of whole-line HTML comments in it (the markers, the digest line) that the agent
    # drops before the model reads the file (AgentFacts.strips_comments)
    dropped: int = 0

    def sent(self, kept: int) -> int:
        """Of ``kept`` bytes of this section, those the model gets."""
        return kept - self.dropped if kept == self.end - self.start else kept


class Measured(NamedTuple):
    """One file as the agent gets it."""

    found: Found
    size: int  # bytes
    lines: int
    chars: int
    kept: tuple[int, int]  # bytes kept from the start and from the end
    cut: tuple[str, ...]  # one sentence per cap that cut
    coffer: str  # "block", "index", "malformed" or ""
    span: tuple[int, int] | None  # the block's byte range
    sections: tuple[Section, ...] = ()  # every piece of coffer's memory in it

    def kept_bytes(self, start: int, end: int) -> int:
        """How many bytes of ``start:end`` reach the model (none of a file it skips)."""
        if not self.read:
            return 0
        head, tail = self.kept[0], self.size - self.kept[1]
        return max(0, min(end, head) - start) + max(0, end - max(start, tail))

    @property
    def coffer_bytes(self) -> int:
        """The bytes of coffer's memory this file puts in the agent's context."""
        return sum(s.sent(self.kept_bytes(s.start, s.end)) for s in self.sections)

    @property
    def is_cut(self) -> bool:
        return sum(self.kept) < self.size

    @property
    def state(self) -> str:
        """The Found's state, or for a file the agent reads: "loaded", "cut", or "dropped"
        when its caps leave nothing of it (a budget spent before it)."""
        if self.found.state != "loaded":
            return self.found.state
        if self.size and not sum(self.kept):
            return "dropped"
        return "cut" if self.is_cut else "loaded"

    @property
    def read(self) -> bool:
        return self.state in ("loaded", "cut")

    @property
    def coffer_cut(self) -> str:
        """ "", "partly" or "entirely": how much of coffer's memory the caps drop."""
        if not self.coffer or not self.is_cut:
            return ""
        start, end = self.span or (0, self.size)
        gone_from, gone_to = self.kept[0], self.size - self.kept[1]
        if end <= gone_from or start >= gone_to:
            return ""
        return "entirely" if start >= gone_from and end <= gone_to else "partly"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _count(data: bytes, unit: str) -> int:
    if unit == "bytes":
        return len(data)
    if unit == "tokens":
        return (len(data) + 3) // 4  # the agents' own estimate: about four bytes a token
    text = _text(data)
    if unit == "lines":
        return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return len(text)


def _bytes_of(data: bytes, unit: str, n: int, *, from_end: bool = False) -> int:
    """How many bytes ``n`` units are, counted from the start (or the end) of ``data``."""
    if n <= 0:
        return 0
    if unit == "bytes" or unit == "tokens":
        return min(len(data), n if unit == "bytes" else 4 * n)
    text = _text(data)
    if unit == "lines":
        parts = text.splitlines(keepends=True)
        piece = "".join(parts[-n:] if from_end else parts[:n])
    else:
        piece = text[-n:] if from_end else text[:n]
    return len(piece.encode("utf-8", "surrogateescape"))


def _coffer(path: Path, data: bytes, store: Path) -> tuple[str, tuple[int, int] | None]:
    try:
        span = managed_block.find(data)
    except BlockError:
        return "malformed", None
    if span is not None:
        return "block", (span.start, span.end)
    try:
        linked = path.resolve().is_relative_to(store.resolve())
    except OSError:
        linked = False
    return ("index", None) if linked else ("", None)


def _sections(
    f: Found, data: bytes, coffer: str, span: tuple[int, int] | None
) -> tuple[Section, ...]:
    tier = f.load.scope
    if coffer == "index":
        return (Section(tier, "index", 0, len(data)),)
    out = [Section(tier, "block", *span)] if span is not None else []
    try:
        team = managed_block.find(data, managed_block.TEAM)
    except BlockError:
        team = None
    if team is not None:
        out.append(Section("team", "block", team.start, team.end))
    return tuple(sorted(out, key=lambda s: s.start))


_COMMENT_LINE = re.compile(rb"^[ \t]*<!--.*?-->[ \t]*(?:\r?\n|$)", re.MULTILINE)


def _comments(data: bytes) -> int:
    return sum(len(m.group(0)) for m in _COMMENT_LINE.finditer(data))


def _describe(cap: Cap, used: int) -> str:
    per = "in all" if cap.per == "total" else "a file"
    return f"{cap.limit:,} {cap.unit} {per} ({used:,} here); keeps {cap.keeps}"


def measure(
    files: Sequence[Found], store: Path, *, strips_comments: bool = False
) -> list[Measured]:
    """Each loaded file with its sizes and what its caps keep; the files the agent skips
    (shadowed, off) are measured too, uncut. ``strips_comments``: the agent drops HTML
    comment lines before the model reads a file, so coffer's markers cost it nothing."""
    datas = {f.path: _read(f.path) for f in files}
    budgets = _budgets(files, datas)
    out = []
    for f in files:
        data = datas[f.path]
        head, tail, cuts = len(data), 0, []
        if f.state == "loaded":
            for cap in f.caps:
                used = _count(data, cap.unit)
                allowed = budgets.get((cap, f.path), cap.limit)
                if used <= allowed:
                    continue
                head = min(head, _bytes_of(data, cap.unit, int(allowed * cap.head)))
                tail = max(tail, _bytes_of(data, cap.unit, int(allowed * cap.tail), from_end=True))
                cuts.append(_describe(cap, used))
        tail = min(tail, len(data) - head)
        coffer, span = _coffer(f.path, data, store)
        text = _text(data)
        lines = _count(data, "lines")
        sections = _sections(f, data, coffer, span)
        if strips_comments:
            sections = tuple(s._replace(dropped=_comments(data[s.start : s.end])) for s in sections)
        kept = (head, tail)
        out.append(
            Measured(f, len(data), lines, len(text), kept, tuple(cuts), coffer, span, sections)
        )
    return out


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _budgets(files: Sequence[Found], datas: dict[Path, bytes]) -> dict[tuple[Cap, Path], int]:
    """What each file may use of every "total" cap it shares with others: the budget goes
    to the files in load order (or last loaded first) until it is spent."""
    shared: dict[Cap, list[Found]] = {}
    for f in files:
        if f.state == "loaded":
            for cap in f.caps:
                if cap.per == "total":
                    shared.setdefault(cap, []).append(f)
    out: dict[tuple[Cap, Path], int] = {}
    for cap, members in shared.items():
        left = cap.limit
        for f in members[::-1] if cap.fills == "last-first" else members:
            out[(cap, f.path)] = left
            left = max(0, left - _count(datas[f.path], cap.unit))
    return out


class Cost(NamedTuple):
    """What coffer's memory costs one agent's context: bytes, about bytes / 4 tokens, and
    where each tier's copies are (a tier read more than once is paid for each time)."""

    bytes: int
    copies: dict[str, list[tuple[Path, str, int]]]  # tier: (file, kind, bytes) per copy

    @property
    def tokens(self) -> int:
        return (self.bytes + 3) // 4  # as _count counts "tokens": about four bytes a token

    @property
    def repeated(self) -> dict[str, int]:
        """Per tier read more than once: the bytes of every copy after the first."""
        return {
            tier: sum(n for _, _, n in found[1:])
            for tier, found in self.copies.items()
            if len(found) > 1
        }


def cost(files: Sequence[Measured]) -> Cost:
    copies: dict[str, list[tuple[Path, str, int]]] = {}
    for m in files:
        for s in m.sections:
            kept = s.sent(m.kept_bytes(s.start, s.end))
            if kept > 0:
                copies.setdefault(s.tier, []).append((m.found.path, s.kind, kept))
    return Cost(sum(m.coffer_bytes for m in files), copies)
