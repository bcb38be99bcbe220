"""coffer.base.tuples.NamedTuple behaves as typing.NamedTuple does, where coffer relies on it.

Each check runs against both: a class built by the fast form and the same class built by
typing's, so a difference between them (on any Python CI runs) fails here, not somewhere a
journal record is read back.
"""

from __future__ import annotations

import copy
import pickle
import sys
import typing
from pathlib import Path

import pytest

from coffer.base import tuples

KINDS = pytest.mark.parametrize(
    "nt", [tuples.NamedTuple, typing.NamedTuple], ids=["fast", "typing"]
)


def _point(nt: typing.Any) -> typing.Any:
    class Point(nt):
        """A point."""

        x: int
        y: str | None = None
        tags: tuple[str, ...] = ()

        @property
        def both(self) -> str:
            return f"{self.x}{self.y}"

        def moved(self, by: int) -> Point:
            return self._replace(x=self.x + by)

    return Point


# A module-level class, for pickling (pickle finds the class by its qualified name).
class Pickled(tuples.NamedTuple):
    path: Path
    size: int = 0


@KINDS
def test_fields_defaults_and_construction(nt: typing.Any) -> None:
    P = _point(nt)
    assert P._fields == ("x", "y", "tags")
    assert P._field_defaults == {"y": None, "tags": ()}
    assert P.__match_args__ == ("x", "y", "tags")
    assert P(1) == (1, None, ())
    assert P(1, "a", ("t",)) == P(x=1, y="a", tags=("t",)) == P(1, tags=("t",), y="a")
    assert P.__doc__ == "A point."
    assert P.__name__ == "Point"
    assert isinstance(P(1), tuple)
    assert P.__new__.__defaults__ == (None, ())


@KINDS
def test_errors_match(nt: typing.Any) -> None:
    P = _point(nt)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        P()
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        P(1, z=2)
    with pytest.raises(TypeError, match="takes from 2 to 4 positional arguments but 5"):
        P(1, 2, 3, 4)
    with pytest.raises(
        (ValueError, TypeError), match=r"Got unexpected field names: \['z'\]"
    ) as bad:
        P(1)._replace(z=1)
    assert bad.type is (TypeError if sys.version_info >= (3, 13) else ValueError)
    with pytest.raises(TypeError, match="Expected 3 arguments, got 2"):
        P._make([1, 2])
    with pytest.raises(AttributeError):
        P(1).x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        P(1).other = 2  # no __dict__: __slots__ = ()


@KINDS
def test_methods_and_helpers(nt: typing.Any) -> None:
    P = _point(nt)
    p = P(1, "a")
    assert p.both == "1a"
    assert p.moved(2) == P(3, "a")
    assert type(p.moved(2)) is P
    assert p._asdict() == {"x": 1, "y": "a", "tags": ()}
    assert P._make([1, "a", ()]) == p
    assert repr(p) == "Point(x=1, y='a', tags=())"
    assert hash(p) == hash((1, "a", ()))
    assert copy.copy(p) == p and copy.deepcopy(p) == p
    x, y, tags = p
    assert (x, y, tags) == (1, "a", ())
    match p:
        case P(x=1, y=y_):
            assert y_ == "a"
        case _:
            pytest.fail("match by field failed")
    match p:
        case P(one, two, _):
            assert (one, two) == (1, "a")
        case _:
            pytest.fail("match by position failed")


@KINDS
def test_no_default_after_default_and_no_private_fields(nt: typing.Any) -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow"):

        class Bad(nt):
            a: int = 0
            b: int

    with pytest.raises((ValueError, TypeError), match="underscore"):

        class Private(nt):
            _a: int

    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _asdict"):

        class Overwrite(nt):
            a: int

            def _asdict(self) -> dict[str, int]:
                return {}


@KINDS
def test_subclass_and_mixin(nt: typing.Any) -> None:
    class Fields(nt):
        a: int
        b: int = 2

    class Mixin:
        __slots__ = ()

        def total(self: typing.Any) -> int:
            return int(self.a + self.b)

    class Record(Fields, Mixin):
        __slots__ = ()

    r = Record(1)
    assert r.total() == 3
    assert r == (1, 2)
    assert Record._fields == ("a", "b")
    assert type(r._replace(a=5)) is Record
    assert repr(r) == "Record(a=1, b=2)"


