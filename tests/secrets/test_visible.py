"""coffer.secrets: the characters nobody sees, which the printing and scanning paths drop."""

from __future__ import annotations

import pytest

from coffer import secrets

# In ASCII: every control but TAB, LF and CR, and DEL.
_ASCII_UNSEEN = {*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F}


@pytest.mark.parametrize("code", range(0x80))
def test_each_ascii_character_is_kept_unless_nobody_sees_it(code: int) -> None:
    text = f"a{chr(code)}b"
    unseen = code in _ASCII_UNSEEN
    assert secrets._has_invisible(text) is unseen
    assert secrets.visible(text) == ("ab" if unseen else text)


@pytest.mark.parametrize(
    ("text", "shown", "in_class"),
    [
        ("plain text", "plain text", False),
        ("tab\tnew\nline\r", "tab\tnew\nline\r", False),
        ("to\x00ken", "token", True),
        ("zero\u200bwidth", "zerowidth", True),
        ("bidi\u202eflip", "bidiflip", True),
        ("soft\u00adhyphen", "softhyphen", True),
        ("caf\u00e9 \x01", "caf\u00e9 ", True),
        ("\ud800lone", "lone", True),
        # A format character (Cf) outside the class: the scan does not look again for it,
        # the printed text drops it all the same.
        ("tag\U000e0041s", "tags", False),
    ],
)
def test_visible_drops_controls_format_characters_and_surrogates(
    text: str, shown: str, in_class: bool
) -> None:
    assert secrets.visible(text) == shown
    assert secrets._has_invisible(text) is in_class
