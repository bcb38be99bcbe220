"""The adapter contract's Protocol classes, for type checkers and plugin tests.

coffer/adapter/__init__.py describes the contract and re-exports these. The registry
checks an adapter's members itself (coffer.adapter.registry.features), not through
``isinstance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the contract's values, defined beside the package face that re-exports us
    from coffer.adapter import ConfigEdit, Context, Launch, NativeMemory, Target


@runtime_checkable
class Adapter(Protocol):
    """What an adapter module provides (module-level names satisfy it)."""

    # the adapter's name, as used on the command line (`--agent NAME`)
    NAME: str

    # is the agent installed or used on this machine? cheap, read-only
    def detect(self, ctx: Context) -> bool: ...

    # the paths to manage, each with its mode; project targets only when ctx.project is
    # set (coffer.adapter.helpers.per_tier). The modes `coffer adapter list` shows come
    # from here (modes()), so an adapter never declares them twice.
    def targets(self, ctx: Context) -> Sequence[Target]: ...

    # the agent's competing native memory, or None if it has none to manage
    def native_memory(self, ctx: Context) -> NativeMemory | None: ...

    # env variables and files whose change can change targets() (for the no-op check)
    def inputs(self, ctx: Context) -> tuple[Sequence[str], Sequence[Path]]: ...


class Wiring(Protocol):
    """The optional ``wiring`` member: the entries `coffer setup` adds for this agent."""

    def __call__(self, ctx: Context, launch: Launch, /) -> Sequence[ConfigEdit]: ...


class ConfigDir(Protocol):
    """The optional ``config_dir`` member: the agent's config directory for ``ctx`` (what
    ``{config}`` means in the adapter's FACTS; a spec adapter's is its ``Place``)."""

    def __call__(self, ctx: Context, /) -> Path: ...


class SessionFramer(Protocol):
    """The optional ``session_context`` member: hook text as the agent wants it printed."""

    def __call__(self, text: str, /) -> str: ...
