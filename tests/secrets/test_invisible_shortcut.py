"""coffer.secrets: what the printing and scanning paths depend on."""

from __future__ import annotations


def test_the_ascii_shortcut_removes_what_the_full_class_removes() -> None:
    # visible() and the scan's check skip compiling the full character class for ASCII
    # text (docs/adr/0023); both must still agree with it.
    import re

    from coffer import secrets

    full = re.compile(secrets._INVISIBLE_CLASS)
    samples = [chr(c) for c in range(0x80)] + [
        "plain text",
        "tab\tnew\nline\r",
        "to\x00ken",
        "a\x7fb",
        "zero\u200bwidth",
        "bidi\u202eflip",
        "soft\u00adhyphen",
        "caf\u00e9 \x01",
        "\ud800lone",
    ]
    for text in samples:
        assert secrets._has_invisible(text) is bool(full.search(text)), repr(text)
        if text.isascii():
            assert secrets.visible(text) == full.sub("", text), repr(text)
