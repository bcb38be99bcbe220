"""One agent's edits in one config file, as ``coffer setup`` plans them: :class:`FilePlan`
holds the exact bytes before and after, and :func:`edited` makes the edits on the bytes
given (the file as planned, or as another program rewrote it before coffer's write).

:mod:`coffer.setup.wiring` plans every agent's files with these; :mod:`coffer.setup.file_apply`
writes them in, and redoes the edits when the file changed since it was read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import ConfigEdit
from coffer.base import fsutil
from coffer.base.errors import CofferError
from coffer.base.report import Problem, Report
from coffer.projection.journal import Journal
from coffer.setup.config_docs import add_edit, load

if TYPE_CHECKING:
    from typing import Any

KIND = "setup"


def key(agent: str, path: Path) -> str:
    return f"setup:{agent}:{path}"


@dataclass
class FilePlan:
    """The edits for one agent in one file, with the exact bytes before and after."""

    agent: str
    path: Path
    format: str
    before: bytes | None
    after: bytes
    entries: list[dict[str, Any]]
    whats: list[str]
    edits: Sequence[ConfigEdit] = ()  # what to redo if the file changes before the write

    @property
    def changed(self) -> bool:
        return self.after != self.before


def plan_file(
    journal: Journal, agent: str, path: Path, edits: list[ConfigEdit], report: Report
) -> FilePlan | None:
    """``agent``'s ``edits`` in the one file ``path``, planned on the bytes there; None (and
    a problem in ``report``) when coffer must not edit it or the edits cannot be made."""
    formats = {e.format for e in edits}
    if len(formats) != 1:
        report.problems.append(Problem(path, "error", f"{agent}: edits disagree on the format"))
        return None
    fmt = formats.pop()
    try:
        # A dotfile manager's link: edit the file it points to; the link stays as it is.
        target = fsutil.edit_target(path)
        locked = fsutil.read_only(target)
        if locked is not None:
            raise CofferError(locked)  # refused while planning: nothing is journaled
        before = fsutil.read_bytes_or_none(target)
        return edited(journal, FilePlan(agent, path, fmt, before, b"", [], [], edits), before)
    except CofferError as exc:
        report.problems.append(Problem(path, "refused", f"{agent}: {exc}"))
        return None


def edited(journal: Journal, fp: FilePlan, before: bytes | None) -> FilePlan:
    """``fp``'s edits made on the bytes ``before`` (the file as read now); CofferError when
    they cannot be made there without changing anything else (docs/adr/0041)."""
    doc = load(fp.format, before, fp.path)
    record = journal.load(key(fp.agent, fp.path))
    previous = {
        (tuple(e["keys"]), bool(e.get("append"))): e for e in (record.edits if record else ())
    }
    entries = dict(previous)
    whats = []
    modified = False
    for edit in fp.edits:
        k = (tuple(edit.keys), edit.append)
        entry, changed = add_edit(doc, edit, previous.get(k))
        if entry is not None:
            entries[k] = entry
        if changed:
            modified = True
            whats.append(edit.what or ".".join(edit.keys))
    # Nothing to add: keep the bytes exactly (no re-serialisation).
    after = doc.dump() if modified or before is None else before
    return FilePlan(
        fp.agent, fp.path, fp.format, before, after, list(entries.values()), whats, fp.edits
    )
