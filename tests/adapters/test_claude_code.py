from __future__ import annotations

import json
import os

import pytest

from coffer.adapter import Context, Mode
from coffer.testing import AdapterContract
from coffer_adapters import claude_code

L_AAA = "a" * 190


class TestClaude(AdapterContract):
    adapter = claude_code

    def prepare(self, ctx: Context) -> None:
        (ctx.home / ".claude").mkdir()

    def test_project_link_and_global_render(self, ctx):
        targets = {t.tier: t for t in claude_code.targets(ctx)}
        assert targets["project"].mode is Mode.SYMLINK
        assert targets["project"].path == (
            ctx.home / ".claude" / "projects" / claude_code.slug(str(ctx.project)) / "memory"
        )
        assert targets["global"].path == ctx.home / ".claude" / "CLAUDE.md"

    def test_never_targets_a_project_claude_md(self, ctx):
        assert all(
            t.path.name != "CLAUDE.md" or ctx.project not in t.path.parents
            for t in claude_code.targets(ctx)
        )

    def test_auto_memory_directory_in_project_settings_is_honoured(self, ctx):
        moved = ctx.home / "custmem"
        settings = ctx.project / ".claude" / "settings.json"
        settings.parent.mkdir()
        settings.write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
        target = next(t for t in claude_code.targets(ctx) if t.tier == "project")
        assert target.path == moved
        assert "autoMemoryDirectory" in target.note

    def test_user_level_auto_memory_directory_is_not_linked(self, ctx):
        (ctx.home / ".claude" / "settings.json").write_text(
            json.dumps({"autoMemoryDirectory": "~/custmem"})
        )
        target = next(t for t in claude_code.targets(ctx) if t.tier == "project")
        assert target.mode is Mode.NONE
        assert "every project" in target.note

    def test_auto_memory_off_is_reported(self, ctx):
        (ctx.home / ".claude" / "settings.json").write_text(
            json.dumps({"autoMemoryEnabled": False})
        )
        target = next(t for t in claude_code.targets(ctx) if t.tier == "project")
        assert target.active is False

    def test_env_disable_switch_in_settings_env_block(self, ctx):
        (ctx.home / ".claude" / "settings.json").write_text(
            json.dumps({"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}})
        )
        assert claude_code.auto_memory_on(ctx)[0] is False

    def test_project_dir_name_override_needs_config_dir(self, ctx):
        env = {**ctx.environ, "CLAUDE_CODE_PROJECT_DIR_NAME": "custom_name"}
        c = Context(ctx.home, env, ctx.store, ctx.project)
        assert claude_code.memory_dir(c)[0].parent.name == "custom_name"
        env.pop("CLAUDE_CONFIG_DIR")
        c = Context(ctx.home, env, ctx.store, ctx.project)
        assert claude_code.memory_dir(c)[0].parent.name != "custom_name"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/Users/xing/Coffer", "-Users-xing-Coffer"),
        ("/Users/xing/.claude", "-Users-xing--claude"),
        ("/a/b.c/d", "-a-b-c-d"),
        ("/home/dev/my_project", "-home-dev-my-project"),
        ("/home/dev/my-project", "-home-dev-my-project"),
        ("/home/dev/My Project", "-home-dev-My-Project"),
        ("/home/dev/a--b", "-home-dev-a--b"),
        ("/srv/api.v2/web_app (old)", "-srv-api-v2-web-app--old-"),
        ("/Users/j\u00fcrgen/code", "-Users-j-rgen-code"),
        ("/Users/ju\u0308rgen/code", "-Users-ju-rgen-code"),
        ("/home/dev/项目", "-home-dev---"),
        ("/home/dev/🚀app", "-home-dev---app"),
        ("C:\\Users\\me\\proj", "C--Users-me-proj"),
        ("/", "-"),
        ("/home/dev/" + L_AAA, "-home-dev-" + L_AAA),
        ("/home/dev/" + "a" * 191, "-home-dev-" + "a" * 190 + "-barnga"),
        ("/home/dev/ü" + L_AAA, "-home-dev--" + "a" * 189 + "-8u7js1"),
        ("/home/dev/_" + L_AAA, "-home-dev--" + "a" * 189 + "-i87qis"),
        ("/home/dev/" + "a" * 189 + "🚀", "-home-dev-" + "a" * 189 + "--b9pprr"),
    ],
)
def test_slug_vectors(path, expected):
    assert claude_code.slug(path) == expected


def test_slug_of_int_min_hash_uses_unsigned_magnitude():
    assert claude_code._base36(2**31) == "zik0zk"


def test_config_dir_env_is_nfc_normalised(tmp_path):
    decomposed = str(tmp_path / "cu\u0308")
    ctx = Context(tmp_path, {"CLAUDE_CONFIG_DIR": decomposed}, tmp_path / "s", None)
    assert str(claude_code.config_root(ctx)).endswith("c\u00fc")


def test_detect_by_config_dir(tmp_path):
    ctx = Context(
        tmp_path, {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), "PATH": ""}, tmp_path / "s", None
    )
    assert claude_code.detect(ctx) is False
    os.mkdir(tmp_path / "cfg")
    assert claude_code.detect(ctx) is True


@pytest.mark.parametrize("text", ["", "abc", "/home/é/x", "/p/😀a", "/p/\ud800x", "a\U00010000b"])
def test_utf16_units_are_javascripts_with_or_without_the_codec(text: str) -> None:
    # One unit per character below U+10000 (no codec loaded); a pair above it (issue 11).
    from coffer_adapters.claude_code import _units

    raw = text.encode("utf-16-le", "surrogatepass")
    assert _units(text) == [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]
