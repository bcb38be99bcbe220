"""What every adapter repeats, written once: where the agent keeps its files, whether it is
installed, reading its config without ever crashing on a damaged one, and the project tier
that exists only inside a project.

Everything here is read-only and takes the adapter's Context, so an adapter built on it
keeps the contract's rules for free (never ``os.environ`` or ``Path.home()``, planning never
writes). Imported by adapters, never on the no-op path (docs/adr/0025).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import Context, Target

if TYPE_CHECKING:
    from typing import Any


def env_dir(ctx: Context, name: str, default: Path, *, expand: bool = True) -> Path:
    """The directory environment variable ``name`` names (``~`` expanded unless ``expand``
    is false, for agents that take the value as it is), else ``default``. A blank value
    counts as unset."""
    value = ctx.environ.get(name, "").strip()
    if not value:
        return default
    return Path(value).expanduser() if expand else Path(value)


def xdg_config(ctx: Context) -> Path:
    """``$XDG_CONFIG_HOME`` (taken as it is), else ``~/.config``."""
    return env_dir(ctx, "XDG_CONFIG_HOME", ctx.home / ".config", expand=False)


def on_path(ctx: Context, executable: str) -> bool:
    """Whether ``executable`` is on the context's PATH (not the process's)."""
    return shutil.which(executable, path=ctx.environ.get("PATH", "")) is not None


def detected_by(
    config_dir: Callable[[Context], Path], executable: str
) -> Callable[[Context], bool]:
    """A ``detect``: the agent counts as installed when its config directory exists or
    ``executable`` is on PATH (the directory first: it costs one stat)."""

    def detect(ctx: Context) -> bool:
        return config_dir(ctx).is_dir() or on_path(ctx, executable)

    return detect


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object file's content; ``{}`` when it is missing, unreadable, damaged or not
    an object. A user's broken config makes an agent look unconfigured, never crashes."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_toml(path: Path, *, mentions: bytes = b"") -> dict[str, Any]:
    """A TOML file's content; ``{}`` when it is missing, unreadable or damaged, or when it
    does not contain the bytes ``mentions`` at all: a guard that keeps the TOML parser (tens
    of milliseconds to import) out of the runs that cannot need it."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if mentions not in data:
        return {}
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def per_tier(
    ctx: Context,
    project: Callable[[Path], Target] | None = None,
    global_: Target | None = None,
) -> Sequence[Target]:
    """``targets`` for the usual shape: ``project(root)`` only inside a project (the
    no-project case every adapter has), then the global target."""
    out: list[Target] = []
    if project is not None and ctx.project is not None:
        out.append(project(ctx.project))
    if global_ is not None:
        out.append(global_)
    return out
