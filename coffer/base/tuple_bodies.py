"""``__new__`` bodies for coffer.base.tuples, one per number of fields, written out.

Each is ``tuple.__new__(cls, (fields...))`` with positional parameters ``_0``, ``_1``, …;
tuples.py gives a class a copy whose parameters carry its field names. Written out rather
than generated with ``exec`` so that defining a class compiles nothing: a process's first
``compile()`` costs about 7 million instructions (docs/adr/0038). A class with more fields
gets its body from ``exec``. Generated (tests/test_tuples.py holds this file to the text
``bodies_source()`` there gives): one line per body, so neither the formatter nor the
line length applies (pyproject.toml).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays unimported at run time (docs/adr/0039)
if TYPE_CHECKING:
    from typing import Any


_tuple_new = tuple.__new__

def _new0(_cls):  # type: (Any) -> Any
    return _tuple_new(_cls, ())

def _new1(_cls, _0):  # type: (Any, Any) -> Any
    return _tuple_new(_cls, (_0,))

def _new2(_cls, _0, _1):  # type: (Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1))

def _new3(_cls, _0, _1, _2):  # type: (Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2))

def _new4(_cls, _0, _1, _2, _3):  # type: (Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3))

def _new5(_cls, _0, _1, _2, _3, _4):  # type: (Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4))

def _new6(_cls, _0, _1, _2, _3, _4, _5):  # type: (Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5))

def _new7(_cls, _0, _1, _2, _3, _4, _5, _6):  # type: (Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6))

def _new8(_cls, _0, _1, _2, _3, _4, _5, _6, _7):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7))

def _new9(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8))

def _new10(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9))

def _new11(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10))

def _new12(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11))

def _new13(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12))

def _new14(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13))

def _new15(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14))

def _new16(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15))

def _new17(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16))

def _new18(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17))

def _new19(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18))

def _new20(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19))

def _new21(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20))

def _new22(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21))

def _new23(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22))

def _new24(_cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23):  # type: (Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any) -> Any
    return _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23))

BODIES: dict[int, Any] = {0: _new0, 1: _new1, 2: _new2, 3: _new3, 4: _new4, 5: _new5, 6: _new6, 7: _new7, 8: _new8, 9: _new9, 10: _new10, 11: _new11, 12: _new12, 13: _new13, 14: _new14, 15: _new15, 16: _new16, 17: _new17, 18: _new18, 19: _new19, 20: _new20, 21: _new21, 22: _new22, 23: _new23, 24: _new24}
