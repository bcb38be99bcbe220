"""Gemini CLI's private project memory, ``~/.gemini/tmp/<slug>/memory/``, as a SYMLINK target.

Gemini 0.61 loads ``MEMORY.md`` of that directory into every session (even in an untrusted
folder, where no ``GEMINI.md`` is read) and tells the model to keep its private project
notes there: short facts in ``MEMORY.md``, longer ones in sibling ``*.md`` files it reads on
demand. Linked to the project's tier, what Gemini notes is an entry for every agent and the
index Gemini loads is coffer's (docs/adr/0032).

The slug is Gemini's, never computed here: ``ProjectRegistry.getShortId``
(packages/core/src/config/projectRegistry.ts) maps the session's start directory to a slug
in ``~/.gemini/projects.json`` under a proper-lockfile lock, with collision suffixes and
ownership markers (``<base>/<slug>/.project_root`` in ``tmp`` and ``history``) that it checks
before it trusts an entry. coffer reads the entry and checks it the way Gemini does; a root
Gemini has not registered gets nothing (a NONE target saying so): the first ``gemini``
session there registers it, and its session-start hook links it. Gemini keys the directory
by the session's start directory, so each subdirectory of the repository it registered has
one of its own; those are linked to the project tier too.

On Windows Gemini keys the registry, and writes the ownership markers, with the path
lowercased (``normalizePath``: ``path.resolve``, then ``toLowerCase`` where
``os.platform() === 'win32'``), and compares markers after the same step: coffer looks a
root up, and checks a marker, as Gemini normalised it (:func:`_key`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from coffer.adapter import Mode, Target
from coffer.base import platform

# Gemini's own schema for the registry's values (registryDataSchema): anything else makes
# Gemini reset the whole registry, so coffer trusts none of it either.
_SLUG = re.compile(r"[a-z0-9-]+", re.ASCII)
_MARKER = ".project_root"
_MAX_REGISTRY = 4 * 1024 * 1024  # a registry of thousands of projects is a few hundred KiB


def registry(gemini_dir: Path) -> Path:
    return gemini_dir / "projects.json"


def _bases(gemini_dir: Path) -> tuple[Path, Path]:
    # The base directories Gemini keeps ownership markers in (Storage.initialize).
    return gemini_dir / "tmp", gemini_dir / "history"


def _projects(gemini_dir: Path) -> tuple[dict[str, str] | None, str]:
    """Gemini's registry, path to slug, or None and why it cannot be trusted."""
    path = registry(gemini_dir)
    if not os.path.lexists(path):
        return None, f"Gemini has registered no project yet ({path} does not exist)"
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_REGISTRY:
            return None, f"{path} is not a plain file of a sensible size"
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, f"{path} is unreadable or not JSON (Gemini resets such a file)"
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict) or not all(
        isinstance(v, str) and _SLUG.fullmatch(v) is not None for v in projects.values()
    ):
        return None, f"{path} does not have Gemini's shape (Gemini resets such a file)"
    return projects, ""


def _key(path: Path | str) -> str:
    """``path`` as Gemini spells the registry's keys and the markers' owners
    (ProjectRegistry.normalizePath): lowercased on Windows; the root is already absolute."""
    text = str(path)
    return text.lower() if platform.SYSTEM == "win32" else text


def _registered_paths(projects: dict[str, str], root: Path) -> list[tuple[Path, str]]:
    """The registered paths at or below ``root``, each as a path to it from ``root`` (a
    key lowercased on Windows names the same directory there: the volume ignores case)."""
    base = _key(root)
    out: list[tuple[Path, str]] = []
    for key, slug in sorted(projects.items()):
        if key == base:
            out.append((root, slug))
        elif key.startswith(base.rstrip(os.sep) + os.sep):
            out.append((root / key[len(base.rstrip(os.sep)) + 1 :], slug))
    return out


def _registered(gemini_dir: Path, root: Path) -> tuple[str | None, str]:
    """The slug ``projects.json`` gives ``root``, or None and why there is none."""
    projects, why = _projects(gemini_dir)
    if projects is None:
        return None, why
    slug = projects.get(_key(root))
    if slug is None:
        return (
            None,
            f"Gemini has not registered {root} ({registry(gemini_dir)} has no entry for it)",
        )
    return slug, ""


def _inside(path: Path, root: Path) -> bool:
    """``path`` is a directory below ``root`` of the same repository: no ``.git`` (a nested
    repository, a worktree) on the way up to ``root``."""
    if root not in path.parents:
        return False
    probe = path
    while probe != root:
        if os.path.lexists(probe / ".git"):
            return False
        probe = probe.parent
    return True


def _owner_problem(gemini_dir: Path, slug: str, root: Path) -> str:
    """Why the slug's directories are not ``root``'s (Gemini's verifySlugOwnership), or
    why coffer will not follow them; "" when they are fine."""
    for base in _bases(gemini_dir):
        for probe in (base, base / slug):
            if platform.link_at(probe):  # a junction too: lstat shows it as a directory
                return (
                    f"{probe} is a symlink or junction; coffer does not follow links in "
                    "Gemini's directories"
                )
        marker = base / slug / _MARKER
        if not os.path.lexists(marker):
            continue  # Gemini accepts a missing marker (and writes it)
        try:
            if marker.is_symlink() or not marker.is_file():
                return f"{marker} is not a plain file"
            owner = marker.read_text(encoding="utf-8").strip()
        except (OSError, ValueError):
            return f"{marker} is unreadable"
        if _key(owner) != _key(root):
            return f"{marker} says the slug {slug!r} belongs to {owner}, not {root}"
    return ""


def _link(gemini_dir: Path, slug: str) -> Path:
    return _bases(gemini_dir)[0] / slug / "memory"


def target(gemini_dir: Path, root: Path) -> Target:
    """The SYMLINK target of ``root``'s private memory directory, or a NONE target saying
    why there is none yet."""
    slug, why = _registered(gemini_dir, root)
    if slug is not None:
        why = _owner_problem(gemini_dir, slug, root)
        if not why:
            # no note: `coffer project` prints a link's note at every run
            return Target("project", Mode.SYMLINK, _link(gemini_dir, slug))
    note = (
        f"Gemini's private project memory is not linked: {why}. Gemini registers a project "
        "when a session starts there; start `gemini` in the project root once and the next "
        "`coffer project` (its session-start hook) links it"
    )
    return Target("project", Mode.NONE, registry(gemini_dir), note=note, active=False)


def subdirectory_targets(gemini_dir: Path, root: Path) -> list[Target]:
    """A SYMLINK for each subdirectory of the project Gemini registered (a session started
    there has a slug, and a private memory, of its own), checked like the root's; one whose
    entry or markers do not hold up is left out."""
    projects, _ = _projects(gemini_dir)
    out: list[Target] = []
    for where, slug in _registered_paths(projects or {}, root):
        if not _inside(where, root) or _owner_problem(gemini_dir, slug, where):
            continue
        out.append(Target("project", Mode.SYMLINK, _link(gemini_dir, slug)))
    return out


def inputs(gemini_dir: Path, root: Path) -> list[Path]:
    """What can change the targets: the registry, and the project's slugs' directories and
    markers."""
    files = [registry(gemini_dir), *_bases(gemini_dir)]
    projects, _ = _projects(gemini_dir)
    for where, slug in _registered_paths(projects or {}, root):
        if where == root or _inside(where, root):
            for base in _bases(gemini_dir):
                files += [base / slug, base / slug / _MARKER]
    return files
