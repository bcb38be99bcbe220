"""The config documents ``coffer setup`` edits: JSON, JSONC and YAML spliced as text, TOML
through tomlkit (:mod:`coffer.setup.toml_doc`), each edit read back (:class:`Checked`), and
coffer's own entries added to and removed from them.

All expose one small interface (:class:`Doc`): get, set, append to a list, replace or remove
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
from coffer.setup.toml_doc import TomlDoc

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


def _decode(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CofferError(f"{path} is not UTF-8 ({exc}); coffer leaves it alone") from exc


def _load(fmt: str, data: bytes | None, path: Path) -> _Doc:
    if fmt == "toml":
        raw = data or b""
        return TomlDoc(raw, _decode(raw.removeprefix(_BOM), path), path)
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


def _resembles(item: Any, marker: Sequence[str]) -> bool:
    if not marker:
        return False
    text = json.dumps(item, ensure_ascii=False, default=str)
    return all(part in text for part in marker)


class EntryChanged(CofferError):
    """coffer's entry is no longer what coffer wrote."""


def add_edit(
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


def remove_edit(doc: _Doc, entry: Mapping[str, Any]) -> bool:
    """Remove coffer's entry; False when it is already gone. Raises EntryChanged when someone
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
                raise EntryChanged(f"{'.'.join(keys)} was changed since coffer wrote it")
            doc.remove(keys, None, created)
            return True
        items = doc.items(keys)
    except EntryChanged:
        raise
    except CofferError as exc:
        raise EntryChanged(str(exc)) from exc
    if items is None:
        return False
    if value in items:
        doc.remove(keys, items.index(value), created)
        return True
    if any(_resembles(i, entry.get("marker", ())) for i in items):
        raise EntryChanged(f"coffer's entry in {'.'.join(keys)} was edited since coffer wrote it")
    return False


def file_ending(data: bytes | None) -> str:
    """The whitespace ``data`` ends with (a TOML file's last blank lines): kept in the
    journal so undo gives the file back as it ended."""
    m = re.search(rb"\s*\Z", data or b"")
    return m.group().decode("ascii", "replace") if m else ""
