"""Where a command runs, resolved once (docs/adr/0026).

A front end turns the directory it was given (the cwd, ``--project``, an MCP client's root)
into a :class:`Here` with one walk up the tree, and hands that value down: the store's tier
lookups, the engine's entry points and the fast-path stamp all read it instead of resolving
the path again. Refusals are kept, not raised, so a command that reads only the global tier
never fails on a directory that is no project; each accessor raises exactly what the old
per-call resolution raised at that point.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from coffer.base import identity
from coffer.base.errors import CofferError, InvalidInputError, NotAProjectError
from coffer.store import projects


class Here(NamedTuple):
    """The resolved place: ``path`` (absolute), its canonical root ``key`` (the git root, or
    the directory itself outside git) and what the store decided about that root."""

    path: Path
    key: str
    exists: bool
    nowhere: bool  # the filesystem root or the home directory: they hold projects
    refusal: CofferError | None  # why ``key`` cannot be a project root at all
    invited: bool  # a git root, or a directory `coffer init` opted in
    invite_error: CofferError | None = None  # the settings could not be read

    @classmethod
    def resolve(cls, at: Path, home: Path, invited: Callable[[Path], bool]) -> Here:
        """Walk up from ``at`` once; ``invited`` is the store's say on a root outside git."""
        key = identity.root_of(os.fspath(at))
        root = Path(key)
        refusal: CofferError | None = None
        try:
            projects.check_project_root(root, home)
        except CofferError as exc:
            refusal = exc
        is_invited, invite_error = False, None
        try:
            is_invited = invited(root)
        except CofferError as exc:
            invite_error = exc
        nowhere = projects.not_a_project(root, home)
        return cls(at, key, at.exists(), nowhere, refusal, is_invited, invite_error)

    @property
    def candidate(self) -> Path:
        return Path(self.key)

    def _check_exists(self) -> None:
        if not self.exists:
            raise InvalidInputError(f"{self.path} does not exist")

    def _is_invited(self) -> bool:
        if self.invite_error is not None:
            raise self.invite_error
        return self.invited

    @property
    def project(self) -> Path | None:
        """The project root, or None where only the global tier applies (the home
        directory, ``/``, a directory outside git not opted in). Other bad paths raise."""
        self._check_exists()
        if self.nowhere or not self._is_invited():
            return None
        if self.refusal is not None:
            raise self.refusal
        return self.candidate

    def require(self) -> Path:
        """The project root; refuses ``/``, the home directory and a directory outside git
        the user has not opted in."""
        root = self.any_root()
        if not self._is_invited():
            raise NotAProjectError(
                f"{root} is not in a git repository, so it is not a coffer project; "
                "`coffer init` there makes it one"
            )
        return root

    def any_root(self) -> Path:
        """The root even if not opted in: undoing what coffer once wrote there needs no
        invitation. Refuses ``/``, the home directory and a missing path."""
        self._check_exists()
        if self.refusal is not None:
            raise self.refusal
        return self.candidate
