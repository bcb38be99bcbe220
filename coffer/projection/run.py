"""What a projection kind is handed: the values of one run, never the engine.

:class:`Run` is one `coffer project` (or refresh, or audit) as every kind's ``establish``
and ``state`` see it; :class:`Undo` is one `coffer unproject` as every kind's ``undo`` sees
it. The engine resolves them and passes them down, so a kind never calls back up into it.
Their own module, so that coffer.projection.kinds and the team kind (coffer.projection.team),
which kinds' table names, can both type their runs without importing each other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Context, NativeMemory
from coffer.projection.journal import Journal

if TYPE_CHECKING:
    from coffer.projection.agents import AgentSet
    from coffer.store import Entry, Store, Tier


class Run(NamedTuple):
    """One `coffer project` (or refresh, or audit) run, as every kind sees it: the values
    the engine resolved for it, passed down, so a kind never calls back into the engine."""

    store: Store
    journal: Journal
    ctx: Context
    tiers: Mapping[str, Tier | None]
    entries: Mapping[str, list[Entry]] = MappingProxyType({})
    # The project roots whose blocks git may see (`coffer project --git-block commit`).
    git_commit: Collection[str] = frozenset()
    # One change outside the store (AgentSet.step: a hook past its deadline stops before it).
    step: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext
    dry_run: bool = False
    replace_edited: bool = False
    # A dry run's merges, by tier: the entries they would add, which the real run's blocks
    # (rendered after its merges) show, so the dry run's blocks show them too.
    incoming: Mapping[str, list[Entry]] = MappingProxyType({})


def run_of(
    agents: AgentSet,
    ctx: Context,
    tiers: Mapping[str, Tier | None],
    entries: Mapping[str, list[Entry]] = MappingProxyType({}),
    *,
    dry_run: bool = False,
    replace_edited: bool = False,
) -> Run:
    """The run over ``agents``' store, with what its kinds need read off them once."""
    deadline = agents.deadline
    return Run(
        agents.store,
        agents.journal,
        ctx,
        tiers,
        entries,
        frozenset(agents.settings.git_commit),
        deadline.step if deadline is not None else contextlib.nullcontext,
        dry_run,
        replace_edited,
    )


class Undo(NamedTuple):
    """One `coffer unproject` run, as every kind sees it."""

    journal: Journal
    # An adapter's own memory as the adapter describes it now (None: no such adapter any
    # more), which a native record's undo puts back; resolved by coffer.projection.unproject
    # and asked only when such a record is undone.
    native_of: Callable[[str], NativeMemory | None]
    dry_run: bool = False
    force: bool = False