@KINDS
def test_zero_fields(nt: typing.Any) -> None:
    class Empty(nt):
        pass

    assert Empty() == ()
    assert Empty._fields == ()


def test_super_in_a_method() -> None:
    # typing's form cannot do this on 3.11 (the class cell is never set); the fast one can.
    class WithSuper(tuples.NamedTuple):
        a: int

        def __repr__(self) -> str:
            return "<" + super().__repr__() + ">"

    assert repr(WithSuper(1)) == "<WithSuper(a=1)>"


def test_pickle_round_trip() -> None:
    p = Pickled(Path("/x"), 3)
    assert pickle.loads(pickle.dumps(p)) == p
    assert type(pickle.loads(pickle.dumps(p))) is Pickled


def test_annotations_stay_strings_and_resolve() -> None:
    P = _point(tuples.NamedTuple)
    assert P.__annotations__ == {"x": "int", "y": "str | None", "tags": "tuple[str, ...]"}
    assert typing.get_type_hints(Pickled) == {"path": Path, "size": int}


def test_generic_and_functional_forms_are_typings() -> None:
    T = typing.TypeVar("T")

    class Box(tuples.NamedTuple, typing.Generic[T]):
        item: T

    assert Box(1).item == 1
    assert Box[int](2) == (2,)
    Pair = tuples.NamedTuple("Pair", [("a", int), ("b", str)])
    assert Pair(1, "x")._asdict() == {"a": 1, "b": "x"}


def test_parameters_are_named_after_the_fields() -> None:
    # One compiled body serves every class of an arity: its parameters carry this class's
    # names (keyword calls and error messages depend on them), and classes do not share them.
    class A(tuples.NamedTuple):
        left: int
        right: int

    class B(tuples.NamedTuple):
        up: int
        down: int

    assert A.__new__.__code__.co_varnames == ("_cls", "left", "right")
    assert B.__new__.__code__.co_varnames == ("_cls", "up", "down")
    assert A(right=1, left=2) == (2, 1) and B(down=1, up=2) == (2, 1)
    assert A.__new__.__qualname__ == "A.__new__"


def bodies_source(most: int = 24) -> str:
    """The body definitions of coffer/base/tuple_bodies.py (regenerate it from this)."""
    out = []
    for n in range(most + 1):
        params = "".join(f", _{i}" for i in range(n))
        items = ", ".join(f"_{i}" for i in range(n)) + ("," if n == 1 else "")
        sig = ", ".join(["Any"] * (n + 1))
        out.append(
            f"def _new{n}(_cls{params}):  # type: ({sig}) -> Any\n"
            f"    return _tuple_new(_cls, ({items}))\n"
        )
    table = ", ".join(f"{n}: _new{n}" for n in range(most + 1))
    return "\n".join(out) + f"\nBODIES: dict[int, Any] = {{{table}}}\n"


def test_the_written_out_bodies_are_the_generated_ones() -> None:
    from coffer.base import tuple_bodies

    text = Path(tuple_bodies.__file__).read_text()
    assert text.endswith(bodies_source())
    for n, body in tuple_bodies.BODIES.items():
        assert body(tuple, *range(n)) == tuple(range(n))
        assert body.__code__.co_argcount == n + 1


def test_wider_classes_than_the_written_bodies_still_work() -> None:
    from coffer.base.tuple_bodies import BODIES

    names = [f"f{i}" for i in range(max(BODIES) + 3)]
    ns: dict[str, typing.Any] = {"NamedTuple": tuples.NamedTuple}
    exec("class Wide(NamedTuple):\n" + "".join(f"    {n}: int\n" for n in names), ns)
    wide = ns["Wide"](*range(len(names)))
    assert wide == tuple(range(len(names)))
    assert wide._replace(f0=9).f0 == 9
    assert ns["Wide"].__new__.__code__.co_varnames[: len(names) + 1] == ("_cls", *names)
