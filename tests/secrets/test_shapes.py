"""Issue 22.7: the credential shapes the gate used to miss, on every write path, through the
real CLI (docs/adr/0042). Samples are built by concatenation so no scanner flags this file."""

from __future__ import annotations

from pathlib import Path

import pytest

from coffer.secrets import find_secrets
from tests.helpers import coffer, store
from tests.projection.test_git import init_repo, ok
from tests.story.test_hostile import rendered_files, tier_dir
from tests.sync_machines import World, git, make_world

_PW = "Xk29pLmq" + "7TzR"
SHAPES: dict[str, str] = {
    "netrc": "machine api.example.com login alice password " + _PW,
    "netrc, one field a line": "machine git.corp\n  login bob\n  password " + _PW,
    "curl -u": "curl -u alice:" + _PW + " https://api.example.com",
    "redis URL": "redis://:" + _PW + "@cache.internal:6379/0",
    "Docker config": '{"auths": {"ghcr.io": {"auth": "' + "YWxpY2U6" + "WGsyOXBMbXE3VHpS" + '"}}}',
    "kubeconfig": "    client-key-data: " + "LS0tLS1CRUdJTiBSU0Eg" + "UFJJVkFURSBLRVktLS0tLQ",
    "Stripe webhook": "whsec_" + "MfKQ9r8GKYqrTwjU" + "PD8ILPZIo2LaLaSw",
    "Atlassian": "ATATT3" + "xFfGF0T4JNjA1Y2Q1LWE0NDktNGZlMC1hYWE0LTFlYWNmNDNh" + "=3C1A6A2C",
    "Google OAuth": "GOCSPX-" + "1mVtq9tPGeRg3J0u" + "UdaZ4xT7LkYa",
    "Contentful": "CFPAT-" + "uiNBsYO9Ewb2zS8ZRk1rCkfHLpvF3" + "xpSfGSa7QMpq3w",
    "Octopus": "API-" + "ABCDEFGHIJ0KLMNOPQRST1UVWX",
    "tfp_": "tfp_" + "8a1b2c3d4e5f60718293a4b5c6d7e8f9" + "0a1b2c3d4e5f6071",
    "Mapbox": "sk." + "eyJ1IjoiYWxpY2UiLCJhIjoiY2t4ZXhh" + ".Yr7Gq2LxP9wZkq0LwPq7Rt",
    "Facebook": "EAACEdEose0cBA" + "ZBZC1xYzR3bW9kZ2Z4V2ZBa0xQ",
    "Supabase": "sbp_" + "a3f9c2e1b7d4f6a8c0e2" + "b4d6f8a1c3e5b7d9f1a2",
    "Azure SAS": "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&sig="
    + "q0wE9r8t7Y6u5I4o3P2a1S0dF9g8H7j6K5l4Z3x2C1v%3D",
}
IDS = list(SHAPES)


def _secret_part(text: str) -> str:
    """The part of a sample that must never be printed or rendered."""
    return _PW if _PW in text else text.split()[-1].strip('"}')[-16:]


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    return init_repo(tmp_path / "repo", {"README.md": b"# app\n"})


@pytest.mark.parametrize("shape", IDS)
def test_the_gate_knows_each_shape(shape: str) -> None:
    assert find_secrets(f"note: {SHAPES[shape]} (end)"), shape


def test_cli_mcp_and_vault_refuse_each_shape(repo: Path) -> None:
    from tests.mcp.test_server import drive, error

    for shape, text in SHAPES.items():
        said = coffer("remember", f"note {text}", "--name", "n", cwd=repo)
        assert said.returncode == 1 and "secret" in said.stderr, (shape, said.stderr)
        assert _secret_part(text) not in said.stdout + said.stderr
        saved = coffer("vault", "save", "--title", "S", "--stdin", cwd=repo, input=text)
        assert saved.returncode == 1 and "suspected secret" in saved.stderr, shape
    assert not list(repo.rglob("mem_*.md"))

    async def body(session):  # type: ignore[no-untyped-def]
        for shape, text in SHAPES.items():
            err = error(await session.call_tool("remember", {"text": f"x {text}"}))
            assert err["code"] == "SECRET_REFUSED", shape

    drive(repo, body)


def test_files_written_into_the_linked_folder_are_never_rendered(
    repo: Path, fake_home: Path
) -> None:
    directory = tier_dir(repo)
    for at, text in enumerate(SHAPES.values()):
        (directory / f"agent-{at}.md").write_text(f"---\nname: a{at}\n---\n\nUse {text}\n")
    result = coffer("project", cwd=repo)
    assert result.returncode == 0, result.stderr
    rendered = rendered_files(repo, fake_home)
    assert "We deploy with make release." in rendered[repo / "AGENTS.md"]
    for path, content in rendered.items():
        for shape, text in SHAPES.items():
            assert _secret_part(text) not in content, (shape, path)


def test_team_add_refuses_each_shape(repo: Path) -> None:
    ok(coffer("remember", "Releases use make ship.", "--name", "release", cwd=repo))
    ok(coffer("team", "init", cwd=repo))
    tier = store().project_tier(repo)
    assert tier is not None
    for at, (shape, text) in enumerate(SHAPES.items()):
        (tier.dir / f"leak{at}.md").write_text(f"---\nname: leak{at}\n---\n\n{text}\n")
        refused = coffer("team", "add", f"leak{at}", cwd=repo)
        assert refused.returncode != 0 and "secret" in refused.stderr, shape
        assert not (repo / ".coffer" / "memory" / f"leak{at}.md").exists()


def test_a_pulled_sync_file_with_any_shape_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world: World = make_world(tmp_path, monkeypatch)
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    hostile = tmp_path / "hostile"
    git("clone", "-q", "-b", "main", str(world.remote), str(hostile))
    d = hostile / "projects" / "github.com" / "me" / "app"
    for at, text in enumerate(SHAPES.values()):
        (d / f"leak{at}.md").write_text(f"---\nname: leak{at}\n---\n\n{text}\n")
    git("add", "-A", cwd=hostile)
    git("commit", "-q", "-m", "hostile", cwd=hostile)
    git("push", "-q", "origin", "HEAD:main", cwd=hostile)
    said = b.ok("sync")
    assert sorted(p.name for p in b.memory_dir().iterdir()) == ["MEMORY.md", "deploy.md"]
    for at in range(len(SHAPES)):
        assert f"app/leak{at}.md: " in said.err


@pytest.mark.parametrize(
    ("text", "near"),
    [
        ("password = hunter2", True),
        ("token: abc", True),
        ("the key is under the mat", False),
        ("secret" + " " * 39 + "=", True),  # the window ends 40 characters past the keyword
        ("secret" + " " * 40 + "=", False),
        ("creds", False),
        ("KEY:", True),
    ],
)
def test_a_credential_keyword_is_near_an_assignment(text: str, near: bool) -> None:
    from coffer.secrets import _assignment_near_keyword

    assert _assignment_near_keyword(text) is near
