"""Claude Code's slug, checked against Claude itself (issue 27 point 15).

coffer computes the directory Claude reads for a project (``projects/<slug>/memory``) the
way Claude computes it (``slug`` in this package). Claude's own session transcripts show
where it really works: ``<config>/projects/<slug(cwd)>/<session-id>.jsonl``, each line a JSON
object carrying the ``cwd`` of the session. A transcript whose ``cwd`` is the project root
lies in the directory whose ``memory/`` Claude reads for it. When that is not the directory
coffer linked, Claude does not see the store: a drive letter spelled in the other case, a
name Claude got in NFD, a ``subst`` drive, or a path over 200 characters whose hash
suffix a native build computes differently (Bun's hash, not Java's ``hashCode``).

Read-only and bounded: the newest ``MAX_DIRS`` project directories, the newest
``PER_DIR`` transcripts of each, the first ``HEAD_LINES`` lines (``HEAD_BYTES`` at most)
of each transcript.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

from coffer.adapter import Context, LinkCheck
from coffer.base import platform
from coffer.base.identity import spelled_on_disk

MAX_DIRS = 256
PER_DIR = 3
HEAD_LINES = 8
HEAD_BYTES = 64 * 1024
# Where a slug gets a hash suffix (coffer_adapters.claude_code._MAX_UNITS).
_LONG = 200


def session_cwd(path: Path) -> str | None:
    """The ``cwd`` a transcript names in its first lines, or None."""
    try:
        with path.open("rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        return None
    for raw in head.split(b"\n")[:HEAD_LINES]:
        try:
            item = json.loads(raw)
        except ValueError:
            continue  # a summary line cut at HEAD_BYTES, or no JSON at all
        if isinstance(item, dict) and isinstance(item.get("cwd"), str) and item["cwd"]:
            return str(item["cwd"])
    return None


def _newest(entries: list[tuple[float, Path]], n: int) -> list[Path]:
    return [p for _, p in sorted(entries, key=lambda e: e[0], reverse=True)[:n]]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def transcripts(projects: Path) -> list[Path]:
    """The transcripts read (newest directories first, newest transcripts first in each)."""
    try:
        dirs = [(_mtime(d), d) for d in projects.iterdir() if d.is_dir()]
    except OSError:
        return []
    out: list[Path] = []
    for d in _newest(dirs, MAX_DIRS):
        try:
            files = [(_mtime(f), f) for f in d.iterdir() if f.suffix == ".jsonl"]
        except OSError:
            continue
        out += _newest(files, PER_DIR)
    return sorted(out, key=_mtime, reverse=True)


class _Same:
    """Whether a ``cwd`` a transcript names is the project root: as written, in another
    Unicode normalisation, in another case where the volume folds it, or (a ``subst``
    drive, a link) once resolved on disk."""

    def __init__(self, root: str, folds: bool) -> None:
        self.folds = folds
        self.root = self._key(root)
        self.seen: dict[str, bool] = {}

    def _key(self, path: str) -> str:
        text = unicodedata.normalize("NFC", path).rstrip("/\\") or path
        return text.casefold() if self.folds else text

    def __call__(self, cwd: str) -> bool:
        if cwd not in self.seen:
            same = self._key(cwd) == self.root
            if not same and os.path.isabs(cwd):
                same = self._key(spelled_on_disk(os.path.realpath(cwd))) == self.root
            self.seen[cwd] = same
        return self.seen[cwd]


def _why(found: str, linked: str, cwd: str, root: str) -> str:
    """What most likely sets Claude's directory name apart from coffer's."""
    if found.casefold() == linked.casefold():
        return "the names differ only in case, on a volume that does not fold it"
    if cwd != root and unicodedata.normalize("NFC", cwd) == unicodedata.normalize("NFC", root):
        return "Claude got the path with decomposed (NFD) characters"
    if cwd != root and cwd.casefold() == root.casefold():
        return f"Claude was started in {cwd}, the same folder in another case (a drive letter)"
    if cwd.casefold() != root.casefold():
        return f"Claude was started in {cwd}, another path to it (a subst drive, a link)"
    if len(linked) > _LONG:
        return "a path over 200 characters, whose hash suffix this Claude build computes otherwise"
    return "Claude names this project's directory differently"


def check(linked: Path, projects: Path, root: str) -> LinkCheck | None:
    """Where the newest transcript of a session started at ``root`` lies, when that is not
    ``linked``'s directory (``projects/<slug>``), as a warning; None when they agree or
    no transcript is Claude's for this project."""
    folds = platform.folds_case(projects)
    same = _Same(root, folds)
    for path in transcripts(projects):
        cwd = session_cwd(path)
        if cwd is None or not same(cwd):
            continue
        found = path.parent
        name, want = found.name, linked.parent.name
        if name == want or (folds and name.casefold() == want.casefold()):
            return None
        if (found / "memory").resolve() == linked.resolve():
            return None  # both names lead to the store (each linked to it)
        why = _why(name, want, cwd, root)
        warning = (
            f"Claude writes this project's sessions to {found}, not {linked.parent}, where "
            f"coffer linked its memory: Claude does not see the store ({why}). Start Claude "
            f"in {root} as spelled on disk, then run `coffer project`"
        )
        return LinkCheck(linked, found / "memory", warning)
    return None


def link_check(ctx: Context, linked: Path, config: Path) -> LinkCheck | None:
    """The ``link_check`` member for Claude (``linked``: the memory directory coffer links,
    under ``config``, Claude's config root)."""
    if ctx.project is None:
        return None
    projects = config / "projects"
    if linked.parent.parent != projects:
        return None  # memory moved (autoMemoryDirectory, a custom name): no slug to check
    return check(linked, projects, str(ctx.project))
