"""Codex CLI: both tiers are managed blocks in ``AGENTS.md``; Codex's own memories are
imported into the global tier and then switched off, reversibly.

Facts, as observed with Codex CLI 0.171.0: ``AGENTS.override.md`` replaces
``AGENTS.md`` in the same directory (and in ``CODEX_HOME``); project docs share one
``project_doc_max_bytes`` budget (default 32,768 bytes); memories are on only with
``[features] memories = true`` and live in ``$CODEX_HOME/memories/``. Only the keys Codex
reads are written (``[features] memories``), never invented ones like ``[memories] enabled``.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coffer import fsutil
from coffer.adapter import ConfigEdit, Context, Imported, Launch, Mode, NativeMemory, Target
from coffer.errors import CofferError

NAME = "codex"
MODES: Mapping[str, Mode] = {"project": Mode.RENDER, "global": Mode.RENDER}
DEFAULT_PROJECT_DOC_MAX_BYTES = 32_768
_COMMENT = "turned off by coffer; `coffer unproject --agent codex` restores it"
_MAX_IMPORT = 30_000
# A SessionStart hook's plain stdout becomes model context; over ~2,500 tokens (counted as
# bytes / 4) Codex keeps a preview and spills the rest to a file (codex-rs/hooks
# output_spill.rs; docs/adr/0012).
SESSION_CONTEXT_LIMIT = 10_000


def codex_home(ctx: Context) -> Path:
    explicit = ctx.environ.get("CODEX_HOME", "")
    return Path(explicit).expanduser() if explicit else ctx.home / ".codex"


def _doc(data: bytes | None) -> Any:
    import tomlkit  # only when a config exists: not on the no-op path

    try:
        return tomlkit.parse((data or b"").decode("utf-8"))
    except Exception as exc:  # tomlkit raises several unrelated types
        raise CofferError(f"Codex's config.toml is not valid TOML ({exc}); fix it first") from exc


def _memories_on(doc: Any) -> bool:
    features = doc.get("features")
    if not hasattr(features, "get") or features.get("memories") is not True:
        return False
    # On in name only when neither injected nor generated.
    mem = doc.get("memories")
    return not (
        hasattr(mem, "get")
        and mem.get("use_memories") is False
        and mem.get("generate_memories") is False
    )


def _enabled(data: bytes | None) -> bool:
    return data is not None and b"memories" in data and _memories_on(_doc(data))


def _disable(data: bytes | None) -> tuple[bytes, dict[str, Any]]:
    import tomlkit

    doc = _doc(data)
    features = doc.get("features")
    previous: dict[str, Any] = {
        "features.memories": features.get("memories") if hasattr(features, "get") else None,
        "features_table_existed": features is not None,
    }
    if features is None:
        table = tomlkit.table()
        table.add("memories", _bool(False, None, comment=True))
        doc.add("features", table)
    else:
        features["memories"] = _bool(False, _trivia(features, "memories"), comment=True)
    text, out = (data or b"").decode("utf-8"), _dumps(doc, data)
    if out.startswith(text):
        # Added at the very end: tomlkit first ends the last line or adds a blank one, and
        # deleting what coffer added leaves that behind; _restore takes it away too.
        tail = out[len(text) :]
        separator = tail[: len(tail) - len(tail.lstrip("\r\n"))]
        if separator:
            previous["separator"] = separator
            previous["last_line"] = text.rsplit("\n", 1)[-1]
    return out.encode("utf-8"), previous


def _trivia(table: Any, key: str) -> Any:
    # The existing item's whitespace and comment, so only the value token changes.
    try:
        return table.item(key).trivia
    except (KeyError, AttributeError):
        return None


def _bool(value: bool, trivia: Any, *, comment: bool = False) -> Any:
    import tomlkit
    from tomlkit.items import Bool

    if trivia is not None:
        return Bool(value, trivia)
    item = tomlkit.item(value)
    if comment:
        item.comment(_COMMENT)
    return item


def _restore(data: bytes | None, previous: Mapping[str, Any]) -> bytes:

    doc = _doc(data)
    features = doc.get("features")
    current = features.get("memories") if hasattr(features, "get") else None
    before = previous.get("features.memories")
    if current == before:
        return data or b""
    if current is not False:
        raise CofferError(
            f"[features] memories is now {current!r}, not the false coffer set; "
            "someone changed it since, so coffer leaves it"
        )
    if before is None:
        del features["memories"]
        if not previous.get("features_table_existed", True) and len(features) == 0:
            del doc["features"]
        out = _dumps(doc, data)
        separator = str(previous.get("separator", ""))
        # Only while the file still ends as coffer left it: a line typed below stays whole.
        if separator and out.endswith(str(previous.get("last_line", "")) + separator):
            out = out[: -len(separator)]
        return out.encode("utf-8")
    else:
        features["memories"] = _bool(bool(before), _trivia(features, "memories"))
    return _dumps(doc, data).encode("utf-8")


def _dumps(doc: Any, data: bytes | None) -> str:
    import tomlkit

    from coffer.setup.config_docs import match_line_breaks

    return match_line_breaks(data, tomlkit.dumps(doc))


def _link_in(mem: Path, path: Path) -> Path | None:
    """The first symlink on the way from ``mem`` (included) down to ``path``, if any."""
    probe = mem
    if probe.is_symlink():
        return probe
    for part in path.relative_to(mem).parts:
        probe = probe / part
        if probe.is_symlink():
            return probe
    return None


def _imports(home: Path) -> Sequence[Imported]:
    # Like the store, never follow a symlink out of Codex's memory folder: a link there could
    # copy any file the user can read into both global blocks (docs/adr/0018).
    mem = home / "memories"
    sources = [
        (mem / "memory_summary.md", "codex-memory-summary", "Codex memory summary"),
        (mem / "MEMORY.md", "codex-memory", "Codex memory index"),
    ]
    notes = mem / "extensions" / "ad_hoc" / "notes"
    if notes.is_dir() and _link_in(mem, notes) is None:
        for p in sorted(notes.iterdir()):
            if p.name.endswith(".md"):
                sources.append((p, f"codex-note-{p.stem}", f"Codex note {p.stem}"))
    elif notes.is_dir():
        sources.append((notes, "codex-notes", "Codex notes"))
    out = []
    for path, name, desc in sources:
        link = _link_in(mem, path)
        if link is not None:
            out.append(
                Imported(
                    name,
                    desc,
                    "",
                    str(path),
                    refused=f"not imported: {link} is a symlink; coffer does not follow links "
                    "out of Codex's memory folder (replace it with the file itself)",
                )
            )
            continue
        if not path.is_file():  # never open a FIFO or a device: it could block
            continue
        try:
            data = fsutil.read_bytes_or_none(path)
        except (OSError, CofferError):
            continue
        if data is None:
            continue
        text = data.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        if len(text.encode()) > _MAX_IMPORT:
            text = text.encode()[:_MAX_IMPORT].decode("utf-8", "ignore") + (
                f"\n\n(truncated by coffer; the full text is in {path})"
            )
        out.append(Imported(name, desc, text, str(path)))
    return out


def native_memory(ctx: Context) -> NativeMemory:
    home = codex_home(ctx)
    return NativeMemory(
        config=home / "config.toml",
        enabled=_enabled,
        disable=_disable,
        restore=_restore,
        imports=lambda: _imports(home),
        describe="[features] memories",
    )


def _project_doc_max_bytes(home: Path) -> int:
    path = home / "config.toml"
    try:
        data = path.read_bytes()
    except OSError:
        return DEFAULT_PROJECT_DOC_MAX_BYTES
    if b"project_doc_max_bytes" not in data:
        return DEFAULT_PROJECT_DOC_MAX_BYTES
    try:
        value = _doc(data).get("project_doc_max_bytes")
    except CofferError:
        return DEFAULT_PROJECT_DOC_MAX_BYTES
    return value if isinstance(value, int) and value > 0 else DEFAULT_PROJECT_DOC_MAX_BYTES


def _instructions(directory: Path) -> Path:
    override = directory / "AGENTS.override.md"
    return override if override.exists() else directory / "AGENTS.md"


def detect(ctx: Context) -> bool:
    if codex_home(ctx).is_dir():
        return True
    return shutil.which("codex", path=ctx.environ.get("PATH", "")) is not None


def targets(ctx: Context) -> Sequence[Target]:
    home = codex_home(ctx)
    out = []
    if ctx.project is not None:
        path = _instructions(ctx.project)
        out.append(
            Target(
                "project",
                Mode.RENDER,
                path,
                max_bytes=_project_doc_max_bytes(home),
                note="AGENTS.override.md exists, so Codex reads it instead of AGENTS.md"
                if path.name == "AGENTS.override.md"
                else "",
            )
        )
    out.append(Target("global", Mode.RENDER, _instructions(home)))
    return out


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    home = codex_home(ctx)
    files = [home / "config.toml", home / "AGENTS.override.md"]
    if ctx.project is not None:
        files.append(ctx.project / "AGENTS.override.md")
    return ("CODEX_HOME",), files


def wiring(ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
    """`coffer setup`: ``[mcp_servers.coffer]`` and a SessionStart hook (_setup_codex)."""
    from coffer_adapters import _setup_codex

    return _setup_codex.wiring(ctx, launch)
