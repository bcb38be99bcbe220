"""Every config edit read back (docs/adr/0041).

The text splicers (JSON, JSONC, YAML) and tomlkit each have their own idea of where a new
entry goes; a TOML file with dotted keys showed that "where" can change what the *other* keys
mean. So no edit is trusted: the original file and the edited one are both parsed with the
format's own strict parser (tomllib, json, PyYAML refusing duplicate keys), coffer's edits
are applied to the parsed original as plain data, and the two must be equal. Anything else
is refused before a byte is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from coffer.base.errors import CofferError
from coffer.setup.json_text import MISSING

if TYPE_CHECKING:
    from typing import Any

_BOM = b"\xef\xbb\xbf"


def parse(fmt: str, data: bytes | None) -> Any:
    """The plain value of a config file's bytes; CofferError when it does not parse."""
    raw = (data or b"").removeprefix(_BOM)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CofferError(f"not UTF-8 ({exc})") from exc
    if fmt == "text":
        return text if data is not None else MISSING
    if not text.strip():
        return {}
    try:
        if fmt == "toml":
            import tomllib

            return tomllib.loads(text)
        if fmt == "yaml":
            return _yaml(text)
        if fmt == "jsonc":
            from coffer.setup.jsonc_text import strip_jsonc

            text = strip_jsonc(text)
        return json.loads(text)
    except CofferError:
        raise
    except ValueError as exc:  # tomllib's and json's decode errors are ValueErrors
        raise CofferError(f"not valid {fmt.upper()} ({exc})") from exc


def _yaml(text: str) -> Any:
    """PyYAML's safe loader, but a duplicate key is an error, as in the YAML spec and in
    the agents' own parsers (Goose's serde_yaml); PyYAML alone lets the last one win."""
    import yaml

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> Any:
        seen: list[Any] = []
        for key_node, _ in node.value:
            k = loader.construct_object(key_node)
            if k in seen:
                raise CofferError(f"the key {k!r} appears twice in one mapping")
            seen.append(k)
        return loader.construct_mapping(node, deep=True)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        value = yaml.load(text, Strict)  # noqa: S506 - a SafeLoader subclass: safe
    except yaml.YAMLError as exc:
        raise CofferError(f"not valid YAML ({exc})".replace("\n", " ")) from exc
    return {} if value is None else value


class Expected:
    """The parsed original with coffer's edits applied as plain data: what the edited file
    must parse to. Mirrors the Doc interface's edits (coffer.setup.config_docs)."""

    def __init__(self, fmt: str, data: bytes | None) -> None:
        self.fmt = fmt
        self.value: Any = parse(fmt, data)

    def _node(self, path: Sequence[str], *, create: bool) -> Any:
        node = self.value
        for name in path:
            child = node.get(name) if isinstance(node, dict) else None
            if child is None and create:
                child = node[name] = {}  # a bare YAML `KEY:` (null) becomes the mapping
            node = child
        return node

    def set(self, path: Sequence[str], value: Any) -> None:
        if self.fmt == "text":
            self.value = value
            return
        self._node(path[:-1], create=True)[path[-1]] = _plain(value)

    def append(self, path: Sequence[str], value: Any) -> None:
        parent = self._node(path[:-1], create=True)
        parent.setdefault(path[-1], []).append(_plain(value))

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        self._node(path, create=False)[index] = _plain(value)

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        if self.fmt == "text":
            self.value = MISSING
            return
        if index is None:
            del self._node(path[:-1], create=False)[path[-1]]
            nodes = list(path[:-1])
        else:
            del self._node(path, create=False)[index]
            nodes = list(path)
        for depth in range(len(nodes) - 1, -1, -1):  # deepest first, while empty
            holder = self._node(nodes[:depth], create=False)
            if holder[nodes[depth]]:
                return
            if depth >= created:
                del holder[nodes[depth]]  # a container coffer made, left empty
            elif self.fmt == "yaml":
                holder[nodes[depth]] = None  # YAML gets its bare `KEY:` line back
                return
            else:
                return

    def check(self, path: object, data: bytes | None, *, what: str = "edit") -> None:
        """Refuse (CofferError) unless ``data`` parses to exactly the expected document."""
        if self.fmt == "text" and self.value is MISSING:
            return  # a whole file coffer owns, removed: nothing of it is left to compare
        try:
            got = parse(self.fmt, data)
        except CofferError as exc:
            raise CofferError(
                f"{path}: coffer's {what} would leave the file unreadable ({exc}); the file "
                "was left as it is"
            ) from exc
        if _same(got, self.value):
            return
        raise CofferError(
            f"{path}: coffer's {what} would change settings that are not coffer's "
            f"({_difference(self.value, got)}); the file was left as it is (please report "
            "this file's layout to coffer)"
        )


def read_back(fmt: str, data: bytes | None, new: bytes, edit: Any, where: str) -> bytes:
    """``new``, once it parses to ``data`` with only ``edit(expected)`` made; CofferError
    otherwise. For the byte-level edits adapters make themselves (an agent's own memory
    switch), which do not go through a :class:`Expected`-checked document."""
    expected = Expected(fmt, data)
    edit(expected)
    expected.check(where, new, what="memory switch")
    return new


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _same(a: Any, b: Any) -> bool:
    """Equal as parsed data; a NaN equals a NaN (``x = nan`` must not look changed)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(type(a) is type(b) and a == b)


def _difference(want: Any, got: Any, where: str = "") -> str:
    """The first key whose value differs, for the message."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in [*want, *(k for k in got if k not in want)]:
            name = f"{where}.{k}" if where else str(k)
            if k not in got:
                return f"{name} would be lost or moved"
            if k not in want:
                return f"{name} would appear"
            if not _same(want[k], got[k]):
                return _difference(want[k], got[k], name)
    return f"{where or 'the document'} would change"


__all__ = ["Expected", "parse", "read_back"]
