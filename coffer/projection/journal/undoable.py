"""Which journal record objects can be undone as written (:func:`validate`): the fields each
kind's undo needs, and their types, checked on the JSON before a record is typed
(coffer/projection/journal/records.py), so a record that lacks one is reported as damaged
instead of being undone by guessing.
"""

from __future__ import annotations

# What each kind of record needs for its undo: (field, accepted types). A record without
# them cannot be undone as written, and coffer never fills a pre-image in by guessing.
_COMMON: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("key", (str,)),
    ("path", (str,)),
    ("kind", (str,)),
)
_ADAPTERS = ("adapters", (list,))
_BY_KIND: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {
    "block": (_ADAPTERS, ("before_sha256", (str, type(None)))),
    "team": (_ADAPTERS, ("before_sha256", (str, type(None)))),
    "symlink": (_ADAPTERS, ("link_target", (str,)), ("before", (str,))),
    "native": (_ADAPTERS, ("previous", (dict,))),
    "setup": (_ADAPTERS, ("edits", (list,)), ("before_sha256", (str, type(None)))),
    "service": (_ADAPTERS,),
    "git-lines": (("users", (dict,)), ("before_sha256", (str, type(None)))),
    "git-config": (("users", (dict,)), ("before_sha256", (str, type(None)))),
}
_OPTIONAL: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("adapters", (list,)),
    ("created_file", (bool,)),
    ("created_dirs", (list,)),
    ("after_sha256", (str, type(None))),
    ("tier", (str, type(None))),
    ("project_id", (str, type(None))),
)


def validate(record: object) -> str | None:
    """Why ``record`` cannot be undone as written, or None when it can."""
    if not isinstance(record, dict):
        return "not a JSON object"
    kind = record.get("kind")
    fields = _COMMON + _BY_KIND.get(kind if isinstance(kind, str) else "", ())
    for name, types in fields:
        if name not in record:
            return f"the field {name!r} is missing"
        if not isinstance(record[name], types):
            return f"the field {name!r} has the wrong type"
    for name, types in _OPTIONAL:
        if name in record and not isinstance(record[name], types):
            return f"the field {name!r} has the wrong type"
    if not all(isinstance(a, str) for a in record.get("adapters", [])):
        return "the field 'adapters' has the wrong type"
    return None
