"""Scope roots, trusted boundaries, containment and guards (docs/vault-format.md §6.1–§6.4)."""

# Paths stay `str` with os/os.path on purpose: the rules mirror Node's `path` semantics
# (lexical resolve, relative, realpath of a prefix) and the walk handles thousands of entries.

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping

from coffer.vault.errors import VaultError
from coffer.vault.validate import SCOPES, enum_value, non_empty_string, unique_list

DEFAULT_RECALL_SCOPES = ("project", "team")


class Roots:
    """Absolute scope roots and their hidden trusted boundaries (§6.2 steps 6–7).

    Immutable. A plain class, not a dataclass: importing dataclasses costs ~7 ms of every
    `coffer vault` command (docs/adr/0011).
    """

    __slots__ = ("boundaries", "project", "team", "user")
    project: str
    team: str
    user: str
    boundaries: Mapping[str, str] | None

    def __init__(
        self, project: str, team: str, user: str, boundaries: Mapping[str, str] | None
    ) -> None:
        for name, value in (
            ("project", project),
            ("team", team),
            ("user", user),
            ("boundaries", boundaries),
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Roots is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Roots is immutable; cannot delete {name!r}")

    def _fields(self) -> tuple[object, ...]:
        return (self.project, self.team, self.user, self.boundaries)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Roots):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Roots(project={self.project!r}, team={self.team!r}, user={self.user!r}, "
            f"boundaries={self.boundaries!r})"
        )

    def root(self, scope: str) -> str:
        return {"project": self.project, "team": self.team, "user": self.user}[scope]

    def as_dict(self) -> dict[str, str]:
        return {"project": self.project, "team": self.team, "user": self.user}


def resolve_path(base: str, path: str) -> str:
    """Node's ``path.resolve(base, path)``: absolute and lexically normalized, no symlinks."""
    joined = os.path.normpath(os.path.join(base, path))
    # POSIX normpath keeps a leading "//"; Node collapses it.
    if joined.startswith("//"):
        joined = "/" + joined.lstrip("/")
    return joined


def _override(env: Mapping[str, str], name: str, cwd: str) -> str | None:
    value = env.get(name, "")
    if value == "":
        return None
    trimmed = non_empty_string(value, "memory root override", 4096)
    return resolve_path(cwd, trimmed)


def _home(env: Mapping[str, str]) -> str:
    for name in ("HOME", "USERPROFILE"):
        value = env.get(name, "")
        if value:
            return value
    return os.path.expanduser("~")


def find_project_root(cwd: str) -> str:
    """Nearest of ``cwd`` and its ancestors holding a ``.git`` entry, else ``cwd`` (§6.2)."""
    current = cwd
    while True:
        # exists() follows symlinks: a dangling .git symlink does not count.
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return cwd
        current = parent


def resolve_roots(cwd: str | None = None, env: Mapping[str, str] | None = None) -> Roots:
    """§6.2: resolve the three scope roots once per command from ``cwd`` and ``env``."""
    env = os.environ if env is None else env
    cwd = resolve_path(os.getcwd(), cwd) if cwd is not None else os.getcwd()
    home = resolve_path(cwd, _home(env))
    project_root = find_project_root(cwd)
    project_override = _override(env, "ECC_MEMORY_PROJECT_ROOT", cwd)
    user_override = _override(env, "ECC_MEMORY_USER_ROOT", cwd)
    project_vault = project_override or os.path.join(project_root, ".ecc", "memory")
    user_vault = user_override or os.path.join(home, ".ecc", "memory")
    project_boundary = canonical(project_vault) if project_override else project_root
    user_boundary = canonical(user_vault) if user_override else home
    return Roots(
        project=os.path.join(project_vault, "project"),
        team=os.path.join(project_vault, "team"),
        user=user_vault,
        boundaries={"project": project_boundary, "team": project_boundary, "user": user_boundary},
    )


def canonical(path: str) -> str:
    """§6.3: the canonical path of ``path``, even when it does not exist yet."""
    current = resolve_path(os.getcwd(), path)
    stripped: list[str] = []
    while True:
        try:
            os.lstat(current)
            break
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                raise
        parent, name = os.path.split(current)
        if parent == current:
            break
        stripped.append(name)
        current = parent
    resolved = os.path.realpath(current, strict=True)
    for name in reversed(stripped):
        resolved = os.path.join(resolved, name)
    return resolved


def is_within(target: str, root: str) -> bool:
    """The §6.3 relative-path test on two already canonical paths."""
    if target.startswith(root) and (
        len(target) == len(root) or target[len(root)] == "/" or root == "/"
    ):
        return True  # the common case, decided without os.path.relpath
    rel = os.path.relpath(target, root)
    if rel == ".":
        return True
    return rel != ".." and not rel.startswith("../") and not os.path.isabs(rel)


def contained(target: str, root: str) -> bool:
    """§6.3: any failure while canonicalizing means "not contained"."""
    try:
        return is_within(canonical(target), canonical(root))
    except (OSError, ValueError):
        return False


def assert_contained(target: str, root: str, action: str) -> None:
    """§6.3 assertContained; messages show the paths as given, not canonical."""
    if not target:
        raise VaultError(f"Refusing to {action}: missing destination path.")
    if not root:
        raise VaultError(f"Refusing to {action} '{target}': no trusted install root resolved.")
    if not contained(target, root):
        raise VaultError(
            f"Refusing to {action} outside the install root: '{target}' is not within '{root}'."
        )


def _is_symlink(path: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def guard_scope_root(roots: Roots, scope: str) -> str:
    """§6.4 scope root guard; returns the root. Runs before any read, walk or write."""
    if roots.boundaries is None:
        raise VaultError("Memory roots must include a trusted boundary policy.")
    root = roots.root(scope)
    if not root:
        raise VaultError(f'No memory root is configured for scope "{scope}".')
    boundary = roots.boundaries.get(scope)
    if not boundary:
        raise VaultError(f'No trusted boundary policy is configured for memory scope "{scope}".')
    assert_contained(root, boundary, "access memory through a symlink")
    if os.path.exists(root) and _is_symlink(root):
        raise VaultError(f"Refusing to access memory through symlink root: {root}")
    return root


def guard_kind_dir(root: str, kind: str) -> str:
    """§6.4 kind directory guard for ``<root>/<kind>s``; returns the directory."""
    directory = os.path.join(root, f"{kind}s")
    assert_contained(directory, root, "access memory directory")
    if os.path.exists(directory) and _is_symlink(directory):
        raise VaultError(f"Refusing to access memory through symlink directory: {directory}")
    return directory


def normalize_scopes(scopes: object) -> list[str]:
    """§7.1 scope list: default project+team; a string is a one-element list; [] is valid."""
    if scopes is None:
        return list(DEFAULT_RECALL_SCOPES)
    if isinstance(scopes, str):
        scopes = [scopes]
    return unique_list(scopes, "scopes", 3, lambda item: enum_value(item, "memory scope", SCOPES))


def vault_path(scope: str, root: str, path: str) -> str:
    """``<scope>:<path relative to the scope root, "/"-separated>`` (§3.3)."""
    rel = os.path.relpath(path, root)
    if os.sep != "/":
        rel = rel.replace(os.sep, "/")
    return f"{scope}:{rel}"
