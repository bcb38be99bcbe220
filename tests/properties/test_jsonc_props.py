"""Properties of coffer's JSONC edits (coffer/setup/jsonc_text.py) and of `coffer setup` for the
spec adapters whose configs are JSONC (OpenCode, Zed) or a TOML array of tables (Mistral
Vibe): for generated documents with comments (line and block, on their own lines and after
values) and trailing commas, every byte of the original survives in order, every comment
survives whole, the result parses to the original plus coffer's entry, and undo gives the
original back — exactly when the file is untouched, and with the user's edit kept when the
user changed it meanwhile.
"""

from __future__ import annotations

import json
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from coffer.projection.journal import Journal
from coffer.setup import unwiring, wiring
from coffer.setup.jsonc_text import JsoncText, strip_jsonc
from tests.properties.budget import examples
from tests.properties.test_config_props import _JSON, _SAFE_TEXT, LAUNCH, loaded, toml_docs

_WORDS = _SAFE_TEXT.map(lambda s: s.replace("\r", " ").replace("\n", " ").replace("*/", "* /"))


@st.composite
def jsonc_docs(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str]]:
    """(text, its value, its comments): a JSON object laid out as people write JSONC, with
    comments on their own lines and after values, and some trailing commas."""
    obj: dict[str, Any] = draw(st.dictionaries(_SAFE_TEXT, _JSON, max_size=4))
    if draw(st.booleans()):
        obj["mcp"] = {"docs": {"type": "remote", "url": "https://x"}}
    indent = draw(st.sampled_from([2, 4, "\t"]))
    lines = json.dumps(obj, indent=indent, ensure_ascii=draw(st.booleans())).split("\n")
    out: list[str] = []
    comments: list[str] = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        pad = line[: len(line) - len(line.lstrip())]
        if draw(st.integers(0, 3)) == 0:
            c = draw(st.sampled_from(["// ", "/* "])) + draw(_WORDS)
            c += " */" if c.startswith("/*") else ""
            comments.append(c)
            out.append(pad + c)
        body = line
        closes = nxt[:1] in ("}", "]") and line.rstrip()[-1:] not in ("{", "[", ",")
        if closes and i > 0 and draw(st.booleans()):
            body += ","  # a trailing comma
        if draw(st.integers(0, 3)) == 0:
            c = draw(st.sampled_from(["// ", "/* "])) + draw(_WORDS)
            c += " */" if c.startswith("/*") else ""
            comments.append(c)
            body += " " + c
        out.append(body)
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    text = nl.join(out) + draw(st.sampled_from(["", nl]))
    return text, obj, comments


_ENTRY = {"type": "local", "command": ["/opt/coffer/bin/coffer", "mcp"], "enabled": True}
_GROUP = {"hooks": [{"type": "command", "command": "/opt/coffer/bin/coffer project --hook"}]}


def _kept(before: str, after: str, comments: list[str]) -> None:
    it = iter(after)
    assert all(ch in it for ch in before)  # splices only: every byte, in order
    for c in comments:
        assert c in after  # and every comment whole


@examples(60)
@given(doc=jsonc_docs())
def test_jsonc_strip_gives_the_value(doc: tuple[str, dict[str, Any], list[str]]) -> None:
    text, obj, _ = doc
    assert json.loads(strip_jsonc(text)) == obj
    assert len(strip_jsonc(text)) == len(text)


@examples(60)
@given(doc=jsonc_docs(), keys=st.sampled_from([("mcp", "coffer"), ("context_servers", "coffer")]))
def test_jsonc_set_keeps_every_comment_and_removing_gives_the_text_back(
    doc: tuple[str, dict[str, Any], list[str]], keys: tuple[str, str]
) -> None:
    text, obj, comments = doc
    assume(keys[0] not in obj or (isinstance(obj[keys[0]], dict) and "coffer" not in obj[keys[0]]))
    edited = JsoncText(text)
    created = edited.set(list(keys), _ENTRY)
    value = json.loads(strip_jsonc(edited.text))
    assert value[keys[0]]["coffer"] == _ENTRY
    del value[keys[0]]["coffer"]
    if keys[0] not in obj:
        assert value.pop(keys[0]) == {}
    assert value == obj
    _kept(text, edited.text, comments)
    edited.remove(list(keys), None, len(keys) - 1 if created is None else created)
    assert edited.text == text


@examples(60)
@given(doc=jsonc_docs())
def test_jsonc_append_keeps_every_comment_and_removing_gives_the_text_back(
    doc: tuple[str, dict[str, Any], list[str]],
) -> None:
    text, obj, comments = doc
    assume("hooks" not in obj)
    edited = JsoncText(text)
    created = edited.append(["hooks", "SessionStart"], _GROUP)
    assert json.loads(strip_jsonc(edited.text))["hooks"] == {"SessionStart": [_GROUP]}
    _kept(text, edited.text, comments)
    edited.remove(["hooks", "SessionStart"], 0, 1 if created is None else created)
    assert edited.text == text


# ---- through `coffer setup`: OpenCode and Zed (JSONC), Mistral Vibe (TOML) -------------------


@contextmanager
def _machine() -> Iterator[tuple[Path, dict[str, str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {"HOME": str(root / "home"), "XDG_CONFIG_HOME": str(root / "xdg"), "PATH": ""}
        yield root / "store", env


def _setup(store: Path, env: dict[str, str], agent: str) -> None:
    plan = wiring.plan(store, env, loaded(), [agent], launch=LAUNCH)
    assert plan.report.ok, plan.report.problems
    assert wiring.apply(Journal(store), plan).ok


def _undo(store: Path) -> None:
    assert unwiring.undo(Journal(store)).ok
    assert not list(Journal(store).records())


def _round_trip(agent: str, path: Path, store: Path, env: dict[str, str], data: bytes) -> None:
    """Setup, undo (exact); setup, a hand edit at the top, undo (coffer's entry only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _setup(store, env, agent)
    after = path.read_bytes()
    assert after != data
    _undo(store)
    assert path.read_bytes() == data
    _setup(store, env, agent)
    mark = b"// edited by hand\n" if path.suffix != ".toml" else b"# edited by hand\n"
    path.write_bytes(mark + path.read_bytes())
    _undo(store)
    assert path.read_bytes() == mark + data


@examples(25)
@given(doc=jsonc_docs(), agent=st.sampled_from(["opencode", "zed"]))
def test_setup_on_jsonc_undoes_exactly(
    doc: tuple[str, dict[str, Any], list[str]], agent: str
) -> None:
    text, obj, _ = doc
    key = "mcp" if agent == "opencode" else "context_servers"
    assume(not isinstance(obj.get(key), dict) or "coffer" not in obj[key])
    assume(key not in obj or isinstance(obj[key], dict))
    with _machine() as (store, env):
        name = "opencode/opencode.json" if agent == "opencode" else "zed/settings.json"
        _round_trip(agent, Path(env["XDG_CONFIG_HOME"]) / name, store, env, text.encode())


@examples(25)
@given(config=toml_docs())
def test_setup_on_vibe_toml_undoes_exactly(config: bytes) -> None:
    assume(b"mcp_servers" not in config)
    with _machine() as (store, env):
        path = Path(env["HOME"]) / ".vibe" / "config.toml"
        _round_trip("vibe", path, store, env, config)
        path.write_bytes(config)
        _setup(store, env, "vibe")
        servers = tomllib.loads(path.read_text())["mcp_servers"]
        assert [s["name"] for s in servers] == ["coffer"]
        _undo(store)
