"""Properties of the config edits coffer makes in files users own: ``coffer setup`` (JSON spliced
as text by coffer/setup/json_text.py, TOML through tomlkit in coffer/setup/toml_doc.py) and
the Codex ``[features] memories`` switch (coffer_adapters.codex, applied by
coffer/projection/native_memory.py).

For realistic generated documents (random keys, tables, comments, whitespace, line breaks):
every other key keeps its value, every original line survives in order, and undo gives the
original bytes back, both when the file is untouched (the journal's pre-image) and when the
user edited elsewhere in it meanwhile (coffer removes only its own entries).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from coffer.adapter import Context, Launch, registry
from coffer.projection.journal import Journal
from coffer.setup import unwiring, wiring
from coffer_adapters import codex
from tests.properties.budget import examples

LAUNCH = Launch(("/opt/coffer/bin/coffer",))


@functools.cache
def loaded() -> registry.Loaded:
    return registry.load_adapters()


# ---- realistic TOML ---------------------------------------------------------------------

_BARE = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
_KEYS = st.one_of(
    st.sampled_from(
        [
            "model",
            "approval_policy",
            "sandbox_mode",
            "project_doc_max_bytes",
            "notify",
            "hooks",
            "command",
            "args",
            "enabled",
        ]
    ),
    _BARE,
    _BARE.map(lambda k: f'"{k} key"'),  # a quoted key
)
_SAFE_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=15
).filter(lambda s: "\u2028" not in s)
_SCALARS = st.one_of(
    _SAFE_TEXT.map(lambda s: json.dumps(s, ensure_ascii=False)),
    _SAFE_TEXT.filter(lambda s: "'" not in s).map(lambda s: f"'{s}'"),
    st.integers(-(2**40), 2**40).map(str),
    st.sampled_from(["true", "false", "1.5", "-0.25", "1e3", "0x1F", "1_000"]),
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
    st.lists(_SCALARS, min_size=1, max_size=3).map(
        lambda xs: "[\n" + "".join(f"  {x},\n" for x in xs) + "]"
    ),
    st.lists(st.tuples(_BARE, _SCALARS), max_size=2, unique_by=lambda kv: kv[0]).map(
        lambda kvs: "{" + ", ".join(f"{k} = {v}" for k, v in kvs) + "}"
    ),
)
_EQUALS = st.sampled_from([" = ", "=", "  =  ", "\t= "])
_COMMENT = st.one_of(st.just(""), _SAFE_TEXT.map(lambda s: f"  # {s}".rstrip()))
_TABLES = st.sampled_from(
    [
        "features",
        "memories",
        "mcp_servers.github",
        "mcp_servers.linear",
        "profiles.fast",
        "tui",
        "shell_environment_policy",
        "hooks.state",
        "history",
    ]
)


@st.composite
def _kv_lines(draw: st.DrawFn, extra: list[tuple[str, str]] | None = None) -> list[str]:
    pairs = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=4, unique_by=lambda kv: kv[0]))
    names = {k for k, _ in pairs}
    pairs += [(k, v) for k, v in extra or [] if k not in names]
    lines = []
    for k, v in draw(st.permutations(pairs)):
        if draw(st.booleans()):
            lines.append(draw(_COMMENT).strip() or "#")
        lines.append(f"{k}{draw(_EQUALS)}{v}{draw(_COMMENT)}")
        if draw(st.integers(0, 4)) == 0:
            lines.append("")
    return lines


@st.composite
def toml_docs(draw: st.DrawFn) -> bytes:
    """A config.toml as people write them; valid TOML (checked with tomllib)."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["# Codex settings, by hand", ""]
    lines += draw(_kv_lines())
    for table in draw(st.lists(_TABLES, max_size=4, unique=True)):
        extra = None
        if table == "features":
            flag = draw(st.sampled_from(["true", "false", None]))
            extra = [("memories", flag)] if flag else []
        if table == "memories":
            extra = [("use_memories", draw(st.sampled_from(["true", "false"])))]
        lines += ["", f"[{table}]{draw(_COMMENT)}", *draw(_kv_lines(extra))]
    text = nl.join(lines)
    text += draw(st.sampled_from(["", nl, nl + nl]))
    data = text.encode("utf-8")
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)
    return data


# ---- realistic JSON ---------------------------------------------------------------------

_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-1000, 10**6), _SAFE_TEXT, st.floats(-10, 10).map(round)
)
_JSON = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_SAFE_TEXT, inner, max_size=3)
    ),
    max_leaves=8,
)
_OTHER_HOOK = st.fixed_dictionaries(
    {"hooks": st.just([{"type": "command", "command": "echo hello", "timeout": 5}])},
    optional={"matcher": st.sampled_from(["startup", "resume", "*"])},
)


