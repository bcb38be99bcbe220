"""Properties of coffer's YAML edits (coffer/setup/yaml_text.py, `coffer setup` for Hermes
Agent and Goose): for generated block-style YAML with comments on their own lines and after
values, adding coffer's member keeps every byte and every comment of the original, parses to
the original plus that member, and removing it gives the original text back."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import assume, given
from hypothesis import strategies as st

from coffer.setup.yaml_text import YamlText
from tests.properties.budget import examples

_KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 10**6),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=12),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, min_size=1, max_size=3)
    ),
    max_leaves=6,
)
_WORDS = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12
)
_ENTRY = {"command": "/opt/coffer/bin/coffer", "args": ["mcp"], "env": {"ECC_MEMORY_HARNESS": "x"}}


@st.composite
def yaml_docs(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str]]:
    obj: dict[str, Any] = draw(st.dictionaries(_KEYS, _VALUES, max_size=4))
    if draw(st.booleans()):
        obj["mcp_servers"] = draw(
            st.dictionaries(
                st.sampled_from(["time", "github", "fs"]),
                st.fixed_dictionaries({"command": st.just("uvx"), "args": st.just(["x"])}),
                min_size=1,
                max_size=2,
            )
        )
    indent = draw(st.sampled_from([2, 4]))
    text = yaml.safe_dump(obj, sort_keys=False, indent=indent, allow_unicode=True, width=10**6)
    text = "" if not obj else text  # block style only: `{}` is a flow mapping
    out, comments = [], []
    for line in text.splitlines():
        if draw(st.integers(0, 3)) == 0:
            c = "# " + draw(_WORDS)
            comments.append(c)
            out.append(line[: len(line) - len(line.lstrip())] + c)
        scalar_end = not line.rstrip().endswith(":") and not line.lstrip().startswith("- ")
        if scalar_end and draw(st.integers(0, 3)) == 0:
            c = "# " + draw(_WORDS)
            comments.append(c)
            line += "  " + c
        out.append(line)
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    doc = nl.join(out) + draw(st.sampled_from(["", nl]))
    try:
        parsed = yaml.safe_load(doc)
    except yaml.YAMLError:
        assume(False)
    assume((parsed or {}) == obj)  # a comment that changed a value is not a comment
    return doc, obj, comments


@examples(80)
@given(doc=yaml_docs())
def test_yaml_member_keeps_every_comment_and_removing_gives_the_text_back(
    doc: tuple[str, dict[str, Any], list[str]],
) -> None:
    text, obj, comments = doc
    assume(obj.get("mcp_servers") is None or isinstance(obj["mcp_servers"], dict))
    assume("coffer" not in (obj.get("mcp_servers") or {}))
    edited = YamlText(text)
    created = edited.set(["mcp_servers", "coffer"], _ENTRY)
    value = yaml.safe_load(edited.text)
    assert value["mcp_servers"]["coffer"] == _ENTRY
    it = iter(edited.text)
    assert all(ch in it for ch in text)  # splices only
    for c in comments:
        assert c in edited.text
    edited.remove(["mcp_servers", "coffer"], None, 1 if created is None else created)
    ends_open = bool(text) and not text.endswith("\n")
    assert edited.text == text or (ends_open and edited.text.rstrip("\r\n") == text)


def test_a_flow_style_document_is_refused_unchanged() -> None:
    import pytest

    from coffer.base.errors import CofferError

    doc = YamlText("{model: x}\n")
    with pytest.raises(CofferError, match="could not edit this YAML"):
        doc.set(["mcp_servers", "coffer"], _ENTRY)
    assert doc.text == "{model: x}\n"
