"""Codex's own memory switch, ``[features] memories`` in ``config.toml``, as pure byte
transformations (coffer.adapter.NativeMemory): turned off with a comment saying who did it,
and put back exactly, with every other byte of the file kept. Codex reads only that key;
coffer never invents others (like ``[memories] enabled``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from coffer.base.errors import CofferError

if TYPE_CHECKING:
    from typing import Any

_COMMENT = "turned off by coffer; `coffer unproject --agent codex` restores it"


def _doc(data: bytes | None) -> Any:
    import tomlkit  # only when a config exists: not on the no-op path

    try:
        return tomlkit.parse((data or b"").decode("utf-8"))
    except Exception as exc:  # tomlkit raises several unrelated types
        raise CofferError(f"Codex's config.toml is not valid TOML ({exc}); fix it first") from exc


def _memories_on(doc: Any) -> bool:
    features = doc.get("features")
    if not hasattr(features, "get") or features.get("memories") is not True:
        return False
    # On in name only when neither injected nor generated.
    mem = doc.get("memories")
    return not (
        hasattr(mem, "get")
        and mem.get("use_memories") is False
        and mem.get("generate_memories") is False
    )


def enabled(data: bytes | None) -> bool:
    return data is not None and b"memories" in data and _memories_on(_doc(data))


def disable(data: bytes | None) -> tuple[bytes, dict[str, Any]]:
    import tomlkit

    doc = _doc(data)
    features = doc.get("features")
    previous: dict[str, Any] = {
        "features.memories": features.get("memories") if hasattr(features, "get") else None,
        "features_table_existed": features is not None,
    }
    if features is None:
        table = tomlkit.table()
        table.add("memories", _bool(False, None, comment=True))
        doc.add("features", table)
    else:
        features["memories"] = _bool(False, _trivia(features, "memories"), comment=True)
    text, out = (data or b"").decode("utf-8"), _dumps(doc, data)
    if out.startswith(text):
        # Added at the very end: tomlkit first ends the last line or adds a blank one, and
        # deleting what coffer added leaves that behind; restore takes it away too.
        tail = out[len(text) :]
        separator = tail[: len(tail) - len(tail.lstrip("\r\n"))]
        if separator:
            previous["separator"] = separator
            previous["last_line"] = text.rsplit("\n", 1)[-1]
    return _read_back(data, out, lambda e: e.set(_KEY, False)), previous


_KEY = ("features", "memories")


def _read_back(data: bytes | None, out: str, edit: Any) -> bytes:
    """``out``, once it parses to ``data`` with only ``edit`` made (docs/adr/0041)."""
    from coffer.setup.config_check import read_back

    return read_back("toml", data, out.encode("utf-8"), edit, "Codex's config.toml")


def _trivia(table: Any, key: str) -> Any:
    # The existing item's whitespace and comment, so only the value token changes.
    try:
        return table.item(key).trivia
    except (KeyError, AttributeError):
        return None


def _bool(value: bool, trivia: Any, *, comment: bool = False) -> Any:
    import tomlkit
    from tomlkit.items import Bool

    if trivia is not None:
        return Bool(value, trivia)
    item = tomlkit.item(value)
    if comment:
        item.comment(_COMMENT)
    return item


def restore(data: bytes | None, previous: Mapping[str, Any]) -> bytes:
    doc = _doc(data)
    features = doc.get("features")
    current = features.get("memories") if hasattr(features, "get") else None
    before = previous.get("features.memories")
    if current == before:
        return data or b""
    if current is not False:
        raise CofferError(
            f"[features] memories is now {current!r}, not the false coffer set; "
            "someone changed it since, so coffer leaves it"
        )
    if before is None:
        del features["memories"]
        if not previous.get("features_table_existed", True) and len(features) == 0:
            del doc["features"]
        out = _dumps(doc, data)
        separator = str(previous.get("separator", ""))
        # Only while the file still ends as coffer left it: a line typed below stays whole.
        if separator and out.endswith(str(previous.get("last_line", "")) + separator):
            out = out[: -len(separator)]
        created = 1 if previous.get("features_table_existed", True) else 0
        return _read_back(data, out, lambda e: e.remove(_KEY, None, created))
    features["memories"] = _bool(bool(before), _trivia(features, "memories"))
    return _read_back(data, _dumps(doc, data), lambda e: e.set(_KEY, bool(before)))


def _dumps(doc: Any, data: bytes | None) -> str:
    import tomlkit

    from coffer.setup.toml_doc import match_line_breaks

    return match_line_breaks(data, tomlkit.dumps(doc))
