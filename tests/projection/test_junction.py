"""Claude's memory directory where symlinks are refused (Windows without Developer Mode),
through the CLI: a directory junction instead, recognised as coffer's own link by every
command; and where no link can be made at all, one refusal and nothing merged, however
many session starts follow (issue 27 point 5).

Every ``coffer`` here runs under ``COFFER_SIMULATE=windows`` (tests/simulate/): symlinks
refused with Windows' ERROR_PRIVILEGE_NOT_HELD, junctions made by the fake ``mklink /J``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coffer.projection import fastpath
from tests.helpers import coffer, imported_after, make_repo, store
from tests.simulate import sitecustomize as simulation

# The simulation's junctions are symlinks (tests/simulate): an account that cannot make one
# has the real junction path instead, which the suite's other Claude tests take there.
pytestmark = pytest.mark.needs_symlinks

NATIVE = {
    "deploy.md": "---\nname: deploy\ndescription: how we ship\n---\nTag, push.\n",
    "MEMORY.md": "# Memory Index\n\n- [Deploy](deploy.md) — how we ship\n",
}


@pytest.fixture
def windows(tmp_path: Path) -> dict[str, str]:
    """The environment of a coffer subprocess on the simulated Windows."""
    here = str(Path(simulation.__file__).parent)
    return {
        "COFFER_SIMULATE": "windows",
        "PYTHONPATH": os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])]),
        simulation.JUNCTIONS_FILE: str(tmp_path.with_name(tmp_path.name + ".junctions")),
    }


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    return make_repo(tmp_path / "repo")


def native_dir(home: Path, root: Path) -> Path:
    from coffer_adapters.claude_code import slug

    d = home / ".claude" / "projects" / slug(str(root)) / "memory"
    d.mkdir(parents=True)
    for name, text in NATIVE.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def snapshot(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def junctions(env: dict[str, str]) -> list[str]:
    path = Path(env[simulation.JUNCTIONS_FILE])
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def tier_files(root: Path) -> list[str]:
    tier = store().project_tier(root)
    return [] if tier is None else sorted(p.name for p in tier.dir.glob("*.md"))


def test_symlinks_refused_a_junction_is_made_seen_and_undone(repo, fake_home, windows):
    native = native_dir(fake_home, repo)
    before = snapshot(native)

    first = coffer("project", cwd=repo, env=windows)
    assert first.returncode == 0, first.stderr
    made = junctions(windows)
    assert len(made) == 1 and made[0].endswith(str(store().project_tier(repo).dir))  # type: ignore[union-attr]
    assert "deploy.md" in tier_files(repo)  # merged once the link existed
    assert (native / "deploy.md").read_text(encoding="utf-8") == NATIVE["deploy.md"]

    listed = coffer("adapter", "list", "--json", cwd=repo, env=windows)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    claude = next(a for a in json.loads(listed.stdout)["adapters"] if a["name"] == "claude")
    project_row = next(t for t in claude["targets"] if t["path"] == str(native))
    assert project_row["state"] == "ok", project_row

    again = coffer("project", "--quiet", cwd=repo, env=windows)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert tier_files(repo).count("deploy.md") == 1 and len(junctions(windows)) == 1

    undone = coffer("unproject", cwd=repo, env=windows)
    assert undone.returncode == 0, undone.stderr
    # A real directory again, holding what Claude had (its index is the store's, regenerated).
    assert not native.is_symlink() and snapshot(native)["deploy.md"] == before["deploy.md"]
    assert junctions(windows) == []  # removed as a junction is, by rmdir of the link
    assert "deploy.md" in tier_files(repo)  # the store's copy was never deleted through it


def test_no_link_possible_refuses_once_and_merges_nothing_at_any_start(repo, fake_home, windows):
    native = native_dir(fake_home, repo)
    before = snapshot(native)
    env = {**windows, simulation.NO_JUNCTIONS: "1"}

    first = coffer("project", cwd=repo, env=env)
    said = first.stdout + first.stderr
    assert "Developer Mode" in said, said
    hooks = [coffer("project", "--hook", cwd=repo, env=env) for _ in range(5)]

    assert all(h.returncode == 0 for h in hooks), [h.stderr for h in hooks]
    entries = [n for n in tier_files(repo) if n != "MEMORY.md"]
    assert entries == [], entries  # not one import of Claude's files, let alone five
    assert not native.is_symlink() and snapshot(native) == before
    assert junctions(env) == []


def test_the_hook_says_the_refusal_once(repo, fake_home, windows):
    native_dir(fake_home, repo)
    env = {**windows, simulation.NO_JUNCTIONS: "1"}
    hooks = [coffer("project", "--hook", cwd=repo, env=env) for _ in range(3)]
    assert all(h.returncode == 0 for h in hooks), [h.stderr for h in hooks]
    assert sum("Developer Mode" in h.stdout + h.stderr for h in hooks) == 1
    first = hooks[0]
    message = json.loads(first.stdout)["systemMessage"].splitlines()
    # stderr is the message's lines, each once: no per-step or per-agent repeats, no traceback
    assert first.stderr.splitlines() == message, first.stderr
    assert "Developer Mode" in message[0] and "Traceback" not in first.stderr
    assert [(h.stdout, h.stderr) for h in hooks[1:]] == [("", "")] * 2


def test_the_fake_junction_maker_is_removed_only_as_a_junction(tmp_path, windows, monkeypatch):
    for key, value in windows.items():
        monkeypatch.setenv(key, value)
    target = tmp_path / "target"
    target.mkdir()
    (target / "kept.md").write_text("kept\n", encoding="utf-8")
    link = tmp_path / "link"
    simulation.make_junction(link, target)
    assert simulation.is_junction(link)
    other = tmp_path / "plain"
    other.symlink_to(target)
    assert not simulation.is_junction(other)  # a symlink is not a junction
    with pytest.raises(NotADirectoryError):
        simulation.remove_junction(other)  # rmdir of a symlink fails, as on Windows
    simulation.remove_junction(link)
    assert not link.exists() and (target / "kept.md").read_text(encoding="utf-8") == "kept\n"
    with pytest.raises(OSError, match="privilege"):
        simulation.refuse_symlink(target, tmp_path / "refused")


def test_the_next_start_over_a_junction_is_the_no_op(repo, fake_home, windows, monkeypatch):
    native = native_dir(fake_home, repo)
    first = coffer("project", cwd=repo, env=windows)
    assert first.returncode == 0 and len(junctions(windows)) == 1, first.stderr
    for key, value in windows.items():
        monkeypatch.setenv(key, value)
    simulation.simulate_windows(monkeypatch.setattr)
    # The link is signed with its target, read through the seam as a junction's is.
    assert fastpath.signature(str(native)).endswith(":" + str(store().project_tier(repo).dir))  # type: ignore[union-attr]
    assert fastpath.unchanged(["project", "--hook"], dict(os.environ), str(repo)) == ""
    # The CLI takes the no-op too: the engine is never imported.
    assert imported_after(["project", "--hook"], repo, ("coffer.projection.engine",)) == (0, [])


def test_a_junction_is_signed_by_its_target_as_windows_reports_it(tmp_path, monkeypatch):
    # On Windows lstat reports a junction as a directory with the reparse-point attribute,
    # never S_IFLNK, and readlink gives its target in the NT form.
    link = tmp_path / "memory"
    link.mkdir()
    real = os.lstat(link)
    targets = {str(link): "\\\\?\\C:\\Users\\me\\coffer\\a"}

    class Junction:
        st_ino, st_size, st_mtime_ns, st_mode = real.st_ino, 0, real.st_mtime_ns, real.st_mode
        st_file_attributes = 0x400  # FILE_ATTRIBUTE_REPARSE_POINT
        st_reparse_tag = 0xA0000003  # IO_REPARSE_TAG_MOUNT_POINT

    def lstat(path, *args, **kwargs):
        return Junction() if os.fspath(path) == str(link) else real_lstat(path, *args, **kwargs)

    def readlink(path):
        return targets[os.fspath(path)]

    real_lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lstat)
    monkeypatch.setattr(os, "readlink", readlink)
    before = fastpath.signature(str(link))
    assert before.endswith(":C:\\Users\\me\\coffer\\a")
    targets[str(link)] = "\\\\?\\C:\\Users\\me\\coffer\\b"  # the junction re-pointed
    assert fastpath.signature(str(link)) != before


def test_a_reparse_point_that_is_no_link_is_signed_by_its_lstat(tmp_path, monkeypatch):
    # A cloud placeholder is a reparse point readlink refuses: signed, not taken as gone.
    path = tmp_path / "placeholder.md"
    path.write_text("x\n", encoding="utf-8")
    real = os.lstat(path)

    class Placeholder:
        st_ino, st_size, st_mtime_ns, st_mode = real.st_ino, 2, real.st_mtime_ns, real.st_mode
        st_file_attributes = 0x400
        st_reparse_tag = 0x9000001A  # IO_REPARSE_TAG_CLOUD_6: no name surrogate

    def refuse(_path):
        raise OSError(22, "The file or directory is not a reparse point of a link")

    monkeypatch.setattr(os, "lstat", lambda p, *a, **k: Placeholder())
    monkeypatch.setattr(os, "readlink", refuse)
    assert fastpath.signature(str(path)) == f"{real.st_ino}:2:{real.st_mtime_ns}:{real.st_mode}"
