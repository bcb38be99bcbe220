"""A project that moved: its journal records follow it (docs/adr/0021).

When ``coffer`` meets a git repository at a root it does not know, and a registered
project's root is gone while its repository (root commit, else ``origin``) is this one,
the registry gives the project its new root (coffer/store/projects.py). The records of what
coffer wrote inside the old root (blocks, git's info files and config) still name the old
paths; they are rewritten here to the same paths under the new root, so the next
``coffer project`` updates the moved blocks instead of adopting them anew, and
``coffer unproject`` undoes them. Records outside the root (Claude's memory link for the
old path, which Claude keys by path) keep their paths and their project id, so undoing the
project undoes them too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.base.report import Report
from coffer.projection.journal.ledger import Journal
from coffer.projection.journal.records import parse
from coffer.store import ProjectInfo

if TYPE_CHECKING:
    from typing import Any


def _rewrite(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        if value == old:
            return new
        if value.startswith(old + "/"):
            return new + value[len(old) :]
        # The key of a git record is "git:<path>", of a team block "team:<path>".
        for prefix in ("git:", "team:"):
            if value.startswith(prefix + old + "/"):
                return prefix + new + value[len(prefix + old) :]
        return value
    if isinstance(value, list):
        return [_rewrite(v, old, new) for v in value]
    if isinstance(value, dict):
        return {_rewrite(k, old, new): _rewrite(v, old, new) for k, v in value.items()}
    return value


def relocate(journal: Journal, info: ProjectInfo) -> Report:
    """Rewrite every record naming a path under one of ``info.moved_from`` to the same path
    under ``info.root``. Idempotent: a second call finds nothing to rewrite."""
    report = Report()
    moved = 0
    for old in info.moved_from:
        for record in journal.load_all():
            raw = record.to_json()
            rewritten = _rewrite(raw, old, info.root)
            if rewritten == raw:
                continue
            new = parse(rewritten)
            journal.save(new)  # first: a crash in between leaves both, and this reruns
            if new.key != record.key:
                journal.drop(record.key or record.path)
            moved += 1
    if moved:
        report.notices.append(
            f"{info.root}: this project moved here from {info.moved_from[-1]}; coffer "
            f"follows it (same memories), and its journal now names the new paths"
        )
    return report
