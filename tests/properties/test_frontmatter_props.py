"""Where coffer.store.frontmatter.simple answers, it answers what coffer's YAML loader does."""

from __future__ import annotations

import operator

import yaml
from hypothesis import given
from hypothesis import strategies as st

from coffer.store import entry
from coffer.store.frontmatter import dumped, simple
from tests.properties.budget import examples

# Characters that decide YAML's reading: indicators, quotes, comment and mapping marks,
# digits, signs, dots, letters of the boolean words, spaces, tabs, non-ASCII, controls.
_CHARS = st.one_of(
    st.sampled_from(list("-?:,[]{}#&*!|>'\"%@` .+_0123456789eExXbonyftNTFYO~<=abc")),
    st.characters(codec="utf-8"),
)
_PLAIN = st.builds(
    operator.add,
    st.sampled_from(list("abzABZé中😀019.-'")),
    st.text(st.sampled_from(list("abcdefz ABZ019_.-+:#'/()é中😀")), max_size=14),
)
_VALUES = st.one_of(
    *[_PLAIN] * 6,
    st.text(_CHARS, max_size=12),
    st.sampled_from(["yes", "No", "null", "~", "1_000", "0o7", "01ABC", "1:20", ".inf", "-.5"]),
    st.text(_CHARS, max_size=8).map(lambda t: "'" + t + "'"),
)
_GOOD_KEYS = st.sampled_from(["name", "description", "type", "id", "x-y", "_k", "Name", "a1"])
_KEYS = st.one_of(
    *[_GOOD_KEYS] * 6,
    st.sampled_from(["on", "null", "1", "<<", "é"]),
    st.text(_CHARS, min_size=1, max_size=6),
)
# Mostly well-formed (so the fast path answers often); the rest probes where it must not.
_SEP = st.sampled_from([": "] * 12 + [":", ":  ", ": \t"])
_SCALAR = st.tuples(_KEYS, _SEP, _VALUES)
_NESTED = st.tuples(_KEYS, st.lists(_SCALAR, max_size=4))
_NOISY = st.lists(st.one_of(_SCALAR, _SCALAR, _NESTED), max_size=6)
# Well-formed but for the values: the fast path answers for most of these.
_NAMES = st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True)
_CLEAN = st.tuples(_NAMES, st.just(": "), st.one_of(_PLAIN, _VALUES))
_WELL = st.lists(
    st.one_of(_CLEAN, st.tuples(_NAMES, st.lists(_CLEAN, min_size=1, max_size=4))), max_size=5
)
_ITEMS = st.one_of(_WELL, _NOISY)


def _front(items: list[tuple[str, str, str] | tuple[str, list[tuple[str, str, str]]]]) -> str:
    out = []
    for item in items:
        if len(item) == 3:
            out.append("{}{}{}\n".format(*item))
        else:
            out.append(f"{item[0]}:\n")
            out += ["  {}{}{}\n".format(*line) for line in item[1]]
    return "".join(out)


@examples(300)
@given(_ITEMS)
def test_simple_agrees_with_the_yaml_loader(items: list) -> None:  # type: ignore[type-arg]
    front = _front(items)
    fast = simple(front)
    if fast is None:
        return
    loaded = yaml.load(front, Loader=entry._loader())
    assert fast == loaded


# Values a write puts in frontmatter: text of every shape, coffer's timestamps and ids,
# numbers and words YAML would read as another type, booleans and integers.
_STAMPS = st.builds(
    "{}-{:02}-{:02}{}{:02}:{:02}:{:02}{}".format,
    st.integers(1000, 9999),
    *(st.integers(0, 99),) * 2,
    st.sampled_from(["T", "t", " ", "  "]),
    *(st.integers(0, 99),) * 3,
    st.sampled_from(["", "Z", "+00:00", "-5", " Z", ".25+01:00"]),
)
_WRITTEN = st.one_of(
    _PLAIN,
    _VALUES,
    _STAMPS,
    *[st.text(st.sampled_from(list("aZ09 _.,;:/()+'!?%&*=~^$#-")), max_size=12)] * 3,
    st.sampled_from(["yes", "Off", "null", "0b1", "1_0", "1:20", "1.5e+3", "01ABC", "0x_"]),
    st.booleans(),
    st.integers(),
)
_DICTS = st.one_of(
    st.dictionaries(
        _KEYS, st.one_of(_WRITTEN, st.dictionaries(_KEYS, _WRITTEN, max_size=4)), max_size=5
    ),
    # Keys it takes and values near its edges: here it answers often.
    st.dictionaries(
        _NAMES,
        st.one_of(_WRITTEN, st.dictionaries(_NAMES, _WRITTEN, min_size=1, max_size=4)),
        max_size=3,
    ),
)


@examples(300)
@given(_DICTS)
def test_dumped_agrees_with_the_yaml_dumper(front: dict) -> None:  # type: ignore[type-arg]
    fast = dumped(front)
    if fast is None:
        return
    assert fast == yaml.safe_dump(
        front, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )
