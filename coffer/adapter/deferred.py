"""Adapters left unimported until something more than ``detect`` is asked of them.

Most of the thirty-odd adapters are for agents a given machine does not have, and most of
those are spec adapters (coffer.adapter.spec), whose ``detect`` reads nothing but a
:class:`~coffer.adapter.spec.Presence`: a config directory, a few paths, executables on
PATH. Importing each such module to hear "not installed" was a third of `coffer adapter
list` (docs/adr/0023). So after a run that imported them, the state file of
coffer.adapter.plugins keeps each one's presence with the size and mtime of its module's
files; a later run whose files still match builds a :class:`Deferred` instead. It detects
from the kept presence, and imports the module (then checks it against the contract, as a
first load does) the first time it is asked for targets, inputs, native memory or an
optional member. An adapter whose ``detect`` is its own, or whose files changed, or that
was changed a moment ago, is simply imported.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import Context, Features, NativeMemory, Target, plugins
from coffer.adapter.plugins import Plugin
from coffer.adapter.spec import AgentSpec, Place, Presence
from coffer.adapter.templates import BySystem, Template

if TYPE_CHECKING:
    from typing import Any

    from coffer.adapter import Adapter

Check = Callable[[object], Features]  # coffer.adapter.registry.features


class Deferred:
    """An adapter whose module is imported on first need; ``detect`` never needs it."""

    def __init__(self, plugin: Plugin, name: str, presence: Presence, check: Check) -> None:
        self.NAME = name
        self.plugin = plugin
        self.presence = presence
        self._check = check
        self._loaded: tuple[Adapter, Features] | None = None

    def detect(self, ctx: Context) -> bool:
        return self.presence.detect(ctx)

    def targets(self, ctx: Context) -> Sequence[Target]:
        return self.adapter().targets(ctx)

    def native_memory(self, ctx: Context) -> NativeMemory | None:
        return self.adapter().native_memory(ctx)

    def inputs(self, ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
        return self.adapter().inputs(ctx)

    def adapter(self) -> Adapter:
        """The module itself, imported and checked now if it was not yet."""
        return self._load()[0]

    def features(self) -> Features:
        return self._load()[1]

    def _load(self) -> tuple[Adapter, Features]:
        if self._loaded is None:
            obj = self.plugin.load()
            self._loaded = (obj, self._check(obj))  # raises ContractError, like a first load
        return self._loaded

    def __getattr__(self, attr: str) -> Any:
        # Anything else the module defines (FACTS, wiring, ...), as the module would answer.
        if attr.startswith("__") or attr == "_loaded":
            raise AttributeError(attr)
        return getattr(self.adapter(), attr)

    def __repr__(self) -> str:
        state = "imported" if self._loaded is not None else "not imported"
        return f"<Deferred adapter {self.NAME!r} ({self.plugin.value}, {state})>"


def presence(adapter: object) -> Presence | None:
    """The adapter's presence when its ``detect`` is a spec's, else None."""
    if isinstance(adapter, Deferred):
        return adapter.presence
    detect = getattr(adapter, "detect", None)
    spec = getattr(detect, "__self__", None)
    if isinstance(spec, AgentSpec) and getattr(detect, "__func__", None) is AgentSpec.detect:
        return spec.presence
    return None


# ---- what the state file keeps ---------------------------------------------------------


def _sources(module: str) -> tuple[str, list[str]] | None:
    """The module's package folder ("" for a plain module) and its source files: the
    file, or every module directly in the package. None: not a file-backed module."""
    origin = getattr(sys.modules.get(module), "__file__", None)
    if not isinstance(origin, str):
        return None
    if os.path.basename(origin) != "__init__.py":
        return "", [origin]
    folder = os.path.dirname(origin)
    return folder, _modules_in(folder)


def _modules_in(folder: str) -> list[str]:
    return sorted(e.path for e in os.scandir(folder) if e.name.endswith(".py"))


def _signed(module: str) -> dict[str, Any] | None:
    """{"package", "files": [[path, size, mtime_ns], ...]}; None when a file changed so
    recently that a later change could keep the same mtime (or is not a file at all)."""
    sources = _sources(module)
    if sources is None:
        return None
    files = []
    now = time.time()
    for path in sources[1]:
        try:
            st = os.stat(path)
        except OSError:
            return None
        if now - st.st_mtime <= plugins.RACY_SECONDS:
            return None
        files.append([path, st.st_size, st.st_mtime_ns])
    return {"package": sources[0], "files": files}


def _unchanged(entry: Mapping[str, Any]) -> bool:
    try:
        files = entry["files"]
        for path, size, mtime in files:
            st = os.stat(path)
            if st.st_size != size or st.st_mtime_ns != mtime:
                return False
        package = entry["package"]
        # a package that gained or lost a module since is a changed package
        return not package or _modules_in(package) == [f[0] for f in files]
    except (OSError, KeyError, TypeError, ValueError):
        return False


def record(plugin: Plugin, obj: object) -> dict[str, Any] | None:
    """What to keep of a loaded adapter so the next run can defer it (None: it cannot)."""
    found = presence(obj)
    signed = _signed(plugin.module) if found is not None else None
    if found is None or signed is None:
        return None
    default = found.config.default
    kept = list(default) if isinstance(default, BySystem) else default
    place = [kept, found.config.env, found.config.expand]
    return {
        "value": plugin.value,
        "name": found.name,
        "presence": [place, list(found.installed), list(found.executables)],
        **signed,
    }


def _found_there(entry: Mapping[str, Any], module: str) -> bool:
    """Whether ``module`` is still found at the files ``entry`` signed: after the import
    path changed, a directory earlier on it may now hold a module of the same name."""
    import importlib.util  # only after the import path changed

    try:
        spec = importlib.util.find_spec(module)
    except Exception:  # a parent package that fails to import: import it for real, later
        return False
    origin = getattr(spec, "origin", None)
    if not isinstance(origin, str):
        return False
    files, package = entry.get("files") or [[None]], entry.get("package")
    if package:
        return bool(os.path.dirname(origin) == package)
    return bool(origin == files[0][0])


def deferred(
    plugin: Plugin, kept: Mapping[str, Any], check: Check, *, moved: bool = False
) -> Deferred | None:
    """A :class:`Deferred` for ``plugin`` from what was kept, if that still holds (with
    ``moved``, the import path changed since: the module must still be found there)."""
    entry = kept.get(plugin.name)
    if not isinstance(entry, dict) or entry.get("value") != plugin.value:
        return None
    if not _unchanged(entry) or (moved and not _found_there(entry, plugin.module)):
        return None
    try:
        (default, env, expand), installed, executables = entry["presence"]
        found = Presence(
            str(entry["name"]),
            Place(_template(default), str(env), bool(expand)),
            tuple(str(i) for i in installed),
            tuple(str(e) for e in executables),
        )
    except (KeyError, TypeError, ValueError):
        return None
    return Deferred(plugin, found.name, found, check)


def _template(kept: Any) -> Template:
    """A config default as :func:`record` kept it: a string, or a BySystem's fields."""
    if not isinstance(kept, list):
        return str(kept)
    default, darwin, win32 = kept
    return BySystem(
        str(default), *(v if isinstance(v, str) else tuple(map(str, v)) for v in (darwin, win32))
    )
