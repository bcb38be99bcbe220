"""The composition root: how every front end gets its store, engine and handoff source.

The CLI, ``coffer watch`` and the MCP server each used to build a ``Store``, load the
adapters and wire the vault's handoff source into an ``Engine`` by hand; now they ask an
:class:`App`, so the three are built the same way (docs/adr/0026). Everything is built on
first use: ``coffer where`` gets a store without importing the engine or any adapter, and a
process that builds several engines (the watcher, after a settings change) loads the
adapters once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from coffer.adapter.registry import Loaded
    from coffer.projection.engine import Engine
    from coffer.projection.writes import Writer
    from coffer.store import Here, Store


class App:
    """The parts of coffer one process uses, for one environment."""

    def __init__(self, environ: Mapping[str, str], store: Store | None = None) -> None:
        self.environ = environ
        self._store = store
        self._loaded: Loaded | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            from coffer.store import Store

            self._store = Store.from_environ(self.environ)
        return self._store

    @property
    def store_root(self) -> Path:
        """Where the store is, without building a :class:`Store` (`coffer watch --status`
        needs no more)."""
        if self._store is not None:
            return self._store.root
        from coffer.store.paths import store_root

        return store_root(self.environ)

    def adapters(self) -> Loaded:
        """The installed adapters, loaded once per process."""
        if self._loaded is None:
            from coffer.adapter import registry

            self._loaded = registry.load_adapters(self.environ)
        return self._loaded

    def engine(self) -> Engine:
        """A projection engine over the store, with the vault's handoff source. A new one
        each call (it reads the settings when built); the adapters are loaded once."""
        from coffer.projection.engine import Engine
        from coffer.projection.integrations import handoff_source

        return Engine(self.store, self.environ, self.adapters(), handoffs=handoff_source())

    def writer(self) -> Writer:
        """Store writes that also refresh what agents read (coffer.projection.writes)."""
        from coffer.projection.writes import Writer

        return Writer(self.store, self.engine)

    def here(self, path: Path) -> Here:
        """Where a command runs, resolved once (docs/adr/0026)."""
        return self.store.here(path)

    def vault_written(self, at: Path) -> None:
        """The vault wrote under ``at``'s project: keep its repo-local project scope out of
        ``git status`` (docs/adr/0040). Never fails the vault command that called it."""
        from coffer.base.errors import CofferError
        from coffer.projection.git import hiding
        from coffer.projection.journal import Journal

        try:
            root = self.here(at).project
            if root is not None:
                with self.store.projection_lock():
                    hiding.hide_vault(Journal(self.store.root), root)
        except (CofferError, OSError):
            pass  # the line is added by the next `coffer project`


def run_vault(argv: list[str]) -> int:
    """The `coffer vault` command: the ecc memory CLI, the one route into it (``coffer.main``
    calls it before typer loads; typer's `vault` entry, for help and completion, hands
    anything it gets to it too). It speaks as
    `coffer vault` (usage, error prefix); files and JSON are the reference's. After a
    write, the vault's repo-local project scope is kept out of ``git status``
    (docs/adr/0040)."""
    import os
    from pathlib import Path

    from coffer.vault.cli import COFFER, WRITE_COMMANDS, run

    code = run(argv, program=COFFER)
    if code == 0 and argv[:1] and argv[0] in WRITE_COMMANDS:
        App(os.environ).vault_written(Path.cwd())
    return code
