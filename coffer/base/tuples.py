"""``typing.NamedTuple``, built for less at import time (docs/adr/0023).

Every coffer command defines sixty-odd NamedTuple classes before it does any work, and
``typing.NamedTuple`` spends about 250 µs on each at a cold start: it compiles every field's
annotation (a string here, under ``from __future__ import annotations``) into a
``ForwardRef`` that nothing reads, and ``collections.namedtuple`` then compiles a fresh
``__new__`` from source. That was 16 ms of a 75 ms ``coffer adapter list``. This class
statement form keeps what coffer uses of a NamedTuple (a tuple subclass with named fields,
defaults, keyword arguments, ``_fields``, ``_field_defaults``, ``_asdict``, ``_replace``,
``_make``, the same ``repr``, equality, hashing, pickling and ``match``) and skips both
compilations: annotations stay the strings they are, and ``__new__`` reuses one compiled
body per number of fields, with the parameters renamed.

Type checkers see ``typing.NamedTuple`` itself (the ``TYPE_CHECKING`` branch), so a class
declared with this one is checked exactly as before. Anything the fast form does not cover
(the functional ``NamedTuple("T", [...])`` form, ``Generic`` bases) is handed to
``typing.NamedTuple`` unchanged. tests/test_tuples.py holds the two side by side.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays unimported at run time (docs/adr/0039)


if TYPE_CHECKING:
    from typing import Any
    from typing import NamedTuple as NamedTuple
else:
    import sys
    from collections import _tuplegetter  # the C accessor collections.namedtuple uses

    from coffer.base.tuple_bodies import BODIES

    _tuple_new = tuple.__new__
    # what ``_replace`` raises for a name that is not a field (ValueError before 3.13)
    _BAD_NAME = TypeError if sys.version_info >= (3, 13) else ValueError
    _BODIES: dict[int, Any] = dict(BODIES)  # written out up to 24 fields (tuple_bodies.py)
    # names a class body may not define (as typing.NamedTuple refuses them) or that the
    # fast form sets itself
    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        }
    )
    _OWN = frozenset({"__annotations__", "__annotate__", "__orig_bases__"})

    def _body(arity: int) -> Any:
        """``def __new__(_cls, _0, _1, ...): return tuple.__new__(_cls, (_0, _1, ...))``,
        one per arity (compiled here only past tuple_bodies.py's); a class gets a copy
        with its field names."""
        body = _BODIES.get(arity)
        if body is None:
            params = "".join(f", _{i}" for i in range(arity))
            items = "".join(f"_{i}, " for i in range(arity))
            ns: dict[str, Any] = {"_tuple_new": _tuple_new}
            exec(  # noqa: S102 - fixed text built from an int, never from input
                f"def __new__(_cls{params}):\n    return _tuple_new(_cls, ({items}))\n", ns
            )
            body = _BODIES[arity] = ns["__new__"]
        return body

    def _new(typename: str, fields: tuple[str, ...], defaults: tuple[Any, ...]) -> Any:
        body = _body(len(fields))
        code = body.__code__.replace(
            co_varnames=("_cls", *fields), co_name="__new__", co_qualname=f"{typename}.__new__"
        )
        new = type(body)(code, body.__globals__, "__new__", defaults or None)
        new.__qualname__ = f"{typename}.__new__"
        new.__doc__ = f"Create new instance of {typename}({', '.join(fields)})"
        return new

    class _Base(tuple):
        """What collections.namedtuple defines per class, defined once."""

        __slots__ = ()
        _fields = ()  # unannotated: typing.get_type_hints would report it as a field

        @classmethod
        def _make(cls, iterable: Any) -> Any:
            result = _tuple_new(cls, iterable)
            if len(result) != len(cls._fields):
                raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
            return result

        def _replace(self, /, **kwds: Any) -> Any:
            result = self._make(map(kwds.pop, self._fields, self))
            if kwds:
                raise _BAD_NAME(f"Got unexpected field names: {list(kwds)!r}")
            return result

        def __repr__(self) -> str:
            pairs = ", ".join(f"{n}={v!r}" for n, v in zip(self._fields, self, strict=True))
            return f"{self.__class__.__name__}({pairs})"

        def _asdict(self) -> dict[str, Any]:
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self) -> tuple[Any, ...]:
            return tuple(self)

    def _annotations(ns: dict[str, Any]) -> dict[str, Any]:
        if "__annotations__" in ns:
            return dict(ns["__annotations__"])
        annotate = ns.get("__annotate__")  # Python 3.14: annotations are built on demand
        return dict(annotate(2)) if callable(annotate) else {}  # 2: FORWARDREF, no evaluation

    class _Meta(type):
        def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
            if bases != (_Marker,):
                import typing  # Generic and other bases: typing's own machinery

                return typing.NamedTupleMeta(
                    typename,
                    tuple(typing._NamedTuple if b is _Marker else b for b in bases),
                    ns,
                )
            types = _annotations(ns)
            fields = tuple(types)
            defaulted: list[str] = []
            for name in fields:
                if name.startswith("_"):
                    raise ValueError(f"Field names cannot start with an underscore: {name!r}")
                if name in ns:
                    defaulted.append(name)
                elif defaulted:
                    raise TypeError(
                        f"Non-default namedtuple field {name} cannot follow default field"
                        f"{'s' if len(defaulted) > 1 else ''} {', '.join(defaulted)}"
                    )
            defaults = tuple(ns[n] for n in defaulted)
            body: dict[str, Any] = {}
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in fields and key not in _OWN:
                    body[key] = value
            body.setdefault("__doc__", f"{typename}({', '.join(fields)})")
            body.update(
                __slots__=(),
                _fields=fields,
                _field_defaults={n: ns[n] for n in defaulted},
                __new__=_new(typename, fields, defaults),
                __match_args__=fields,
                __annotations__=types,
            )
            for i, name in enumerate(fields):
                body[name] = _tuplegetter(i, f"Alias for field number {i}")
            return type(typename, (_Base,), body)

    _Marker = type.__new__(_Meta, "NamedTuple", (), {})

    def NamedTuple(typename: str, fields: Any = None, /, **kwargs: Any) -> Any:
        """The functional form, ``NamedTuple("T", [("a", int)])``: typing's own."""
        import typing

        return typing.NamedTuple(typename, fields, **kwargs)

    NamedTuple.__mro_entries__ = lambda bases: (_Marker,)
