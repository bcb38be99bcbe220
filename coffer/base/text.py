"""Checks on text that comes in from outside (arguments, stdin, MCP requests)."""

from __future__ import annotations

from coffer.base.errors import InvalidInputError


def check_utf8(*texts: str) -> None:
    """Refuse text that cannot be stored as UTF-8: bytes that were not UTF-8 (an argument
    or stdin in another encoding reaches Python as lone surrogates) or a lone surrogate
    sent as a JSON escape."""
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(text[exc.start])
            # surrogateescape maps an undecodable byte b to U+DC00 + b
            what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
            raise InvalidInputError(
                f"the text is not valid UTF-8 ({what} at character {exc.start + 1}); coffer "
                "stores UTF-8 text: convert it first (iconv -f LATIN1 -t UTF-8, for one)"
            ) from None
