"""Case-insensitive volumes (macOS APFS, Windows NTFS): a project root is spelled as the
volume stores it, so two spellings of one folder are one project (issue 27 point 11).

This host's volumes are case-sensitive, so a folding volume is simulated under a temporary
directory: ``os.lstat``, ``os.stat`` and ``open`` there find a name whatever the case of its
letters, as APFS and NTFS do, while listings show the names as stored.
"""

from __future__ import annotations

import builtins
import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coffer.base import identity, platform
from tests.helpers import coffer, make_repo, make_worktree, store

_REAL_LSTAT = os.lstat
_REAL_STAT = os.stat
_REAL_OPEN = builtins.open


def _folded(root: str, path: object) -> str | None:
    """``path`` as stored, when it lies under ``root`` (found case-insensitively), else None."""
    if not isinstance(path, str | os.PathLike):
        return None
    text = os.fspath(path)
    if not isinstance(text, str) or not text.startswith(root + os.sep):
        return None
    found = root
    for part in text[len(root) + 1 :].split(os.sep):
        if not part:
            continue
        try:
            names = os.listdir(found)
        except OSError:
            return os.path.join(found, part)  # not a directory: the real call says so
        match = (
            part
            if part in names
            else next((n for n in names if n.casefold() == part.casefold()), None)
        )
        if match is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", text)
        found = os.path.join(found, match)
    return found


def _folding(real: Callable[..., Any], root: str) -> Callable[..., Any]:
    def call(path: Any, *args: Any, **kwargs: Any) -> Any:
        stored = _folded(root, path)
        return real(path if stored is None else stored, *args, **kwargs)

    return call


@pytest.fixture
def volume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A case-insensitive volume at ``tmp_path / "vol"``, on a system whose volumes may
    fold case (``platform.FOLDS_CASE``)."""
    root = tmp_path / "vol"
    root.mkdir()
    monkeypatch.setattr(os, "lstat", _folding(_REAL_LSTAT, str(root)))
    monkeypatch.setattr(os, "stat", _folding(_REAL_STAT, str(root)))
    monkeypatch.setattr(builtins, "open", _folding(_REAL_OPEN, str(root)))  # .git files
    monkeypatch.setattr(platform, "FOLDS_CASE", True)
    return root


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The seam's lstat and listing calls, counted."""
    seen: dict[str, list[str]] = {"lstat": [], "list": []}
    lstat, list_names = platform.lstat, platform.list_names

    def counted_lstat(path: Any) -> os.stat_result:
        seen["lstat"].append(os.fspath(path))
        return lstat(path)

    def counted_list(directory: Any) -> list[str]:
        seen["list"].append(os.fspath(directory))
        return list_names(directory)

    monkeypatch.setattr(platform, "lstat", counted_lstat)
    monkeypatch.setattr(platform, "list_names", counted_list)
    return seen


# ---- the seam ------------------------------------------------------------------------------


def test_the_windows_simulation_turns_the_switch_on(monkeypatch):
    from tests.simulate import sitecustomize as simulation

    monkeypatch.setattr(platform, "FOLDS_CASE", False)
    simulation.simulate_windows(monkeypatch.setattr)
    assert platform.FOLDS_CASE is True


def test_folds_case_is_probed_per_volume(volume, tmp_path):
    (volume / "Repo").mkdir()
    (tmp_path / "Plain").mkdir()
    assert platform.folds_case(volume / "Repo")
    assert platform.folds_case(volume / "rEPO")  # found through the folding lookup
    assert not platform.folds_case(tmp_path / "Plain")  # this host's own volume
    assert not platform.folds_case(volume / "missing")
    (volume / "Data" / "123").mkdir(parents=True)
    assert platform.folds_case(volume / "Data" / "123")  # judged at the deepest letters
    (volume / "456").mkdir()
    assert not platform.folds_case(volume / "456")  # ...which here are those of `vol`


def test_a_case_sensitive_volume_with_both_spellings_does_not_fold(tmp_path):
    (tmp_path / "Repo").mkdir()
    (tmp_path / "rEPO").mkdir()  # another directory: its swapped spelling is not the same file
    assert not platform.folds_case(tmp_path / "Repo")
    assert platform.stored_name(tmp_path, "Repo") == "Repo"
    assert platform.stored_name(tmp_path, "repo") is None


def test_stored_name_finds_the_spelling_on_disk(volume):
    (volume / "MyRepo").mkdir()
    assert platform.stored_name(volume, "myrepo") == "MyRepo"
    assert platform.stored_name(volume, "MYREPO") == "MyRepo"
    assert platform.stored_name(volume, "MyRepo") == "MyRepo"
    assert platform.stored_name(volume, "other") is None


def test_on_disk_spells_every_component_as_stored(volume):
    (volume / "Users" / "Me" / "Repo").mkdir(parents=True)
    assert platform.on_disk(volume / "users" / "me" / "REPO") == str(volume / "Users/Me/Repo")
    # What does not exist is kept as given, after the part that does.
    assert platform.on_disk(volume / "USERS" / "new" / "Sub") == str(volume / "Users/new/Sub")


