"""Properties of the journal's one record shape (coffer/projection/journal/records.py).

For any kind, known or not, any subset of that kind's fields present in its file, and any
keys coffer does not keep for it, a record read from the JSON is written back as that JSON,
and a change with ``but`` writes back exactly that change on top of it (docs/adr/0024). The
one key left out is a field the kind writes only once set (``Shape.optional``) that holds its
default: the writers that made it optional never wrote it so.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from coffer.projection.journal import SHAPES, JournalRecord, parse, validate
from tests.properties.budget import examples

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
# A value of each field's type, as a record file holds it (lists for tuples).
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "tier": st.none() | st.sampled_from(["global", "project"]),
    "project_id": st.none() | st.text(max_size=6),
    "adapters": st.lists(st.text(max_size=6), max_size=3),
    "created_file": st.booleans(),
    "created_dirs": st.lists(st.text(max_size=6), max_size=2),
    "before_sha256": st.none() | st.text(max_size=8),
    "before_mtime_ns": st.none() | st.integers(min_value=0),
    "after_sha256": st.none() | st.text(max_size=8),
    "created_at": st.none() | st.text(max_size=8),
    "updated_at": st.none() | st.text(max_size=8),
    "seq": st.integers(min_value=0),
    "link": st.none()
    | st.dictionaries(st.sampled_from(["readlink", "target"]), st.text(max_size=5)),
    "git": st.none()
    | st.fixed_dictionaries(
        {},
        optional={
            "how": st.sampled_from(["exclude", "filter", "none"]),
            "commit": st.booleans(),
            "top": st.text(max_size=5),
            "later": _JSONISH,  # a key a newer coffer added
        },
    ),
    "users": st.dictionaries(st.text(max_size=5), st.lists(st.text(max_size=5), max_size=2)),
    "added": st.lists(st.text(max_size=6), max_size=2),
    "link_target": st.text(max_size=6),
    "before": st.sampled_from(["absent", "dir", "unknown"]),
    "backup": st.none() | st.text(max_size=6),
    "modes": st.none() | st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    "rest": st.none() | st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
    "restoring": st.none() | st.booleans(),
    "previous": st.dictionaries(st.text(max_size=5), _JSONISH, max_size=3),
    "format": st.sampled_from(["json", "toml", "yaml"]),
    "edits": st.lists(st.dictionaries(st.text(max_size=4), _JSONISH, max_size=2), max_size=2),
    "exact": st.booleans(),
    "eof": st.none() | st.text(max_size=3),
    "manager": st.sampled_from(["systemd", "launchd"]),
    "service": st.text(max_size=6),
}
_KINDS = st.sampled_from([*SHAPES, "something-newer"])


@st.composite
def _raw_records(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(_KINDS)
    raw: dict[str, Any] = {"kind": kind, "key": draw(st.text(max_size=8)), "path": "/p"}
    for name in sorted(set(_VALUES) - {"kind", "key", "path"}):
        if draw(st.booleans()):
            raw[name] = draw(_VALUES[name])
    unknown = draw(st.dictionaries(st.text(min_size=1, max_size=6), _JSONISH, max_size=2))
    return {**{k: v for k, v in unknown.items() if k not in JournalRecord._fields}, **raw}


def _as_written(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` as coffer writes it: without an optional field that holds its default."""
    shape = SHAPES.get(raw["kind"])
    if shape is None:
        return raw
    read = parse(raw)
    return {
        k: v
        for k, v in raw.items()
        if not (k in shape.optional and getattr(read, k) == shape.default(k))
    }


@examples(150)
@given(_raw_records())
def test_a_record_is_written_back_as_it_was_read(raw: dict[str, Any]) -> None:
    assert parse(raw).to_json() == _as_written(raw)


@examples(150)
@given(_raw_records(), st.sampled_from(sorted(_VALUES)), st.data())
def test_a_change_writes_back_that_change_alone(
    raw: dict[str, Any], name: str, data: st.DataObject
) -> None:
    record = parse(raw)
    shape = SHAPES.get(raw["kind"])
    kept = shape is not None and name in shape.fields
    value = parse({**raw, name: data.draw(_VALUES[name])})
    changed = record.but(**{name: getattr(value, name)}) if kept else record
    expected = _as_written({**raw, name: value.to_json().get(name)} if kept else raw)
    assert changed.to_json() == expected
    if validate(raw) is None:  # what the journal would accept stays accepted
        assert validate(changed.to_json()) is None
