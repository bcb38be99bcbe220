"""Minimal-diff edits of JSONC (JSON with ``//`` and ``/* */`` comments and trailing commas),
for ``coffer setup`` on the config files that allow them (OpenCode's ``opencode.json``, Zed's
``settings.json``, VS Code-style settings).

The parser reads a *plain* copy of the text in which every comment and every trailing comma
is blanked with spaces (line breaks kept), so every position is the same in the text and in
its plain copy; the edits are splices of the real text, as for JSON
(coffer/setup/json_text.py). Where comments could be caught by JSON's splices, the rules
change so that no comment is ever moved or removed:

- a new member goes after the last one, as in JSON, unless a comment or trailing comma
  follows that last one; then it goes *first*, on its own line after the opening brace (and
  after a comment on the brace's line), followed by a comma;
- removing a member whose neighbourhood holds comments takes its own line and its own comma
  only, never a comment, so removing what was inserted gives the original text back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from coffer.base.errors import CofferError
from coffer.setup.json_text import JsonText, Node, Step

if TYPE_CHECKING:
    from typing import Any

_BLANKS = " \t"


def strip_jsonc(text: str) -> str:
    """``text`` with each comment and each trailing comma replaced by spaces (line breaks
    stay), the same length; CofferError for a comment that never ends."""
    return _drop_trailing_commas(_blank_comments(text))


def _blank_comments(text: str) -> str:
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            end = _line_end(text, i)
            out[i:end] = " " * (end - i)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                line = text.count("\n", 0, i) + 1
                raise CofferError(f"a /* comment is never closed (line {line})")
            for j in range(i, end + 2):
                if out[j] not in "\r\n":
                    out[j] = " "
            i = end + 2
            continue
        i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"' or text[i] == "\n":
            return i + 1
        i += 1
    return i


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    return end - 1 if end > start and text[end - 1] == "\r" else end


def _drop_trailing_commas(plain: str) -> str:
    out = list(plain)
    i = 0
    while i < len(plain):
        ch = plain[i]
        if ch == '"':
            i = _string_end(plain, i)
            continue
        if ch == ",":
            j = i + 1
            while j < len(plain) and plain[j] in " \t\r\n":
                j += 1
            if j < len(plain) and plain[j] in "}]":
                out[i] = " "
        i += 1
    return "".join(out)


class JsoncText(JsonText):
    """A JSONC object document edited in place; no comment is moved or lost."""

    def plainly(self, text: str) -> str:
        self.commented = _blank_comments(text)  # comments blanked, trailing commas kept
        return _drop_trailing_commas(self.commented)

    def _clean(self, start: int, end: int) -> bool:
        """No comment and no trailing comma between ``start`` and ``end``."""
        return self.text[start:end] == self.plain[start:end]

    def _after_brace(self, container: Node) -> int:
        """Where a first member goes: after the opening brace and any comment on its line."""
        pos = at = container.start + 1
        while pos < len(self.text) and self.text[pos] in _BLANKS:
            pos += 1
        while pos < len(self.text) and self.plain[pos] == " " and self.text[pos] != " ":
            while pos < len(self.text) and self.plain[pos] == " " and self.text[pos] not in "\r\n":
                pos += 1  # through one comment (blank in the plain copy)
            at = pos
            while pos < len(self.text) and self.text[pos] in _BLANKS:
                pos += 1
        return at

    def _insert(self, container: Node, key: str | None, value: Any) -> None:
        if not container.children:
            if self._clean(container.start, container.end):
                super()._insert(container, key, value)
                return
            at = self._after_brace(container)
            base = self._line_indent(container.start) + self.unit
            piece = self.eol + base + self._entry(container, key, value, base, False)
            if self.compact:
                piece = self._entry(container, key, value, "", True)
            self._reparse(self.text[:at] + piece + self.text[at:])
            return
        last = container.children[-1]
        if self._clean(last.end, container.end):
            super()._insert(container, key, value)
            return
        first = container.item_start(0)
        if "\n" in self.plain[container.start : first]:
            at = self._after_brace(container)
            base = self._line_indent(first)
            piece = self.eol + base + self._entry(container, key, value, base, False) + ","
        else:
            at = first
            sep = ", " if self.colon == ": " else ","
            piece = self._entry(container, key, value, "", True) + sep
        self._reparse(self.text[:at] + piece + self.text[at:])

    # ---- removal ---------------------------------------------------------------------

    def _line_start(self, parent: Node, pos: int) -> int:
        """The line break before ``pos`` when only blanks stand between (and it is inside
        ``parent``), else ``pos``: where a member on its own line begins."""
        i = pos
        while i > parent.start + 1 and self.text[i - 1] in _BLANKS:
            i -= 1
        if i > parent.start + 1 and self.text[i - 1] == "\n":
            i -= 1
            if i > parent.start + 1 and self.text[i - 1] == "\r":
                i -= 1
            return i
        return pos

    def _comma_after(self, pos: int) -> int | None:
        """The position of the comma that follows ``pos`` (blanks and comments between)."""
        i = pos
        while i < len(self.text) and self.plain[i] in " \t\r\n":
            if self.commented[i] == ",":
                return i  # a trailing comma (blanked in the plain copy)
            i += 1
        return i if i < len(self.text) and self.text[i] == "," else None

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        steps: list[Step] = [*path] if index is None else [*path, index]
        while len(steps) >= 2 and len(steps) - 2 >= created:
            if len(self._at(steps[:-1]).children) != 1:
                break
            steps.pop()
        parent = self._at(steps[:-1])
        last = steps[-1]
        i = last if isinstance(last, int) else parent.index(last)
        node = parent.children[i]
        if len(parent.children) == 1:
            if self._clean(parent.start, parent.end):
                super().remove(path, index, created)
                return
            self._cut_own(parent, i, node)
            return
        if i == 0:
            if self._clean(node.end, parent.item_start(1)):
                super().remove(path, index, created)
                return
            self._cut_own(parent, i, node)
            return
        if self._clean(parent.children[i - 1].end, parent.item_start(i)):
            super().remove(path, index, created)
            return
        self._cut_own(parent, i, node)

    def _cut_own(self, parent: Node, i: int, node: Node) -> None:
        """Remove member ``i``: its own line and its own comma, never a comment."""
        item = parent.item_start(i)
        start = self._line_start(parent, item)
        end = node.end
        comma = self._comma_after(end)
        cuts: list[tuple[int, int]] = []
        if comma is not None and comma < parent.end - 1:
            end = comma + 1
            if start == item:
                while end < len(self.text) and self.text[end] in _BLANKS:
                    end += 1
        elif i > 0:
            before = self._comma_after(parent.children[i - 1].end)
            if before is not None:
                cuts.append((before, before + 1))  # the separator left dangling
        cuts.append((start, end))
        text = self.text
        for a, b in sorted(cuts, reverse=True):
            text = text[:a] + text[b:]
        self._reparse(text)


__all__ = ["JsoncText", "strip_jsonc"]