def test_on_disk_costs_two_lstats_a_component_and_lists_only_where_case_folds(
    volume, tmp_path, calls
):
    (tmp_path / "plain" / "Deep").mkdir(parents=True)
    path = tmp_path / "plain" / "Deep"
    assert platform.on_disk(path) == str(path)
    parts = len(path.parts) - 1
    assert len(calls["lstat"]) <= 2 * parts and calls["list"] == []
    calls["lstat"].clear()
    (volume / "Repo").mkdir()
    assert platform.on_disk(volume / "repo") == str(volume / "Repo")
    assert calls["list"] == [str(volume)]  # only the folding directory is listed


def test_on_linux_identity_never_probes(tmp_path, monkeypatch, calls):
    monkeypatch.setattr(platform, "FOLDS_CASE", False)
    repo = make_repo(tmp_path / "Repo")
    assert identity.root_of(str(repo)) == str(repo)
    assert calls == {"lstat": [], "list": []}


# ---- the project root --------------------------------------------------------------------


def test_two_spellings_of_a_repository_give_one_root(volume):
    repo = make_repo(volume / "Users" / "Me" / "Repo")
    (repo / "sub").mkdir()
    for spelled in ("users/me/repo", "USERS/ME/REPO/sub", "Users/Me/Repo"):
        assert identity.root_of(str(volume / spelled)) == str(repo)
        assert identity.git_root_of(str(volume / spelled)) == str(repo)
    assert identity.in_git(Path(identity.root_of(str(volume / "users/me/repo"))))


def test_a_directory_outside_git_gets_its_stored_spelling(volume):
    (volume / "Notes").mkdir()
    assert identity.root_of(str(volume / "notes")) == str(volume / "Notes")


def test_a_linked_worktree_maps_to_the_main_root_as_stored(volume):
    main = make_repo(volume / "Main")
    wt = make_worktree(main, volume / "Work")
    assert identity.root_of(str(volume / "work")) == str(main)
    assert identity.linked_worktree_of(str(volume / "WORK")) == str(wt)


def test_two_spellings_are_one_store_and_one_claude_link(volume, fake_home, capsys):
    from coffer.main import main

    (fake_home / ".claude").mkdir()
    repo = make_repo(volume / "Repo")
    first = coffer("project", cwd=repo)  # the spelling on disk, in a real process
    assert first.returncode == 0, first.stderr
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["project", "--project", str(volume / "rEpO")])  # the same folder, spelled so
    said = capsys.readouterr()
    assert done.value.code == 0, said.err
    assert "refused" not in said.out + said.err
    listed = json.loads((Path(os.environ["COFFER_HOME"]) / "projects.json").read_text())
    roots = listed.get("projects", listed) if isinstance(listed, dict) else listed
    assert list(roots) == [str(repo)], roots  # one store, under the spelling on disk
    links = sorted(p.name for p in (fake_home / ".claude" / "projects").iterdir())
    assert len(links) == 1, links
    assert store().project_tier(repo) == store().project_tier(volume / "REPO")


def test_the_session_start_no_op_keys_both_spellings_alike(volume, fake_home):
    from coffer.projection import fastpath

    (fake_home / ".claude").mkdir()
    repo = make_repo(volume / "Repo")
    assert coffer("project", cwd=repo).returncode == 0
    # The subprocess ran without the simulated volume, on the spelling on disk: its stamp
    # is found from the other spelling too.
    upper = str(volume / "REPO")
    assert fastpath.unchanged(["project", "--hook"], dict(os.environ), upper) == ""


# ---- a real case-insensitive volume ---------------------------------------------------------


@pytest.fixture
def real_folding(tmp_path: Path) -> Path:
    """This host's temporary volume, where it folds case: APFS as macOS formats it and NTFS
    (the hosted macOS and Windows jobs); the simulated volume above stands in elsewhere."""
    if not platform.folds_case(tmp_path):
        pytest.skip("this host's temporary volume is case-sensitive (the simulation covers it)")
    return tmp_path


def test_on_a_real_folding_volume_two_spellings_are_one_project(real_folding, fake_home):
    """Issue 27 point 11 with no simulation: the volume itself finds ``rEpO`` as ``Repo``."""
    (fake_home / ".claude").mkdir()
    repo = make_repo(real_folding / "Repo")
    variant = real_folding / "rEpO"
    assert variant.is_dir() and os.path.samefile(variant, repo)  # the volume folds
    assert identity.root_of(str(variant)) == str(repo)  # spelled as stored
    for project in (repo, variant):
        done = coffer("project", "--project", str(project), cwd=repo)
        assert done.returncode == 0 and "refused" not in done.stdout + done.stderr, done.stderr
    listed = json.loads((Path(os.environ["COFFER_HOME"]) / "projects.json").read_text())
    roots = listed.get("projects", listed) if isinstance(listed, dict) else listed
    assert list(roots) == [str(repo)], roots  # one store, under the spelling on disk
    assert len(list((fake_home / ".claude" / "projects").iterdir())) == 1  # one Claude link
