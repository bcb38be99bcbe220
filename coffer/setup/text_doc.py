"""A whole file that coffer owns, for ``coffer setup`` (a skill's ``SKILL.md``): the
document's one value is the file's text. Setting it writes the file; removing it (on undo)
deletes the file coffer created; a file that holds other text is someone else's and is left
alone (coffer.setup.config_docs.add_edit refuses it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from coffer.base.errors import CofferError
from coffer.setup.json_text import MISSING

if TYPE_CHECKING:
    from typing import Any


class TextDoc:
    """The text of one file, edited whole (the Doc interface of coffer.setup.config_docs)."""

    def __init__(self, text: str | None) -> None:
        self.text = text

    def get(self, path: Sequence[str]) -> Any:
        return MISSING if self.text is None else self.text

    def set(self, path: Sequence[str], value: Any) -> int | None:
        if not isinstance(value, str):
            raise CofferError("a whole-file entry must be text")
        self.text = value
        return None

    def remove(self, path: Sequence[str], index: int | None, created: int) -> None:
        self.text = None

    def items(self, path: Sequence[str]) -> list[Any] | None:
        raise CofferError("a whole file has no list to edit")

    def append(self, path: Sequence[str], value: Any) -> int | None:
        raise CofferError("a whole file has no list to edit")

    def replace_item(self, path: Sequence[str], index: int, value: Any) -> None:
        raise CofferError("a whole file has no list to edit")

    def empty(self) -> bool:
        return self.text is None

    def dump(self) -> bytes:
        return (self.text or "").encode("utf-8")


def load_doc(data: bytes | None, path: Any) -> TextDoc:
    if data is None:
        return TextDoc(None)
    try:
        return TextDoc(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CofferError(f"{path} is not UTF-8 ({exc}); coffer leaves it alone") from exc


__all__ = ["TextDoc", "load_doc"]
