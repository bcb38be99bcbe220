"""Minimal-diff edits of JSON text, for ``coffer setup``.

A config file such as ``settings.json`` is the user's: re-serialising it would reflow every
hand-formatted array. So edits here are splices of the original text: a new member is
inserted after the last one with the indentation of its siblings, a removed member takes its
separator with it, and every other byte stays where it was. Removing what was inserted gives
back the original text exactly, even if other parts of the file changed meanwhile.

Values are compared as parsed JSON (``json.loads`` semantics: the last of duplicate keys wins).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coffer.base.errors import CofferError

if TYPE_CHECKING:
    from typing import Any

MISSING: Any = object()
_WS = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_LITERALS = ("true", "false", "null")

Step = str | int  # an object key or an array index


@dataclass
class Node:
    """A JSON value's span in the text; objects and arrays keep their children's spans."""

    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    keys: list[str] = field(default_factory=list)  # object: member keys, in order
    key_starts: list[int] = field(default_factory=list)  # object: where each key begins
    children: list[Node] = field(default_factory=list)  # member values or array items

    def child(self, key: str) -> Node | None:
        for i in range(len(self.keys) - 1, -1, -1):  # the last duplicate wins
            if self.keys[i] == key:
                return self.children[i]
        return None

    def index(self, key: str) -> int:
        return len(self.keys) - 1 - self.keys[::-1].index(key)

    def item_start(self, i: int) -> int:
        return self.key_starts[i] if self.kind == "object" else self.children[i].start


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> CofferError:
        line = self.text.count("\n", 0, self.pos) + 1
        return CofferError(f"{what} at line {line}")

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WS:
            self.pos += 1

    def value(self) -> Node:
        self.ws()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of JSON")
        ch = self.text[self.pos]
        start = self.pos
        if ch == "{":
            return self.container(start, "object", "}")
        if ch == "[":
            return self.container(start, "array", "]")
        if ch == '"':
            self.string()
            return Node("scalar", start, self.pos)
        m = _NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return Node("scalar", start, self.pos)
        for literal in _LITERALS:
            if self.text.startswith(literal, self.pos):
                self.pos += len(literal)
                return Node("scalar", start, self.pos)
        raise self.fail(f"unexpected {ch!r}")

    def string(self) -> str:
        m = _STRING.match(self.text, self.pos)
        if m is None:
            raise self.fail("bad string")
        self.pos = m.end()
        text: str = json.loads(m.group())
        return text

    def container(self, start: int, kind: str, close: str) -> Node:
        node = Node(kind, start, start)
        self.pos += 1
        self.ws()
        if self.text.startswith(close, self.pos):
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.ws()
            if kind == "object":
                if not self.text.startswith('"', self.pos):
                    raise self.fail("expected a key")
                node.key_starts.append(self.pos)
                node.keys.append(self.string())
                self.ws()
                if not self.text.startswith(":", self.pos):
                    raise self.fail("expected ':'")
                self.pos += 1
            node.children.append(self.value())
            self.ws()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith(close, self.pos):
                self.pos += 1
                node.end = self.pos
                return node
            raise self.fail(f"expected ',' or {close!r}")


def parse(text: str) -> Node:
    p = _Parser(text)
    node = p.value()
    p.ws()
    if p.pos != len(text):
        raise p.fail("extra data after the JSON value")
    return node


class JsonText:
    """A JSON object document edited in place, keeping its bytes and its style."""

    def __init__(self, text: str) -> None:
        self.text = text if text.strip() else "{}\n"
        # What the parser reads: the text itself; JSONC's subclass blanks its comments and
        # trailing commas there, so every position is the same in both.
        self.plain = self.plainly(self.text)
        try:
            json.loads(self.plain)  # strictness: what json accepts, and nothing else
        except ValueError as exc:
            raise CofferError(f"not valid JSON ({exc})") from exc
        self.root = parse(self.plain)
        if self.root.kind != "object":
            raise CofferError("does not hold a JSON object")
        self.eol = "\r\n" if "\r\n" in self.text else "\n"
        # One-line JSON stays one line; a bare "{}" (or a new file) grows indented.
        self.compact = "\n" not in self.plain.strip() and self.plain.strip() != "{}"
        self.unit = self._unit()
        self.colon = ": " if not self.compact or re.search(r'":\s', self.plain) else ":"

    def plainly(self, text: str) -> str:
        """The text the parser reads (JSON: the text itself)."""
        return text

    def _unit(self) -> str:
        m = re.search(r"^[{\[][ \t]*\r?\n([ \t]+)\S", self.plain.lstrip())
        return m.group(1) if m else "  "

    def _reparse(self, text: str) -> None:
        self.text = text
        self.plain = self.plainly(text)
        self.root = parse(self.plain)

    # ---- reading ---------------------------------------------------------------------

    def node(self, path: Sequence[str]) -> Node | None:
        """The node at ``path`` (object keys), None if missing; CofferError if a parent on
        the way is not an object."""
        node = self.root
        for depth, key in enumerate(path):
            if node.kind != "object":
                raise CofferError(f"{'.'.join(path[:depth])} is not an object")
            child = node.child(key)
            if child is None:
                return None
            node = child
        return node

    def value(self, node: Node) -> Any:
        return json.loads(self.plain[node.start : node.end])

    def empty(self) -> bool:
        return not self.root.children

    # ---- rendering -------------------------------------------------------------------

    def _line_indent(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        m = re.match(r"[ \t]*", self.text[start:])
        return m.group() if m else ""

    def _render(self, value: Any, base: str, inline: bool) -> str:
        if inline or self.compact:
            sep = (", ", self.colon) if self.colon == ": " else (",", ":")
            return json.dumps(value, separators=sep, ensure_ascii=False)
        text = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return text.replace("\n", self.eol + base)

    def _entry(self, container: Node, key: str | None, value: Any, base: str, inline: bool) -> str:
        body = self._render(value, base, inline)
        if key is None:
            return body
        return json.dumps(key, ensure_ascii=False) + self.colon + body

    def _insert(self, container: Node, key: str | None, value: Any) -> None:
        """Add a member (object) or an item (array) after the container's last one."""
        if container.children:
            last = len(container.children) - 1
            first_start = container.item_start(0)
            last_start = container.item_start(last)
            multiline = "\n" in self.plain[container.start : first_start] and not self.plain[
                self.text.rfind("\n", 0, last_start) + 1 : last_start
            ].strip(_WS)
            if multiline:
                base = self._line_indent(last_start)
                piece = "," + self.eol + base + self._entry(container, key, value, base, False)
            else:
                sep = ", " if self.colon == ": " else ","
                piece = sep + self._entry(container, key, value, "", True)
            at = container.children[last].end
            self._reparse(self.text[:at] + piece + self.text[at:])
            return
        outer = self._line_indent(container.start)
        if self.compact:
            inner = self._entry(container, key, value, "", True)
        else:
            base = outer + self.unit
            inner = self.eol + base + self._entry(container, key, value, base, False)
            inner += self.eol + outer
        self._reparse(self.text[: container.start + 1] + inner + self.text[container.end - 1 :])

    # ---- edits (plain values in, plain values out) -------------------------------------

    def set(self, path: Sequence[str], value: Any) -> int | None:
        """Set ``path`` to ``value``; the depth of the first parent created (None: none)."""
        node = self.root
        for depth, key in enumerate(path[:-1]):
            child = node.child(key)
            if child is None:
                nested: Any = value
                for k in reversed(path[depth + 1 :]):
                    nested = {k: nested}
                self._insert(node, key, nested)
                return depth
            if child.kind != "object":
                raise CofferError(f"{'.'.join(path[: depth + 1])} is not an object")
            node = child
        current = node.child(path[-1])
        if current is None:
            self._insert(node, path[-1], value)
        else:
            self._replace(current, value)
        return None

    def _replace(self, node: Node, value: Any) -> None:
        base = self._line_indent(node.start)
        inline = "\n" not in self.text[node.start : node.end] and node.kind == "scalar"
        self._reparse(
            self.text[: node.start] + self._render(value, base, inline) + self.text[node.end :]
        )

    def items(self, path: Sequence[str]) -> list[Any] | None:
        node = self.node(path)
        if node is None:
            return None
        if node.kind != "array":
            raise CofferError(f"{'.'.join(path)} is not a list")
        return [self.value(c) for c in node.children]

    def append(self, path: Sequence[str], value: Any) -> int | None:
        """Append ``value`` to the array at ``path``; the depth of the first node created
        (the array itself counts), None when the array existed."""
        node = self.node(path)
        if node is not None:
            if node.kind != "array":
                raise CofferError(f"{'.'.join(path)} is not a list")
            self._insert(node, None, value)
            return None
        created = self.set(path, [value])
        return len(path) - 1 if created is None else created

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        node = self.node(path)
        assert node is not None
        self._replace(node.children[index], value)

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        """Delete ``path`` (or item ``index`` of the array there), then every container
        coffer created (depth >= ``created``) that this leaves empty, as one splice."""
        steps: list[Step] = [*path] if index is None else [*path, index]
        while len(steps) >= 2 and len(steps) - 2 >= created:
            parent = self._at(steps[:-1])
            if len(parent.children) != 1:
                break
            steps.pop()
        parent = self._at(steps[:-1])
        last = steps[-1]
        i = last if isinstance(last, int) else parent.index(last)
        if len(parent.children) == 1:
            start, end = parent.start + 1, parent.end - 1
        elif i > 0:
            start, end = parent.children[i - 1].end, parent.children[i].end
        else:
            start, end = parent.item_start(0), parent.item_start(1)
        self._reparse(self.text[:start] + self.text[end:])

    def _at(self, steps: Sequence[Step]) -> Node:
        node = self.root
        for step in steps:
            found = node.children[step] if isinstance(step, int) else node.child(step)
            assert found is not None
            node = found
        return node


__all__ = ["MISSING", "JsonText", "Node", "parse"]
