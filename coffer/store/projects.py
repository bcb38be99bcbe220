"""The project list: which canonical root path owns which store id.

``<root>/projects.json`` maps project root paths to ids (one small read on every
``coffer project``); ``projects/<id>/project.json`` describes each project so the store is
legible when browsed by hand. Users see the root path and folder name, never only the id.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base import fsutil
from coffer.base.errors import NotAProjectError, ProjectError, StoreError
from coffer.base.identity import git_remote, in_git
from coffer.store.ulid import GLOBAL_ID, new_id

if TYPE_CHECKING:
    from typing import Any

PROJECT_LIST = "projects.json"


class ProjectInfo(NamedTuple):
    """A project known to the store."""

    id: str
    root: str
    name: str
    remote: str | None
    created_at: str
    root_commit: str | None = None  # git's root commit(s): who this repository is
    moved_from: tuple[str, ...] = ()  # earlier roots, newest last (the project followed)

    @property
    def label(self) -> str:
        """How a project is shown to people: folder name and full path."""
        return f"{self.name} ({self.root})"


GLOBAL = ProjectInfo(GLOBAL_ID, "", "global", None, "")


def now_iso() -> str:
    """Now in UTC, to the second: ``2026-12-02T02:30:00+00:00``."""
    import datetime

    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


def read_project_list(store_root: Path) -> dict[str, str]:
    """``{root path: id}``; an absent list is empty, a corrupt one is an error."""
    data = fsutil.read_bytes_or_none(store_root / PROJECT_LIST)
    if data is None:
        return {}
    try:
        parsed = json.loads(data)
        projects = parsed["projects"]
        if not isinstance(projects, dict):
            raise TypeError
        return {str(k): str(v) for k, v in projects.items()}
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"{store_root / PROJECT_LIST} is corrupt; `coffer doctor --rebuild-projects` rebuilds "
            "it from projects/*/project.json (the damaged file is kept)"
        ) from exc


def _write_project_list(store_root: Path, mapping: dict[str, str]) -> None:
    payload = {"version": 1, "projects": dict(sorted(mapping.items()))}
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    fsutil.write_if_changed(store_root / PROJECT_LIST, text.encode("utf-8"))


def load_info(store_root: Path, project_id: str) -> ProjectInfo | None:
    if project_id == GLOBAL_ID:
        return GLOBAL
    data = fsutil.read_bytes_or_none(store_root / "projects" / project_id / "project.json")
    if data is None:
        return None
    try:
        raw: dict[str, Any] = json.loads(data)
        return ProjectInfo(
            id=project_id,
            root=str(raw["root"]),
            name=str(raw.get("name") or Path(raw["root"]).name),
            remote=raw.get("remote"),
            created_at=str(raw.get("created_at", "")),
            root_commit=raw.get("root_commit"),
            moved_from=tuple(str(x) for x in raw.get("moved_from") or ()),
        )
    except (ValueError, KeyError, TypeError):
        return None


def not_a_project(root: Path, home: Path) -> bool:
    """The filesystem root and the home directory hold projects; they are not one."""
    return root.parent == root or os.path.realpath(home) == str(root)


def check_project_root(root: Path, home: Path) -> None:
    """Refuse roots that are not projects: the filesystem root and the home directory."""
    if root.parent == root:
        raise NotAProjectError(f"{root} is the filesystem root, not a project; cd into a project")
    if os.path.realpath(home) == str(root):
        raise NotAProjectError(f"{root} is your home directory, not a project; cd into a project")
    if not root.is_dir():
        raise ProjectError(f"{root} is not a directory")


def root_commit(root: Path) -> str | None:
    """The root commit(s) of the repository at ``root``, or None (not git, no commit yet,
    no git installed). Asked of git itself, once, when a project is registered or may
    have moved: never on the no-op path of ``coffer project``."""
    if not in_git(root):
        return None
    # Imported here: subprocess costs ~4 ms, and reads never ask git (ADR 0023).
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None:
        return None
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(root.parent)}
    for var in ("GIT_DIR", "GIT_WORK_TREE"):
        env.pop(var, None)
    try:
        done = subprocess.run(
            [git, "-C", str(root), "rev-list", "--max-parents=0", "HEAD"],
            capture_output=True,
            timeout=5,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commits = sorted(done.stdout.decode("ascii", "replace").split())
    return " ".join(commits) if done.returncode == 0 and commits else None


def _same_repository(info: ProjectInfo, root: Path, commit: str | None) -> bool:
    # Two clones of one repository share both root commit and remote; only the old root
    # being gone (checked by the caller) tells a move from a second clone.
    if info.root_commit and commit:
        return info.root_commit == commit
    return bool(info.remote) and info.remote == git_remote(root)


def moved_here(store_root: Path, root: Path) -> ProjectInfo | None:
    """The registered project that moved to ``root`` (a root coffer does not know yet): the
    one whose root no longer exists and whose repository is this one, by root commit or,
    without one, by ``origin`` remote. None if no project, or more than one, qualifies."""
    if not in_git(root):
        return None  # a directory outside git has nothing that says who it is
    commit: str | None = None
    asked = False
    found: list[ProjectInfo] = []
    for old, project_id in read_project_list(store_root).items():
        if os.path.lexists(old) or old == str(root):
            continue
        info = load_info(store_root, project_id)
        if info is None:
            continue
        if info.root_commit and not asked:
            commit, asked = root_commit(root), True
        if _same_repository(info, root, commit):
            found.append(info)
    return found[0] if len(found) == 1 else None


def _write_info(store_root: Path, info: ProjectInfo) -> None:
    meta = {k: v for k, v in info._asdict().items() if k != "id"}
    meta["moved_from"] = list(info.moved_from)
    path = store_root / "projects" / info.id / "project.json"
    fsutil.atomic_write_text(path, json.dumps(meta, indent=2) + "\n")


def follow(store_root: Path, root: Path) -> ProjectInfo | None:
    """If the project at ``root`` is a registered project that moved here, give it this
    root (same id, same memories) and return it; the caller holds the store-wide lock and
    moves the journal records along (docs/adr/0021)."""
    info = moved_here(store_root, root)
    if info is None:
        return None
    moved = info._replace(
        root=str(root),
        name=root.name,
        remote=git_remote(root) or info.remote,
        root_commit=info.root_commit or root_commit(root),
        moved_from=(*info.moved_from, info.root),
    )
    _write_info(store_root, moved)  # first: a crash leaves the old key on the right id
    known = read_project_list(store_root)
    known.pop(info.root, None)
    known[str(root)] = info.id
    _write_project_list(store_root, known)
    return moved


def register(store_root: Path, root: Path) -> ProjectInfo:
    """Return the project for ``root``, creating its id and directories on first use, or
    following a project that moved here.

    The caller holds the store-wide lock.
    """
    return registration(store_root, root)[0]


def registration(store_root: Path, root: Path) -> tuple[ProjectInfo, bool]:
    """:func:`register`, and whether it created the project (the one moment a project
    begins on this machine: not when it was known, nor when it followed a move)."""
    try:
        str(root).encode("utf-8")
    except UnicodeEncodeError:
        # projects.json and every journal record name the root in UTF-8.
        shown = os.fsencode(root).decode("utf-8", "backslashreplace")
        raise ProjectError(
            f"the project path {shown} is not valid UTF-8 (a name in another encoding); "
            "coffer records project paths as UTF-8: rename the directory"
        ) from None
    known = read_project_list(store_root)
    key = str(root)
    existing = known.get(key)
    if existing:
        info = load_info(store_root, existing)
        if info is not None:
            return info, False
    else:
        moved = follow(store_root, root)
        if moved is not None:
            return moved, False
    project_id = existing or new_id()
    info = ProjectInfo(project_id, key, root.name, git_remote(root), now_iso(), root_commit(root))
    fsutil.ensure_dir(store_root / "projects" / project_id / "memory")
    _write_info(store_root, info)
    known[key] = project_id
    _write_project_list(store_root, known)
    return info, True


def all_projects(store_root: Path) -> list[ProjectInfo]:
    """Every registered project (not the global tier), sorted by root path."""
    out = []
    for _root, project_id in sorted(read_project_list(store_root).items()):
        info = load_info(store_root, project_id)
        if info is not None:
            out.append(info)
    return out


def rebuild_project_list(store_root: Path) -> dict[str, str]:
    """Rebuild ``projects.json`` from every ``projects/<id>/project.json``.

    The current file, damaged or not, is kept beside it as ``projects.json.<time>.bak``.
    The caller holds the store-wide lock.
    """
    import time

    mapping: dict[str, str] = {}
    base = store_root / "projects"
    for child in sorted(base.iterdir()) if base.is_dir() else []:
        if child.name == GLOBAL_ID:
            continue
        info = load_info(store_root, child.name)
        if info is not None:
            # Two ids claiming one root: keep the older (ULIDs sort by creation time).
            mapping.setdefault(info.root, info.id)
    current = fsutil.read_bytes_or_none(store_root / PROJECT_LIST)
    if current is not None:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        fsutil.atomic_write_bytes(store_root / f"{PROJECT_LIST}.{stamp}.bak", current)
    _write_project_list(store_root, mapping)
    return mapping
