"""Helpers for an adapter's ``native_memory``: reading an agent's own memory files for import,
the way coffer reads its own store. Names no agent (docs/adr/0032).

An agent's memory folder is the user's data and may hold anything: a symlink out of it could
copy any file the user can read into every global block, a FIFO would block the read, a huge
file would flood the store. So a file is imported only when it and every directory on the way
down from the folder is a plain file or directory, and its text is capped; what is refused is
returned as a refused :class:`coffer.adapter.Imported`, which keeps the agent's memory on
(switching it off would hide that item). :func:`import_only` describes a memory coffer copies
but has no switch to turn off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import Imported, NativeMemory
from coffer.base import fsutil, platform
from coffer.base.errors import CofferError

if TYPE_CHECKING:
    from typing import Any

MAX_IMPORT = 30_000  # bytes of one imported item; the rest stays in the agent's file
_MAX_FILES = 2_000  # files listed under one memory folder


def link_in(root: Path, path: Path) -> Path | None:
    """The first link (a symlink, or a junction on Windows, which lstat shows as a plain
    directory) on the way from ``root`` (included) down to ``path``, if any."""
    probe = root
    if platform.link_at(probe):
        return probe
    for part in path.relative_to(root).parts:
        probe = probe / part
        if platform.link_at(probe):
            return probe
    return None


def refused_link(name: str, description: str, path: Path, link: Path, agent: str) -> Imported:
    why = (
        f"not imported: {link} is a symlink or junction; coffer does not follow links out of "
        f"{agent}'s memory folder (replace it with the file itself)"
    )
    return Imported(name, description, "", str(path), refused=why)


def read_text(path: Path) -> str | None:
    """A memory file's text, stripped and capped at :data:`MAX_IMPORT` bytes; None for
    what is not a regular file, unreadable or empty."""
    if not path.is_file():  # never open a FIFO or a device: it could block
        return None
    try:
        data = fsutil.read_bytes_or_none(path)
    except (OSError, CofferError):
        return None
    text = (data or b"").decode("utf-8", errors="replace").strip()
    if not text:
        return None
    if len(text.encode()) > MAX_IMPORT:
        cut = text.encode()[:MAX_IMPORT].decode("utf-8", "ignore")
        text = f"{cut}\n\n(truncated by coffer; the full text is in {path})"
    return text


def import_file(root: Path, path: Path, name: str, description: str, agent: str) -> Imported | None:
    """``path`` (below the memory folder ``root``) as one item; None when there is nothing
    to import."""
    link = link_in(root, path)
    if link is not None:
        return refused_link(name, description, path, link, agent)
    text = read_text(path)
    return Imported(name, description, text, str(path)) if text is not None else None


def markdown_files(root: Path, agent: str) -> list[Path | Imported]:
    """Every ``*.md`` below ``root``, by path, descending into plain directories only; a
    link met on the way (a symlink or junction) is listed as a refused item instead."""
    if platform.link_at(root):
        return [refused_link(f"{agent}-memory", f"{agent} memory", root, root, agent)]
    found: list[Path] = []
    refused: list[Imported] = []
    stack = [root] if root.is_dir() else []
    while stack and len(found) < _MAX_FILES:
        for child in sorted(stack.pop().iterdir()):
            if platform.link_at(child):
                name = f"{agent}-{child.stem}"
                refused.append(refused_link(name, child.name, child, child, agent))
            elif child.is_dir():
                stack.append(child)
            elif child.name.endswith(".md"):
                found.append(child)
    return [*refused, *sorted(found)[:_MAX_FILES]]


def split_frontmatter(text: str) -> tuple[dict[str, str], str]:
    """The top-level ``key: value`` lines of a leading ``---`` block, and the body after it;
    ``({}, text)`` without one. Only plain one-line values are read: enough to take a
    memory's name and description over, never a YAML parser on the agent's bytes."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        return {}, text
    fields: dict[str, str] = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        if sep and key and not key[0].isspace() and key.strip() not in fields:
            fields[key.strip()] = value.strip().strip("\"'")
    return fields, "\n".join(lines[end + 1 :]).strip()


def import_only(
    memory: Path, imports: Callable[[], Sequence[Imported]], describe: str, why: str
) -> NativeMemory:
    """A :class:`coffer.adapter.NativeMemory` without a switch: ``imports`` runs at every
    `coffer project` and nothing is written to ``memory`` (the file to watch); ``why`` says
    why the memory stays on, in `coffer adapter list` and when something is imported."""
    return NativeMemory(
        config=memory,
        enabled=_on,
        disable=_no_switch,
        restore=_unchanged,
        imports=imports,
        describe=describe,
        keeps_on=why,
    )


def _on(data: bytes | None) -> bool:
    return True


def _no_switch(data: bytes | None) -> tuple[bytes, dict[str, Any]]:
    raise CofferError("this memory has no switch coffer turns")


def _unchanged(data: bytes | None, previous: Mapping[str, Any]) -> bytes:
    return data or b""
