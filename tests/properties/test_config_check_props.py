"""Issue 22 §3–§4 as properties (docs/adr/0041): for generated config files in the shapes
people write (TOML with dotted keys before and after top-level keys, inline tables, arrays of
tables, `[table]` sections holding dotted keys, comments, any key order; YAML whose keys are
quoted or not), `coffer setup` leaves the parsed document equal to the original plus coffer's
entry, or refuses and leaves the file untouched; and undo gives the original back, byte for
byte when the file is untouched, value for value after a hand edit elsewhere.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import yaml
from hypothesis import assume, given
from hypothesis import strategies as st

from coffer.projection.journal import Journal
from coffer.setup import unwiring, wiring
from tests.properties.budget import examples
from tests.properties.test_config_props import LAUNCH, _machine, loaded
from tests.setup.test_configs import strict_yaml

# ---- TOML -----------------------------------------------------------------------------------

_NAME = st.sampled_from(["github", "linear", "fs", "docs"])
_TOP = st.sampled_from(
    ["model", "approval_policy", "sandbox_mode", "model_provider", "notify", "profile"]
)
_SCALAR = st.one_of(
    st.sampled_from(['"gpt-5"', '"never"', '"workspace-write"', "true", "42", "'lit'"]),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=8).map(
        lambda s: json.dumps(s, ensure_ascii=False)
    ),
)
_ARRAY = st.lists(_SCALAR, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
_INLINE = st.lists(st.tuples(_TOP, _SCALAR), max_size=2, unique_by=lambda kv: kv[0]).map(
    lambda kvs: "{" + ", ".join(f"{k} = {v}" for k, v in kvs) + "}"
)
_VALUE = st.one_of(_SCALAR, _ARRAY, _INLINE)
_COMMENT = st.sampled_from(["", "  # mine", "  # keep this"])


@st.composite
def _statement(draw: st.DrawFn, prefix: str) -> str:
    """One key line: a plain key, or a dotted one (into MCP servers or elsewhere)."""
    kind = draw(st.integers(0, 4))
    if kind == 0:
        key = draw(_TOP)
    elif kind in (1, 2):
        key = f"{prefix}{draw(_NAME)}.{draw(st.sampled_from(['command', 'args', 'env']))}"
    elif kind == 3:
        key = f"{draw(_TOP)}.{draw(_TOP)}"
    else:
        key = f'"{draw(_TOP)} quoted"'
    return f"{key} = {draw(_VALUE)}{draw(_COMMENT)}"


@st.composite
def _section(draw: st.DrawFn) -> list[str]:
    kind = draw(st.integers(0, 3))
    if kind == 0:  # a server as its own table
        head = f"[mcp_servers.{draw(_NAME)}]"
        body = [f"command = {draw(_SCALAR)}", f"args = {draw(_ARRAY)}"]
    elif kind == 1:  # the servers' table, each server in dotted keys
        head = "[mcp_servers]"
        body = draw(st.lists(_statement(""), min_size=1, max_size=3))
    elif kind == 2:  # an array of tables
        head = f"[[{draw(st.sampled_from(['hooks.list', 'profiles_list']))}]]"
        body = draw(st.lists(_statement("x."), max_size=2))
    else:
        head = f"[{draw(st.sampled_from(['tui', 'features', 'history']))}]"
        body = draw(st.lists(_statement("y."), max_size=2))
    return ["", head + draw(_COMMENT), *body]


@st.composite
def toml_docs(draw: st.DrawFn) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append("# my Codex settings")
    lines += draw(st.lists(_statement("mcp_servers."), max_size=6))
    if draw(st.booleans()):
        lines.append(f"mcp_servers = {{ github = {{ command = {draw(_SCALAR)} }} }}")
    for section in draw(st.lists(_section(), max_size=3)):
        lines += section
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)
    return text


def _setup_or_refuse(store: Path, env: dict[str, str], agent: str) -> bool:
    plan = wiring.plan(store, env, loaded(), [agent], launch=LAUNCH)
    if not plan.report.ok:
        return False
    report = wiring.apply(Journal(store), plan)
    assert report.ok, report.problems
    return True


def _plus_coffer(before: Any, keys: tuple[str, str], after: Any) -> None:
    """``after`` is ``before`` with coffer's entry at ``keys`` and nothing else changed."""
    ours = after[keys[0]].pop(keys[1])
    assert ours and "mcp" in json.dumps(ours)
    if before.get(keys[0]) is None:  # absent, or a bare YAML `KEY:`
        assert after[keys[0]] in ({}, None)
        if keys[0] in before:
            after[keys[0]] = None
        else:
            del after[keys[0]]
    assert after == before


@examples(60)
@given(text=toml_docs())
def test_codex_setup_never_changes_what_other_toml_keys_mean(text: str) -> None:
    before = tomllib.loads(text)
    servers = before.get("mcp_servers", {})
    assume(isinstance(servers, dict) and "coffer" not in servers)
    with _machine() as (store, env):
        path = Path(env["HOME"]) / ".codex" / "config.toml"
        path.write_text(text, encoding="utf-8")
        assert _setup_or_refuse(store, env, "codex"), "refused a valid config.toml"
        _plus_coffer(before, ("mcp_servers", "coffer"), tomllib.loads(path.read_text()))
        assert unwiring.undo(Journal(store)).ok
        assert path.read_text(encoding="utf-8") == text
        # undone by removing coffer's entries only, after a hand edit elsewhere
        assert _setup_or_refuse(store, env, "codex")
        path.write_text("# by hand\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
        assert unwiring.undo(Journal(store)).ok
        assert tomllib.loads(path.read_text(encoding="utf-8")) == before


# ---- YAML -----------------------------------------------------------------------------------

_YKEY = st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True)


@st.composite
def yaml_docs(draw: st.DrawFn) -> str:
    quote = draw(st.sampled_from(["", '"', "'"]))
    servers = draw(st.dictionaries(_NAME, st.just({"command": "uvx", "args": ["x"]}), max_size=2))
    other = draw(st.dictionaries(_YKEY, st.one_of(st.integers(), _YKEY), max_size=3))
    other.pop("mcp_servers", None)
    lines = [f"{k}: {v}" for k, v in other.items()]
    if servers or draw(st.booleans()):
        block = yaml.safe_dump(servers, sort_keys=False) if servers else ""
        head = f"{quote}mcp_servers{quote}:"
        lines.insert(
            draw(st.integers(0, len(lines))),
            head + "\n" + "".join(f"  {ln}\n" for ln in block.splitlines()).rstrip("\n"),
        )
    text = "\n".join(lines) + "\n" if lines else ""
    return text


@examples(40)
@given(text=yaml_docs())
def test_hermes_setup_keeps_quoted_keys_single_and_values_unchanged(text: str) -> None:
    before = strict_yaml(text) or {}
    with _machine() as (store, env):
        path = Path(env["HOME"]) / ".hermes" / "config.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        env["HERMES_HOME"] = str(path.parent)
        assert _setup_or_refuse(store, env, "hermes"), "refused a block-style config.yaml"
        after = strict_yaml(path.read_text(encoding="utf-8"))  # a duplicate key fails here
        _plus_coffer(before, ("mcp_servers", "coffer"), after)
        assert unwiring.undo(Journal(store)).ok
        assert path.read_text(encoding="utf-8") == text
