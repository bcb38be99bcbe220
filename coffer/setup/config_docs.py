"""The config documents ``coffer setup`` edits: JSON, JSONC and YAML spliced as text, TOML
through tomlkit.

Both expose one small interface (:class:`Doc`): get, set, append to a list, replace or remove
an item, so planning and undo in :mod:`coffer.setup.wiring` never care which format a file uses,
and every byte coffer does not own stays as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from coffer.adapter import ConfigEdit
from coffer.base.errors import CofferError
from coffer.setup.config_check import Expected
from coffer.setup.json_text import MISSING, JsonText

_BOM = b"\xef\xbb\xbf"


class _Doc(Protocol):
    """A parsed config file, edited with plain values, written back in its own style."""

    def get(self, path: Sequence[str]) -> Any: ...  # MISSING when absent
    def set(self, path: Sequence[str], value: Any) -> int | None: ...
    def items(self, path: Sequence[str]) -> list[Any] | None: ...
    def append(self, path: Sequence[str], value: Any) -> int | None: ...
    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None: ...
    def remove(self, path: Sequence[str], index: int | None, created: int) -> None: ...
    def empty(self) -> bool: ...
    def dump(self) -> bytes: ...


class _JsonDoc:
    """JSON edited as text (coffer.setup.json_text), JSONC keeping its comments
    (coffer.setup.jsonc_text): untouched bytes stay untouched."""

    def __init__(self, data: bytes | None, path: Path, *, jsonc: bool = False) -> None:
        raw = data or b""
        self.bom = raw.startswith(_BOM)
        text = JsonText
        if jsonc:
            from coffer.setup.jsonc_text import JsoncText as text
        try:
            self.doc = text(_decode(raw.removeprefix(_BOM), path))
        except CofferError as exc:
            raise CofferError(f"{path}: {exc}; fix it, then run coffer setup again") from exc

    def get(self, path: Sequence[str]) -> Any:
        node = self.doc.node(path)
        return MISSING if node is None else self.doc.value(node)

    def set(self, path: Sequence[str], value: Any) -> int | None:
        return self.doc.set(path, value)

    def items(self, path: Sequence[str]) -> list[Any] | None:
        return self.doc.items(path)

    def append(self, path: Sequence[str], value: Any) -> int | None:
        return self.doc.append(path, value)

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        self.doc.replace_item(path, index, value)

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        self.doc.remove(path, index, created)

    def empty(self) -> bool:
        return self.doc.empty()

    def dump(self) -> bytes:
        return (_BOM if self.bom else b"") + self.doc.text.encode("utf-8")


class _TomlDoc:
    """TOML edited with tomlkit, which keeps comments, order and layout."""

    def __init__(self, data: bytes | None, path: Path) -> None:
        import tomlkit

        raw = data or b""
        self.bom, self.raw = raw.startswith(_BOM), raw
        try:
            self.root: Any = tomlkit.parse(_decode(raw.removeprefix(_BOM), path))
        except CofferError:
            raise
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


def _decode(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CofferError(f"{path} is not UTF-8 ({exc}); coffer leaves it alone") from exc


def _load(fmt: str, data: bytes | None, path: Path) -> _Doc:
    if fmt == "toml":
        return _TomlDoc(data, path)
    if fmt in ("yaml", "text"):  # YAML spliced as text; a whole file coffer owns
        from coffer.setup import text_doc, yaml_text

        doc: _Doc = (yaml_text if fmt == "yaml" else text_doc).load_doc(data, path)
        return doc
    return _JsonDoc(data, path, jsonc=fmt == "jsonc")


class Checked:
    """A config document whose every edit is also made to the parsed original
    (coffer.setup.config_check.Expected): :meth:`dump` gives the new bytes only when they
    parse to exactly that, and refuses otherwise (docs/adr/0041)."""

    def __init__(self, fmt: str, data: bytes | None, path: Path) -> None:
        self.doc, self.path = _load(fmt, data, path), path
        try:
            self.expected = Expected(fmt, data)
        except CofferError as exc:
            raise CofferError(f"{path}: {exc}; fix it, then run coffer setup again") from exc

    def get(self, path: Sequence[str]) -> Any:
        return self.doc.get(path)

    def items(self, path: Sequence[str]) -> list[Any] | None:
        return self.doc.items(path)

    def set(self, path: Sequence[str], value: Any) -> int | None:
        created = self.doc.set(path, value)
        self.expected.set(path, value)
        return created

    def append(self, path: Sequence[str], value: Any) -> int | None:
        created = self.doc.append(path, value)
        self.expected.append(path, value)
        return created

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        self.doc.replace_item(path, index, value)
        self.expected.replace_item(path, index, value)

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        self.doc.remove(path, index, created)
        self.expected.remove(path, index, created)

    def empty(self) -> bool:
        return self.doc.empty()

    def dump(self) -> bytes:
        data = self.doc.dump()
        self.expected.check(self.path, data)
        return data


def load(fmt: str, data: bytes | None, path: Path) -> Checked:
    """The config at ``path`` (its bytes ``data``; None: absent), every edit checked."""
    return Checked(fmt, data, path)


def _is_inline(node: Any) -> bool:
    return type(node).__name__ == "InlineTable"


def _plain(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


def _resembles(item: Any, marker: Sequence[str]) -> bool:
    if not marker:
        return False
    text = json.dumps(item, ensure_ascii=False, default=str)
    return all(part in text for part in marker)


class _Changed(CofferError):
    """coffer's entry is no longer what coffer wrote."""


