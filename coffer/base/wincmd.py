"""How cmd.exe is handed a path and read back (the seam's ``make_junction``): standard
library only, pure, so each rule is tested on any system.

cmd reads its command line in two phases. First ``%NAME%`` expands wherever it stands,
inside quotes too; then, outside quotes, ``^`` escapes the next character and ``&``, ``|``,
``<``, ``>``, ``(``, ``)`` act. A path is therefore never put in a quoted stretch: every
special character, the surrounding quotes included, is escaped with a caret (an escaped
quote reaches the program but starts no quoted stretch), and a ``%`` is followed by a
caret, which begins a variable name no variable has, so nothing expands, and is then
removed as an escape (an escaped character's own caret serves).
"""

from __future__ import annotations

import errno
import os

_SPECIAL = frozenset('^&|<>()!"')


def cmd_path(path: str | os.PathLike[str]) -> str:
    """``path`` in quotes, as cmd.exe hands it on to a built-in such as ``mklink``
    unchanged (``C:\\R&D``, ``C:\\100%``, ``C:\\Users\\Jürgen``). OSError for a character no
    Windows path holds and cmd cannot pass (``"``, a line break, NUL)."""
    text = os.fspath(path)
    if any(ch in text for ch in '"\r\n\0'):
        raise OSError(errno.EINVAL, "cmd.exe cannot be given this path intact", text)
    quoted = f'"{text}"'
    out = [f"^{ch}" if ch in _SPECIAL else ch for ch in quoted]
    for i, ch in enumerate(quoted):
        if ch == "%" and quoted[i + 1] not in _SPECIAL:  # never last: the quote follows
            out[i] = "%^"
    return "".join(out)


def oem_text(data: bytes) -> str:
    """What a cmd built-in wrote: in the console's OEM code page (cp850, cp936), not the
    ANSI one ``text=True`` decodes with, so a path with ``ü`` in it never crashes a read."""
    try:
        return data.decode("oem", "replace")
    except LookupError:  # the codec exists on Windows only
        return data.decode("utf-8", "replace")
