"""Gemini CLI's private project memory (``~/.gemini/tmp/<slug>/memory``) linked to the
project tier, the slug read from Gemini's ``projects.json`` (docs/adr/0032)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coffer.adapter import Context, Mode
from coffer.store import entry
from coffer_adapters import gemini
from tests.helpers import coffer, make_repo, python_code, store


def register(home: Path, root: Path, slug: str, *, marker: str | None = None) -> Path:
    """Register ``root`` as Gemini does: the registry entry and the ownership markers."""
    gdir = home / ".gemini"
    reg = gdir / "projects.json"
    data = json.loads(reg.read_text()) if reg.exists() else {"projects": {}}
    data["projects"][str(root)] = slug
    gdir.mkdir(exist_ok=True)
    reg.write_text(json.dumps(data, indent=2))
    for base in ("tmp", "history"):
        (gdir / base / slug).mkdir(parents=True, exist_ok=True)
        (gdir / base / slug / ".project_root").write_text(marker or str(root))
    return gdir / "tmp" / slug / "memory"


def project_targets(ctx: Context) -> list:
    return [t for t in gemini.targets(ctx) if t.tier == "project"]


@pytest.fixture
def ctx(tmp_path: Path, fake_home: Path) -> Context:
    (fake_home / ".gemini").mkdir()
    root = make_repo(tmp_path / "My.Repo")
    return Context(fake_home, dict(os.environ), tmp_path / "coffer-home", root)


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".gemini").mkdir()
    r = make_repo(tmp_path / "My.Repo")
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    return r


# ---- the target ------------------------------------------------------------------------


def test_slug_is_read_from_projects_json(ctx):
    link = register(ctx.home, ctx.project, "my-repo")
    memory, block = project_targets(ctx)
    assert (memory.mode, memory.path) == (Mode.SYMLINK, link)
    assert (block.mode, block.path) == (Mode.RENDER, ctx.project / "GEMINI.md")
    # The block stays the tier's mode: `coffer adapter list` shows project=render.
    from coffer.adapter import modes

    assert modes(gemini, ctx.store)["project"] is Mode.RENDER


def test_a_collision_suffixed_slug_is_used_as_registered(ctx, tmp_path):
    other = make_repo(tmp_path / "elsewhere" / "My.Repo")
    register(ctx.home, other, "my-repo")
    link = register(ctx.home, ctx.project, "my-repo-1")
    assert project_targets(ctx)[0].path == link


def test_an_unregistered_root_gets_nothing_and_says_so(ctx, tmp_path):
    register(ctx.home, make_repo(tmp_path / "other"), "other")
    memory = project_targets(ctx)[0]
    assert memory.mode is Mode.NONE and not memory.active
    assert "has no entry for" in memory.note and "start `gemini`" in memory.note
    # Never computed: no directory named after the root's would-be slug is planned.
    assert "my-repo" not in str(memory.path)


@pytest.mark.parametrize(
    "registry",
    [
        '{"projects": {"ROOT": "../../.ssh"}}',
        '{"projects": {"ROOT": "My-Repo"}}',
        '{"projects": "nope"}',
        "not json",
    ],
)
def test_a_registry_gemini_would_reset_is_not_trusted(ctx, registry):
    reg = ctx.home / ".gemini" / "projects.json"
    reg.write_text(registry.replace("ROOT", str(ctx.project)))
    memory = project_targets(ctx)[0]
    assert memory.mode is Mode.NONE, memory


def test_a_marker_owned_by_another_path_is_refused(ctx):
    register(ctx.home, ctx.project, "my-repo", marker="/somewhere/else")
    memory = project_targets(ctx)[0]
    assert memory.mode is Mode.NONE
    assert "belongs to /somewhere/else" in memory.note


@pytest.mark.needs_symlinks
def test_a_symlinked_slug_directory_is_refused(ctx, tmp_path):
    register(ctx.home, ctx.project, "my-repo")
    slug_dir = ctx.home / ".gemini" / "tmp" / "my-repo"
    outside = tmp_path / "outside"
    slug_dir.rename(outside)
    slug_dir.symlink_to(outside)
    memory = project_targets(ctx)[0]
    assert memory.mode is Mode.NONE and "is a symlink" in memory.note


def test_registered_subdirectories_are_linked_too_but_not_a_nested_repository(ctx):
    root_link = register(ctx.home, ctx.project, "my-repo")
    sub = ctx.project / "services" / "api"
    sub.mkdir(parents=True)
    sub_link = register(ctx.home, sub, "api")
    nested = make_repo(ctx.project / "vendor" / "lib")
    register(ctx.home, nested, "lib")
    outside = ctx.project.parent / "My.Repo-other"
    outside.mkdir()
    register(ctx.home, outside, "my-repo-other")
    links = [t.path for t in project_targets(ctx) if t.mode is Mode.SYMLINK]
    assert links == [root_link, sub_link]
    assert not project_targets(ctx)[1].note  # a link's note is printed at every run


def test_an_unregistered_root_with_a_registered_subdirectory(ctx):
    sub = ctx.project / "sub"
    sub.mkdir()
    link = register(ctx.home, sub, "sub")
    none, linked, block = project_targets(ctx)
    assert none.mode is Mode.NONE and (linked.mode, linked.path) == (Mode.SYMLINK, link)
    assert block.mode is Mode.RENDER


def test_inputs_name_the_registry_and_the_slug_markers(ctx):
    _, files = gemini.inputs(ctx)
    assert ctx.home / ".gemini" / "projects.json" in files
    register(ctx.home, ctx.project, "my-repo")
    _, files = gemini.inputs(ctx)
    assert ctx.home / ".gemini" / "tmp" / "my-repo" / ".project_root" in files


# ---- through the CLI -------------------------------------------------------------------


def native(link: Path) -> dict[str, bytes]:
    link.mkdir()
    files = {
        "MEMORY.md": b"# Gemini project memory\n\n- Use pnpm, not npm.\n- [Build](build.md)\n",
        "build.md": b"Build with `make all`.\n",
        "deploy.md": b"---\nname: deploy\ndescription: how we ship\n---\nTag and push.\n",
    }
    for name, data in files.items():
        (link / name).write_bytes(data)
    return files


def test_link_merges_the_native_directory(repo, fake_home):
    link = register(fake_home, repo, "my-repo")
    native(link)
    registry_before = (fake_home / ".gemini" / "projects.json").read_bytes()
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stderr
    tier = store().project_tier(repo)
    assert tier is not None
    assert link.is_symlink() and Path(os.readlink(link)) == tier.dir
    names = sorted(p.name for p in tier.dir.iterdir())
    assert names == ["MEMORY.md", "build.md", "deploy.imported-1.md", "deploy.md"]
    renamed = entry.parse((tier.dir / "deploy.imported-1.md").read_text(), "x.md")
    assert renamed.name == "deploy-imported-1" and renamed.body == "Tag and push.\n"
    index = (link / "MEMORY.md").read_text()  # what Gemini loads: coffer's index
    assert "- Use pnpm, not npm." in index  # Gemini's short facts are kept
    assert "](deploy.md)" in index and "](build.md)" in index
    assert (repo / "GEMINI.md").is_file()  # the block beside the link
    # coffer never writes Gemini's registry.
    assert (fake_home / ".gemini" / "projects.json").read_bytes() == registry_before
    again = coffer("project", "--quiet", cwd=repo)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")


def test_unproject_restores_the_directory(repo, fake_home):
    link = register(fake_home, repo, "my-repo")
    before = native(link)
    assert coffer("project", cwd=repo).returncode == 0
    undo = coffer("unproject", "--agent", "gemini", cwd=repo)
    assert undo.returncode == 0, undo.stderr
    assert link.is_dir() and not link.is_symlink()
    after = {p.name: p.read_bytes() for p in link.iterdir()}
    # Gemini's own files come back byte for byte (the renamed one under its old name).
    assert after["build.md"] == before["build.md"]
    assert after["deploy.imported-1.md"].endswith(b"Tag and push.\n")
    # The directory as it was before coffer is kept whole in the backups.
    backups = list((store().root / "backups" / "dirs").iterdir())
    assert len(backups) == 1
    assert (backups[0] / "deploy.md").read_bytes() == before["deploy.md"]
    assert "- Use pnpm, not npm." in after["MEMORY.md"].decode()
    assert not (repo / "GEMINI.md").exists()


def test_a_subdirectory_memory_is_merged_into_the_project_and_given_back(repo, fake_home):
    sub = repo / "sub"
    sub.mkdir()
    link = register(fake_home, sub, "sub")
    link.mkdir()
    (link / "MEMORY.md").write_text("- The sub service listens on 8081.\n")
    assert coffer("project", cwd=sub).returncode == 0
    tier = store().project_tier(repo)
    assert tier is not None and link.is_symlink() and Path(os.readlink(link)) == tier.dir
    assert "- The sub service listens on 8081." in (tier.dir / "MEMORY.md").read_text()
    assert coffer("unproject", cwd=repo).returncode == 0
    assert link.is_dir() and not link.is_symlink()
    assert "8081" in (link / "MEMORY.md").read_text()


def test_unproject_of_a_link_coffer_created_from_nothing(repo, fake_home):
    link = register(fake_home, repo, "my-repo")
    assert coffer("project", cwd=repo).returncode == 0
    assert link.is_symlink()
    assert coffer("unproject", cwd=repo).returncode == 0
    assert link.is_dir() and (link / "deploy.md").is_file()  # the memories stay Gemini's


def test_dry_run_shows_the_merge_and_the_link(repo, fake_home):
    link = register(fake_home, repo, "my-repo")
    before = native(link)
    dry = coffer("project", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert f"would merge {link}" in dry.stdout
    assert "deploy.md -> deploy.imported-1.md" in dry.stdout
    assert str(link) in dry.stdout
    assert not link.is_symlink()
    assert {p.name: p.read_bytes() for p in link.iterdir()} == before


def test_adapter_list_says_why_nothing_is_linked_then_reports_the_link(repo, fake_home):
    assert coffer("project", cwd=repo).returncode == 0
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    g = next(a for a in listed["adapters"] if a["name"] == "gemini")
    assert g["modes"]["project"] == "render"
    none = next(t for t in g["targets"] if t["mode"] == "none")
    assert "Gemini has registered no project yet" in none["note"]
    # Gemini registers the project (a first session there); the next run links it, even
    # though the previous run left a no-op stamp.
    link = register(fake_home, repo, "my-repo")
    assert coffer("project", "--quiet", cwd=repo).returncode == 0
    assert link.is_symlink()
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    g = next(a for a in listed["adapters"] if a["name"] == "gemini")
    memory = next(t for t in g["targets"] if t["mode"] == "symlink")
    assert memory["state"] == "ok" and memory["path"] == str(link)


@pytest.mark.needs_symlinks
def test_a_memory_directory_that_links_elsewhere_is_left_alone(repo, fake_home, tmp_path):
    link = register(fake_home, repo, "my-repo")
    elsewhere = tmp_path / "dotfiles-memory"
    elsewhere.mkdir()
    (elsewhere / "secret.md").write_text("not for coffer\n")
    link.symlink_to(elsewhere)
    run = coffer("project", cwd=repo)
    assert run.returncode == 1
    assert "not to coffer's store" in run.stdout + run.stderr
    assert Path(os.readlink(link)) == elsewhere
    tier = store().project_tier(repo)
    assert tier is not None and not (tier.dir / "secret.md").exists()


# ---- Windows: Gemini lowercases the paths it registers ---------------------------------


def register_as_on_windows(home: Path, root: Path, slug: str) -> Path:
    """Register ``root`` as Gemini does on Windows: key and marker lowercased
    (ProjectRegistry.normalizePath: ``path.resolve`` then ``toLowerCase`` on win32)."""
    return register(home, Path(str(root).lower()), slug)


def test_on_windows_the_root_is_looked_up_lowercased(ctx, monkeypatch):
    from coffer.base import platform

    link = register_as_on_windows(ctx.home, ctx.project, "my-repo")
    sub = ctx.project / "Services"
    sub.mkdir()
    sub_link = register_as_on_windows(ctx.home, sub, "services")
    monkeypatch.setattr(platform, "SYSTEM", "win32")
    linked = [t for t in project_targets(ctx) if t.mode is Mode.SYMLINK]
    assert [t.path for t in linked] == [link, sub_link]
    _, files = gemini.inputs(ctx)
    assert ctx.home / ".gemini" / "tmp" / "services" / ".project_root" in files
    # Elsewhere the volume tells the two spellings apart, and so does Gemini.
    monkeypatch.setattr(platform, "SYSTEM", "linux")
    assert project_targets(ctx)[0].mode is Mode.NONE


def test_on_windows_a_marker_in_another_case_is_the_same_owner(ctx, monkeypatch):
    from coffer.base import platform

    register(ctx.home, ctx.project, "my-repo", marker=str(ctx.project).upper())
    reg = ctx.home / ".gemini" / "projects.json"
    reg.write_text(json.dumps({"projects": {str(ctx.project).lower(): "my-repo"}}))
    monkeypatch.setattr(platform, "SYSTEM", "win32")
    assert project_targets(ctx)[0].mode is Mode.SYMLINK


def test_cli_links_a_project_gemini_registered_lowercased(repo, fake_home):
    link = register_as_on_windows(fake_home, repo, "my-repo")
    code = (
        "import sys\nfrom coffer.base import platform\nplatform.SYSTEM = 'win32'\n"
        "sys.argv = ['coffer', 'project']\nfrom coffer.main import main\nmain()\n"
    )
    out = python_code(code, repo)
    assert out.returncode == 0, out.stderr
    assert link.is_symlink()
    assert "We deploy with make release." in (link / "deploy.md").read_text()
