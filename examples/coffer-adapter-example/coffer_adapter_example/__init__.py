"""A complete third-party coffer adapter, for "Example Agent", an imaginary agent that
reads two instruction files and keeps a memory of its own. Copy it to support a new agent.

The agent reads ``<project>/EXAMPLE.md`` and ``~/.example-agent/RULES.md``: coffer renders
its managed block into both (``Mode.RENDER``). The agent also writes what it learns to
``~/.example-agent/memory.md`` while ``memory = on`` in ``~/.example-agent/config``: coffer
imports that file into its global tier once and then switches the agent's memory off, so
the coffer store is the one memory every agent shares; `coffer unproject` turns it back on.

An adapter only describes; coffer's engine does every write, journals it and can undo it.
Test it with ``coffer.testing.AdapterContract`` (see tests/ beside this package).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coffer.adapter import Context, Imported, Mode, NativeMemory, Target
from coffer.adapter.helpers import detected_by, per_tier
from coffer.base.errors import CofferError

NAME = "example"


def agent_dir(ctx: Context) -> Path:
    return ctx.home / ".example-agent"


# Installed when its directory exists or `example-agent` is on PATH.
detect = detected_by(agent_dir, "example-agent")


def targets(ctx: Context) -> Sequence[Target]:
    return per_tier(
        ctx,
        lambda root: Target("project", Mode.RENDER, root / "EXAMPLE.md"),
        Target("global", Mode.RENDER, agent_dir(ctx) / "RULES.md"),
    )


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    # Nothing the targets depend on can change without coffer noticing: no env, no files.
    return (), ()


def native_memory(ctx: Context) -> NativeMemory:
    folder = agent_dir(ctx)
    return NativeMemory(
        config=folder / "config",
        enabled=enabled,
        disable=disable,
        restore=restore,
        imports=lambda: _imports(folder / "memory.md"),
        describe="memory = on",
    )


# ---- the memory switch: pure transformations of the config file's bytes --------------------
# The config is `key = value` lines. Only the `memory` line may change; every other byte stays.

_OFF = b"memory = off  # turned off by coffer; `coffer unproject` restores it\n"


def _memory_line(data: bytes) -> tuple[int, bytes] | None:
    """The index and content of the ``memory = …`` line, if there is one."""
    for i, line in enumerate(data.splitlines(keepends=True)):
        if line.split(b"=", 1)[0].strip() == b"memory":
            return i, line
    return None


def _value(line: bytes) -> str:
    return line.split(b"=", 1)[1].split(b"#", 1)[0].strip().decode("utf-8", "replace")


def enabled(data: bytes | None) -> bool:
    # The agent's default is on: no file, or no memory line, means on.
    found = _memory_line(data or b"")
    return found is None or _value(found[1]) != "off"


def disable(data: bytes | None) -> tuple[bytes, dict[str, Any]]:
    lines = (data or b"").splitlines(keepends=True)
    found = _memory_line(data or b"")
    if found is None:
        ends_line = not lines or lines[-1].endswith(b"\n")
        # Appended; `newline`: coffer also ended the last line, which undo takes back.
        previous = {"line": None, "newline": not ends_line}
        return b"".join([*lines, b"" if ends_line else b"\n", _OFF]), previous
    i, line = found
    lines[i] = _OFF if line.endswith(b"\n") else _OFF.rstrip(b"\n")
    return b"".join(lines), {"line": line.decode("utf-8", "surrogateescape")}


def restore(data: bytes | None, previous: Mapping[str, Any]) -> bytes:
    found = _memory_line(data or b"")
    if found is None or _value(found[1]) != "off":
        raise CofferError("the memory line in the example agent's config changed; left as is")
    lines = (data or b"").splitlines(keepends=True)
    i, _ = found
    before = previous.get("line")
    if before is None:  # coffer added the line: take it (and the newline it needed) away
        last = i == len(lines) - 1
        del lines[i]
        out = b"".join(lines)
        return out[:-1] if last and previous.get("newline") and out.endswith(b"\n") else out
    lines[i] = str(before).encode("utf-8", "surrogateescape")
    return b"".join(lines)


def _imports(memory: Path) -> Sequence[Imported]:
    try:
        text = memory.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ()
    if not text:
        return ()
    return [Imported("example-memory", "What Example Agent remembered", text, str(memory))]