@st.composite
def json_docs(draw: st.DrawFn) -> bytes:
    """A settings.json / .claude.json: other keys, maybe other hooks and MCP servers, in one
    of the layouts people and tools write."""
    obj: dict[str, Any] = draw(st.dictionaries(_SAFE_TEXT, _JSON, max_size=4))
    if draw(st.booleans()):
        hooks: dict[str, Any] = {}
        if draw(st.booleans()):
            hooks["SessionStart"] = draw(st.lists(_OTHER_HOOK, max_size=2))
        if draw(st.booleans()):
            hooks["PreToolUse"] = draw(st.lists(_OTHER_HOOK, max_size=1))
        obj["hooks"] = hooks
    if draw(st.booleans()):
        obj["mcpServers"] = draw(
            st.dictionaries(
                st.sampled_from(["github", "linear", "fs"]),
                st.fixed_dictionaries({"command": st.just("npx"), "args": st.just(["-y", "x"])}),
                max_size=2,
            )
        )
    order = draw(st.permutations(list(obj)))
    obj = {k: obj[k] for k in order}
    indent = draw(st.sampled_from([None, 2, 4, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": ")]))
    text = json.dumps(obj, indent=indent, separators=separators, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    text += draw(st.sampled_from(["", "\n", "\r\n", "\n\n"]))
    bom = b"\xef\xbb\xbf" if draw(st.integers(0, 9)) == 0 else b""
    return bom + text.encode("utf-8")


# ---- helpers ------------------------------------------------------------------------------


def _lines(data: bytes) -> list[bytes]:
    return data.replace(b"\r\n", b"\n").split(b"\n")


def _in_order(needles: list[bytes], hay: list[bytes]) -> bool:
    it = iter(hay)
    return all(any(n == h for h in it) for n in needles)


def _without(obj: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``obj`` without the member at ``keys``."""
    out = json.loads(json.dumps(obj))
    node = out
    for k in keys[:-1]:
        node = node[k]
    del node[keys[-1]]
    return out


@contextmanager
def _machine() -> Iterator[tuple[Path, dict[str, str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {
            "HOME": str(root / "home"),
            "CODEX_HOME": str(root / "home" / ".codex"),
            "CLAUDE_CONFIG_DIR": str(root / "home" / ".claude"),
            "GEMINI_CLI_HOME": str(root / "home"),
            "PATH": "",
        }
        for d in (".codex", ".claude", ".gemini"):
            (root / "home" / d).mkdir(parents=True)
        yield root / "store", env


def _setup(store: Path, env: dict[str, str], agent: str) -> wiring.Plan:
    plan = wiring.plan(store, env, loaded(), [agent], launch=LAUNCH)
    assert plan.report.ok, plan.report.problems
    report = wiring.apply(Journal(store), plan)
    assert report.ok, report.problems
    return plan


def _undo(store: Path) -> None:
    report = unwiring.undo(Journal(store))
    assert report.ok, report.problems
    assert not list(Journal(store).records())


def _round_trip(
    agent: str,
    files: dict[str, bytes],
    check: Callable[[str, bytes, bytes], None],
    edit: Callable[[str, bytes], bytes | None],
) -> None:
    """Setup then undo (exact), then setup, an unrelated hand edit, undo (entries only)."""
    with _machine() as (store, env):
        home = Path(env["HOME"])
        for rel, data in files.items():
            (home / rel).write_bytes(data)
        _setup(store, env, agent)
        for rel, data in files.items():
            check(rel, data, (home / rel).read_bytes())
        _undo(store)
        for rel, data in files.items():
            assert (home / rel).read_bytes() == data, rel
        _setup(store, env, agent)
        expected = {}
        for rel, data in files.items():
            expected[rel] = edit(rel, data) or data
            if expected[rel] != data:
                edited = edit(rel, (home / rel).read_bytes())
                assert edited is not None
                (home / rel).write_bytes(edited)
        _undo(store)
        for rel, want in expected.items():
            assert (home / rel).read_bytes() == want, rel


# ---- TOML: coffer setup for Codex ------------------------------------------------------------


def _toml_check(rel: str, before: bytes, after: bytes) -> None:
    if not rel.endswith(".toml"):
        return _json_check(rel, before, after)
    old, new = tomllib.loads(before.decode()), tomllib.loads(after.decode())
    assert new["mcp_servers"]["coffer"]["command"] == LAUNCH.argv[0]
    new = _without(new, ("mcp_servers", "coffer"))
    if "mcp_servers" not in old:
        assert new.pop("mcp_servers") == {}
    assert new == old
    # Every line of the original is still there, in order: comments, layout, values.
    assert _in_order([ln for ln in _lines(before) if ln.strip()], _lines(after))
    assert _same_line_breaks(before, after)
    return None


def _same_line_breaks(before: bytes, after: bytes) -> bool:
    """A file of CRLF lines gets CRLF lines from coffer too (and an LF file LF ones)."""
    bare = after.replace(b"\r\n", b"")
    if b"\r\n" in before and b"\n" not in before.replace(b"\r\n", b""):
        return b"\n" not in bare
    return b"\r\n" not in after or b"\r\n" in before


def _prepend_comment(rel: str, data: bytes) -> bytes | None:
    if rel.endswith(".toml"):
        nl = b"\r\n" if b"\r\n" in data else b"\n"
        return b"# edited by hand later" + nl + data
    return _json_member(rel, data)


@examples(20)
@given(config=toml_docs(), hooks=json_docs())
def test_codex_setup_keeps_every_other_byte_and_undoes_exactly(config: bytes, hooks: bytes) -> None:
    _round_trip(
        "codex",
        {".codex/config.toml": config, ".codex/hooks.json": hooks},
        _toml_check,
        _prepend_comment,
    )


# ---- JSON: coffer setup for Claude Code and Gemini CLI -------------------------------------


def _json_check(rel: str, before: bytes, after: bytes) -> None:
    bom = b"\xef\xbb\xbf"
    assert after.startswith(bom) == before.startswith(bom)
    old = json.loads(before.removeprefix(bom) or b"{}")
    new = json.loads(after.removeprefix(bom))
    # Take coffer's entries out again; what is left must be the original, key for key.
    ours = 0
    if "coffer" in new.get("mcpServers", {}) and "coffer" not in old.get("mcpServers", {}):
        new = _without(new, ("mcpServers", "coffer"))
        ours += 1
        if "mcpServers" not in old and new["mcpServers"] == {}:
            del new["mcpServers"]
    groups = new.get("hooks", {}).get("SessionStart", [])
    mine = [g for g in groups if LAUNCH.argv[0] in json.dumps(g)]
    assert len(mine) <= 1
    if mine:
        ours += 1
        new["hooks"]["SessionStart"] = [g for g in groups if g not in mine]
        if "SessionStart" not in old.get("hooks", {}):
            del new["hooks"]["SessionStart"]
            if "hooks" not in old and new["hooks"] == {}:
                del new["hooks"]
    assert ours >= 1
    assert new == old
    # Splices only: every byte of the original is still there, in order.
    assert _subsequence(before, after)


def _subsequence(needle: bytes, hay: bytes) -> bool:
    it = iter(hay)
    return all(b in it for b in needle)


def _json_member(rel: str, data: bytes) -> bytes | None:
    """A hand edit elsewhere: a new first member in the top-level object."""
    start = data.find(b"{")
    if start < 0 or not json.loads(data.removeprefix(b"\xef\xbb\xbf") or b"{}"):
        return None
    return data[: start + 1] + b'"editedByHand": true, ' + data[start + 1 :]


@examples(20)
@given(settings=json_docs(), claude_json=json_docs())
def test_claude_setup_keeps_every_other_byte_and_undoes_exactly(
    settings: bytes, claude_json: bytes
) -> None:
    _round_trip(
        "claude",
        {".claude/settings.json": settings, ".claude/.claude.json": claude_json},
        _json_check,
        _json_member,
    )


@examples(20)
@given(settings=json_docs())
def test_gemini_setup_two_edits_in_one_file_undo_exactly(settings: bytes) -> None:
    _round_trip("gemini", {".gemini/settings.json": settings}, _json_check, _json_member)


# ---- TOML: Codex's own memory switched off and back on ---------------------------------------


def _native(root: Path) -> Any:
    ctx = Context(root, {"CODEX_HOME": str(root / ".codex")}, root / "store", None)
    return codex.native_memory(ctx)


@examples(100)
@given(config=toml_docs())
def test_codex_memories_switch_keeps_the_rest_and_restores_exactly(config: bytes) -> None:
    native = _native(Path(os.sep))
    new, previous = native.disable(config)
    assert not native.enabled(new)
    old, now = tomllib.loads(config.decode()), tomllib.loads(new.decode())
    assert now["features"]["memories"] is False
    now["features"].pop("memories")
    if "features" not in old:
        assert now.pop("features") == {}
    else:
        old["features"].pop("memories", None)
    assert now == old
    # Every other line is still there, in order (only the switch's own line may change).
    kept = [ln for ln in _lines(config) if ln.strip() and b"memories" not in ln]
    assert _in_order(kept, _lines(new))
    assert _same_line_breaks(config, new)
    assert native.restore(new, previous) == config
    # Edited elsewhere meanwhile: only the switch goes back, the edit stays.
    nl = b"\r\n" if b"\r\n" in config else b"\n"
    edited = b"# edited by hand later" + nl
    assert native.restore(edited + new, previous) == edited + config