def _add(
    doc: _Doc, edit: ConfigEdit, previous: Mapping[str, Any] | None
) -> tuple[dict[str, Any] | None, bool]:
    """Make ``edit`` hold in ``doc``: the journal entry for it (None when the entry is not
    coffer's to remove later) and whether ``doc`` changed. Raises CofferError when a
    foreign entry is in the way."""
    keys = list(edit.keys)
    value = json.loads(json.dumps(edit.value))  # plain data, compared as JSON
    entry: dict[str, Any] = {
        "keys": keys,
        "value": value,
        "append": edit.append,
        "marker": list(edit.marker),
        "what": edit.what,
    }
    old = previous.get("value") if previous is not None else None
    if previous is not None:
        entry["created"] = previous.get("created", len(keys))
    if not edit.append:
        current = doc.get(keys)
        if current is MISSING:
            created = doc.set(keys, value)
            entry["created"] = len(keys) - 1 if created is None else created
            return entry, True
        if current == value:
            return (entry if previous is not None else None), False
        if previous is not None and current == old:
            doc.set(keys, value)
            return entry, True
        raise CofferError(
            f"{'.'.join(keys)} already holds something coffer did not write; left alone "
            "(remove it to let coffer register its own)"
        )
    items = doc.items(keys)
    if items is None:
        created = doc.append(keys, value)
        entry["created"] = len(keys) - 1 if created is None else created
        return entry, True
    if value in items:
        return (entry if previous is not None else None), False
    if previous is not None and old in items:
        doc.replace_item(keys, items.index(old), value)
        return entry, True
    if any(_resembles(i, edit.marker) for i in items):
        return None, False  # wired already, by hand or by an older coffer: left as it is
    doc.append(keys, value)
    entry.setdefault("created", len(keys))
    return entry, True


def _remove(doc: _Doc, entry: Mapping[str, Any]) -> bool:
    """Remove coffer's entry; False when it is already gone. Raises _Changed when someone
    changed it since coffer wrote it."""
    keys = list(entry["keys"])
    value = entry["value"]
    created = int(entry.get("created", len(keys)))
    try:
        if not entry.get("append"):
            current = doc.get(keys)
            if current is MISSING:
                return False
            if current != value:
                raise _Changed(f"{'.'.join(keys)} was changed since coffer wrote it")
            doc.remove(keys, None, created)
            return True
        items = doc.items(keys)
    except _Changed:
        raise
    except CofferError as exc:
        raise _Changed(str(exc)) from exc
    if items is None:
        return False
    if value in items:
        doc.remove(keys, items.index(value), created)
        return True
    if any(_resembles(i, entry.get("marker", ())) for i in items):
        raise _Changed(f"coffer's entry in {'.'.join(keys)} was edited since coffer wrote it")
    return False


def _eof(data: bytes | None) -> str:
    m = re.search(rb"\s*\Z", data or b"")
    return m.group().decode("ascii", "replace") if m else ""
