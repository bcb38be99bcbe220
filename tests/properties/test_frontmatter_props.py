"""Where coffer.store.frontmatter.simple answers, it answers what coffer's YAML loader does."""

from __future__ import annotations

import operator

import yaml
from hypothesis import given
from hypothesis import strategies as st

from coffer.store import entry
from coffer.store.frontmatter import simple
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
