"""The store's values: a tier, and what reading or writing an entry returns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from coffer.store.entry import Entry
    from coffer.store.projects import ProjectInfo

Scope = Literal["project", "global"]


SCOPES: tuple[Scope, ...] = ("project", "global")


# The store's values are NamedTuples, not dataclasses: every read command creates them, and a
# frozen dataclass costs half a millisecond to define on 3.11 (docs/adr/0023).
class Tier(NamedTuple):
    """One tier of the store: the global one or a project's."""

    scope: Scope
    info: ProjectInfo
    base: Path

    @property
    def dir(self) -> Path:
        """The directory holding the entries and MEMORY.md, and nothing else."""
        return self.base / "memory"

    @property
    def lock_file(self) -> Path:
        """The tier's write lock, shared by every coffer process (coffer.store.Store.lock)."""
        return self.base / ".lock"

    @property
    def label(self) -> str:
        return "global" if self.scope == "global" else self.info.label

    @property
    def root(self) -> Path | None:
        """The project's root directory (what anchors are relative to); None for global."""
        return Path(self.info.root) if self.scope == "project" and self.info.root else None

    @property
    def key(self) -> str:
        """How settings name this tier: the project's root, or ``global``."""
        return "global" if self.scope == "global" else self.info.root


class Saved(NamedTuple):
    tier: Tier
    entry: Entry
    action: Literal["created", "updated", "unchanged"]


class Found(NamedTuple):
    tier: Tier
    entry: Entry
    score: float = 0.0

    @property
    def path(self) -> Path:
        return self.tier.dir / self.entry.filename
