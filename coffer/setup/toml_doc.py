"""The TOML config documents ``coffer setup`` edits, through tomlkit, which keeps comments,
order and layout: :class:`TomlDoc`, one of the documents of :mod:`coffer.setup.config_docs`.

tomlkit sometimes puts a new table where it changes what other keys mean; each table added
is checked against the parsed original and, where tomlkit got it wrong, written again as a
table of its own at the end of the file (docs/adr/0041).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coffer.base.errors import CofferError
from coffer.setup.config_check import Expected
from coffer.setup.json_text import MISSING

_BOM = b"\xef\xbb\xbf"


class TomlDoc:
    """TOML edited with tomlkit, which keeps comments, order and layout."""

    def __init__(self, raw: bytes, text: str, path: Path) -> None:
        """``raw``: the file's bytes (its byte-order mark and line breaks are kept);
        ``text``: them decoded, without the mark."""
        import tomlkit

        self.bom, self.raw = raw.startswith(_BOM), raw
        try:
            self.root: Any = tomlkit.parse(text)
        except Exception as exc:  # tomlkit raises several unrelated types
            raise CofferError(
                f"{path} is not valid TOML ({exc}); fix it, then run coffer setup again"
            ) from exc

    def _parent(self, path: Sequence[str], *, create: bool) -> tuple[Any, int | None]:
        """The table holding ``path[-1]`` and the depth of the first table created."""
        import tomlkit

        node, created = self.root, None
        for depth, name in enumerate(path[:-1]):
            child = node.get(name)
            if child is None:
                if not create:
                    return None, None
                node[name] = tomlkit.inline_table() if _is_inline(node) else tomlkit.table(True)
                child = node[name]
                created = depth if created is None else created
            elif not isinstance(child, Mapping):
                raise CofferError(f"{'.'.join(path[: depth + 1])} is not a table")
            node = child
        return node, created

    def _item(self, parent: Any, value: Any) -> Any:
        """``value`` as ``parent`` can hold it: a table, or inline tables inside."""
        import tomlkit

        if not isinstance(value, dict):
            return value
        if _is_inline(parent) or isinstance(parent, list):
            inline = tomlkit.inline_table()
            inline.update({k: self._item(inline, v) for k, v in value.items()})
            return inline
        table = tomlkit.table()
        for k, v in value.items():
            # Nested mappings stay inline: env = {A = "b"}, as `codex mcp add` writes it.
            table.add(k, self._item(tomlkit.inline_table(), v))
        return table

    def get(self, path: Sequence[str]) -> Any:
        parent, _ = self._parent(path, create=False)
        if parent is None or path[-1] not in parent:
            return MISSING
        return _plain(parent[path[-1]])

    def set(self, path: Sequence[str], value: Any) -> int | None:
        before = self._text()
        created = self._set(path, value)
        if isinstance(value, dict) and not self._holds(before, path, value):
            # tomlkit put the new table where it changes what other keys mean (after a
            # dotted key, the keys below it become the new table's): a table at the end
            # of the file is a table of its own, whatever comes before it.
            created = self._table_at_end(before, path, value, array=False)
        return created

    def _text(self) -> str:
        import tomlkit

        return tomlkit.dumps(self.root)

    def _holds(self, before: str, path: Sequence[str], value: Any, *, append: bool = False) -> bool:
        """Whether the document now parses as ``before`` with ``value`` set (or appended) at
        ``path``, and nothing else changed."""
        expected = Expected("toml", before.encode("utf-8"))
        (expected.append if append else expected.set)(path, value)
        try:
            expected.check("", self._text().encode("utf-8"))
        except CofferError:
            return False
        return True

    def _table_at_end(
        self, before: str, path: Sequence[str], value: Any, *, array: bool
    ) -> int | None:
        """``value`` as a ``[path]`` (or ``[[path]]``) table appended to ``before``; the depth
        of the first table that did not exist. CofferError when even that is not right."""
        import tomllib

        import tomlkit

        node: Any = tomllib.loads(before)
        created: int | None = None
        for depth, name in enumerate(path[:-1] if not array else path):
            if not isinstance(node, dict) or name not in node:
                created = depth
                break
            node = node[name]
        body = tomlkit.document()
        for k, v in value.items():
            body.add(k, self._item(tomlkit.inline_table(), v))
        name = ".".join(tomlkit.key(k).as_string() for k in path)
        header = f"[[{name}]]" if array else f"[{name}]"
        gap = "" if not before.strip() or before.endswith("\n\n") else "\n"
        if before and not before.endswith("\n"):
            gap += "\n"
        self.root = tomlkit.parse(f"{before}{gap}{header}\n{tomlkit.dumps(body)}")
        if not self._holds(before, path, value, append=array):
            self.root = self._reparsed(before)
            raise CofferError(f"coffer could not add {name} without changing other keys")
        return created

    def _set(self, path: Sequence[str], value: Any) -> int | None:
        import tomlkit
        from tomlkit.items import Table

        parent, created = self._parent(path, create=True)
        item = self._item(parent, value)
        parent[path[-1]] = item
        if isinstance(item, Table) and not tomlkit.dumps(self.root).endswith(item.as_string()):
            item.add(tomlkit.nl())  # a table inserted before others: keep the blank line
        return created

    def items(self, path: Sequence[str]) -> list[Any] | None:
        parent, _ = self._parent(path, create=False)
        if parent is None or path[-1] not in parent:
            return None
        array = parent[path[-1]]
        if not isinstance(array, list):
            raise CofferError(f"{'.'.join(path)} is not an array")
        return [_plain(i) for i in array]

    def append(self, path: Sequence[str], value: Any) -> int | None:
        before = self._text()
        created = self._append(path, value)
        if isinstance(value, dict) and not self._holds(before, path, value, append=True):
            self.root = self._reparsed(before)
            if self.items(path) is not None and not self._is_aot(path):
                raise CofferError(f"{'.'.join(path)}: coffer could not add to this array")
            created = self._table_at_end(before, path, value, array=True)
        return created

    def _reparsed(self, text: str) -> Any:
        import tomlkit

        return tomlkit.parse(text)

    def _is_aot(self, path: Sequence[str]) -> bool:
        from tomlkit.items import AoT

        parent, _ = self._parent(path, create=False)
        return isinstance(parent[path[-1]], AoT)

    def _append(self, path: Sequence[str], value: Any) -> int | None:
        import tomlkit
        from tomlkit.items import AoT

        parent, created = self._parent(path, create=True)
        if path[-1] not in parent:
            # tables go into an array of tables ([[name]]) where the parent can hold one
            tables = isinstance(value, dict) and not _is_inline(parent)
            parent[path[-1]] = tomlkit.aot() if tables else tomlkit.array()
            created = len(path) - 1 if created is None else created
        array = parent[path[-1]]
        if not isinstance(array, AoT):
            array.append(self._item(array, value))
            return created
        table = self._item(parent, value)
        array.append(table)
        if not tomlkit.dumps(self.root).endswith(table.as_string()):
            table.add(tomlkit.nl())  # a table inserted before others: keep the blank line
        return created

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        from tomlkit.items import AoT

        parent, _ = self._parent(path, create=False)
        array = parent[path[-1]]
        array[index] = self._item(parent if isinstance(array, AoT) else array, value)

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        parent, _ = self._parent(path, create=False)
        if index is None:
            del parent[path[-1]]
            nodes = list(path[:-1])
        else:
            del parent[path[-1]][index]
            nodes = list(path)
        for depth in range(len(nodes) - 1, created - 1, -1):  # deepest first, while empty
            holder, _ = self._parent([*nodes[:depth], "_"], create=False)
            node = holder.get(nodes[depth]) if holder is not None else None
            if node is None or len(node) != 0:
                return
            del holder[nodes[depth]]

    def empty(self) -> bool:
        return len(self.root) == 0

    def dump(self) -> bytes:
        import tomlkit

        return (_BOM if self.bom else b"") + match_line_breaks(
            self.raw, tomlkit.dumps(self.root)
        ).encode("utf-8")


def match_line_breaks(original: bytes | None, text: str) -> str:
    """``text`` with CRLF line breaks if ``original`` used CRLF and nothing else.

    tomlkit writes the lines it adds with LF whatever the file uses; in a file of CRLF lines
    every bare LF is one of those.
    """
    if not original or b"\r\n" not in original or b"\n" in original.replace(b"\r\n", b""):
        return text
    return re.sub(r"(?<!\r)\n", "\r\n", text)


def _is_inline(node: Any) -> bool:
    return type(node).__name__ == "InlineTable"


def _plain(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value
