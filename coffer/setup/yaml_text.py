"""Minimal-diff edits of a YAML config, for ``coffer setup`` (Hermes Agent's and Goose's
``config.yaml``).

A YAML round-trip through a parser and an emitter loses comments, quoting and layout, so coffer
edits the text instead, in the one shape it needs: a member ``NAME`` of a top-level block
mapping ``KEY`` (``mcp_servers:`` / ``extensions:``). The new member's lines go after the last
indented line of that block (or, with the block missing, at the end of the file), at the
indentation of its first member; removing it takes exactly those lines. Every edit is checked
by parsing the result (PyYAML's safe loader) and comparing it with what the edit should give:
anything else (a flow mapping, an anchor on the key, a file that does not parse) is refused,
and nothing is written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from coffer.base.errors import CofferError
from coffer.setup.json_text import MISSING

if TYPE_CHECKING:
    from typing import Any

_CHILD = "  "
_BOM = b"\xef\xbb\xbf"


def _load(text: str) -> Any:
    from coffer.setup.config_check import parse

    # duplicate keys refused: a splice that made one is a broken file for the agents
    return parse("yaml", text.encode("utf-8")) if text.strip() else None


class YamlText:
    """A YAML mapping document edited in place, keeping every other byte."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.value = _load(text)
        if self.value is None:
            self.value = {}
        if not isinstance(self.value, dict):
            raise CofferError("does not hold a YAML mapping")
        self.eol = "\r\n" if "\r\n" in text else "\n"
        self.bom = False

    # ---- the block of a top-level key ------------------------------------------------

    def _lines(self) -> list[str]:
        return self.text.splitlines(keepends=True)

    def _block(self, key: str) -> tuple[int, int, str] | None:
        """(index of the ``key:`` line, index after its block, its members' indentation);
        None when the key is absent. CofferError when it is not a block mapping."""
        lines = self._lines()
        # `KEY:`, `"KEY":` or `'KEY':`, all the same key to a parser: missing a quoted one
        # would add a second `KEY:`, a duplicate key that Goose's parser rejects.
        name = re.escape(key)
        head = re.compile(rf"""^(?:{name}|"{name}"|'{name}')[ \t]*:(?P<rest>.*?)\r?\n?$""")
        found = [i for i, line in enumerate(lines) if head.match(line)]
        if not found:
            return None
        at = found[-1]  # the last of duplicate keys wins, as in the loader
        m = head.match(lines[at])
        rest = m.group("rest").strip() if m else ""
        if rest and not rest.startswith("#"):
            raise CofferError(
                f"{key} is not a block mapping (`{key}: {rest}`); write it as `{key}:` with "
                "its members indented below it, or remove the line"
            )
        end, indent = at + 1, ""
        for i in range(at + 1, len(lines)):
            line = lines[i]
            if line.strip() and not line[0].isspace():
                break
            if line.strip():
                end = i + 1
                if not indent and not line.lstrip().startswith("#"):
                    indent = line[: len(line) - len(line.lstrip())]
        return at, end, indent or _CHILD

    # ---- the Doc interface (coffer.setup.config_docs) --------------------------------

    def get(self, path: Sequence[str]) -> Any:
        node: Any = self.value
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return MISSING
            node = node[key]
        return node

    def set(self, path: Sequence[str], value: Any) -> int | None:
        """Set ``KEY.NAME``; the depth of the first container created (None: none)."""
        key, name = _two(path)
        expected = copy.deepcopy(self.value)
        container = expected.get(key)
        if container is not None and not isinstance(container, dict):
            raise CofferError(f"{key} is not a mapping; left alone")
        created: int | None = None if key in expected else 0
        if isinstance(container, dict) and name in container:
            self.remove(path, None, len(path) - 1)
            expected = copy.deepcopy(self.value)
            container = expected.get(key)
        expected[key] = {**(container or {}), name: value}
        block = self._block(key)
        lines = self._lines()
        end, indent = (len(lines), _CHILD) if block is None else block[1:]
        if end == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += self.eol  # the last line gets a line break to follow it
        head = [f"{key}:{self.eol}"] if block is None else []
        lines[end:end] = [*head, *self._member(name, value, indent)]
        self._commit("".join(lines), expected)
        return created

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        key, name = _two(path)
        if index is not None:
            raise CofferError("coffer does not edit lists in YAML")
        block = self._block(key)
        if block is None:
            raise CofferError(f"{key} is gone")
        at, end, indent = block
        lines = self._lines()
        head = re.compile(rf"^{re.escape(indent)}{re.escape(name)}[ \t]*:[ \t]*\r?\n?$")
        starts = [i for i in range(at + 1, end) if head.match(lines[i])]
        if not starts:
            raise CofferError(f"{key}.{name} is not where coffer wrote it")
        first = starts[-1]
        last = first + 1
        while last < len(lines) and _deeper(lines[last], len(indent)):
            last += 1
        del lines[first:last]
        expected = copy.deepcopy(self.value)
        del expected[key][name]
        rest = [ln for ln in lines[at + 1 : end - (last - first)] if ln.strip()]
        if not rest and not expected[key]:
            if created == 0:
                del lines[at]
                del expected[key]
            else:
                expected[key] = None  # a bare `KEY:` again, as it was
        self._commit("".join(lines), expected)

    def items(self, path: Sequence[str]) -> list[Any] | None:
        raise CofferError("coffer does not edit lists in YAML")

    def append(self, path: Sequence[str], value: Any) -> int | None:
        raise CofferError("coffer does not edit lists in YAML")

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        raise CofferError("coffer does not edit lists in YAML")

    def empty(self) -> bool:
        return not self.value

    def dump(self) -> bytes:
        return (_BOM if self.bom else b"") + self.text.encode("utf-8")

    # ---- helpers ---------------------------------------------------------------------

    def _member(self, name: str, value: Any, indent: str) -> list[str]:
        import yaml

        body = yaml.safe_dump(
            value, sort_keys=False, default_flow_style=False, allow_unicode=True, width=10**6
        )
        inner = indent * 2
        out = [f"{indent}{name}:{self.eol}"]
        out += [f"{inner}{line}{self.eol}" for line in body.splitlines()]
        return out

    def _commit(self, text: str, expected: Any) -> None:
        try:
            got = _load(text)
        except CofferError:
            got = MISSING  # the splice broke the document (a flow-style one, say)
        if (got if got is not None else {}) != expected:
            raise CofferError("coffer could not edit this YAML without changing other values")
        self.text, self.value = text, expected


def _two(path: Sequence[str]) -> tuple[str, str]:
    if len(path) != 2:
        raise CofferError("coffer edits only KEY.NAME in YAML")
    return path[0], path[1]


def _deeper(line: str, depth: int) -> bool:
    """A line of coffer's member below its ``NAME:`` line (a comment is never coffer's)."""
    text = line.strip()
    return bool(text) and not text.startswith("#") and len(line) - len(line.lstrip(" ")) > depth


def load_doc(data: bytes | None, path: Any) -> YamlText:
    """The YAML config at ``path`` (its bytes ``data``; None: absent) as an editable doc."""
    raw = data or b""
    bom = raw.startswith(_BOM)
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CofferError(f"{path} is not UTF-8 ({exc}); coffer leaves it alone") from exc
    try:
        doc = YamlText(text)
    except CofferError as exc:
        raise CofferError(f"{path}: {exc}; fix it, then run coffer setup again") from exc
    doc.bom = bom
    return doc


__all__ = ["YamlText", "load_doc"]
