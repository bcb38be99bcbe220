"""Keeping coffer's blocks out of git (docs/adr/0015-blocks-out-of-git.md).

A block is personal memory: unless the project chose to commit it, git must neither show
it (``git status``, ``git diff``) nor commit it (``git commit -a``, ``git add -A``).

- A file coffer created and git does not track gets its path in ``<common>/info/exclude``,
  as long as it holds nothing but coffer's blocks. Once the user writes text of their own
  into it, the file is theirs: the exclude line goes and the file is hidden like any other
  (the filter below), so ``git status`` shows it, ``git clean -X`` keeps it and a checkout
  that would overwrite it refuses (docs/adr/0040).
- A file that was there before (tracked or not) gets ``filter=coffer`` in
  ``<common>/info/attributes``; the clean command, ``filter.coffer.clean`` in
  ``<common>/config``, strips the block whenever git reads the file (coffer.gitfilter). git
  takes a change of size for a modification without running the filter, so after each write
  the index entry's stat data is refreshed, but only when the cleaned file hashes to exactly
  the staged blob: a user's own edits, staged or not, are never touched.

``<common>`` is the git dir shared by all worktrees, so these are local to the clone and
shared by its worktrees. Each of the three files has one journal record listing its users
(block files): a line, or the filter entry, goes when its last user goes, and a file that
only coffer changed since is given back byte for byte. Only the writing path runs git; with
no git installed nothing here happens.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from coffer.base import fsutil
from coffer.base.errors import CofferError
from coffer.base.report import Report
from coffer.projection.git import files
from coffer.projection.git.files import ATTRIBUTES_HEADER, EXCLUDE_HEADER, FILTER, Edit, Line
from coffer.projection.git.repo import (
    Repo,
    forget_stat,
    git,
    ignored,
    index_stamp,
    locate,
    output,
    relative,
    tracked,
)
from coffer.projection.git.repo import refresh_index as refresh_index
from coffer.projection.journal import GitState, Journal, JournalRecord

# What git was found not to track, by block file, with the index it was read from.
_UNTRACKED = "git-untracked.json"

__all__ = [
    "ATTRIBUTES_HEADER",
    "EXCLUDE_HEADER",
    "FILTER",
    "forget",
    "settle",
    "sync",
    "tracked_absent",
]


def tracked_absent(path: Path) -> str | None:
    """Why coffer must not create ``path``, absent from the disk, or None if it may.

    git tracks the path: a sparse checkout leaves it out (skip-worktree), or the user
    deleted it. A file coffer created there would hold only the block, and ``git commit
    -a`` would commit the team's file as empty (cleaned of the block). One git call, made
    only where coffer is about to create a file inside a repository.
    """
    repo = locate(path)
    rel = relative(repo, path) if repo is not None else None
    if repo is None or rel is None:
        return None
    out = output(git(repo.top, "ls-files", "-t", "--", rel))
    if not out:
        return None
    if out.startswith("S "):
        return "git tracks it, but the sparse checkout leaves it out: coffer does not create it"
    return "git tracks it, but it was deleted here: coffer does not create it (git restore it)"


def _release(journal: Journal, user: str, state: GitState) -> list[Edit]:
    """What takes back the lines (and filter) that hid ``user`` from git."""
    common = Path(state.common)
    if state.how == "exclude":
        return [files.drop_line(journal, common / "info" / "exclude", state.pattern, user)]
    if state.how == "filter":
        line = f"{state.pattern} filter={FILTER}"
        attributes = common / "info" / "attributes"
        return [
            files.drop_line(journal, attributes, line, user),
            files.drop_filter(journal, common, user),
        ]
    return []


def _run(edits: list[Edit], report: Report, *, dry_run: bool) -> None:
    # The edits of one list touch different files and records, so all are planned first.
    for edit in edits:
        report.extend(edit.run(dry_run=dry_run))


def _tracked(journal: Journal, repo: Repo, rel: str, *, dry_run: bool) -> bool:
    """Whether git tracks ``rel``. A "no" is kept with the stat of the index it was read
    from (``<store>/state/git-untracked.json``): while the index is that same file, git
    tracks the file no more than it did, and a block's rewrite (every remember) asks git
    nothing (docs/adr/0015)."""
    where = journal.dir.parent / "state" / _UNTRACKED
    key = str(repo.top / rel)
    stamp = index_stamp(repo)  # before git reads the index: a change after reads as one
    kept = _untracked(where)
    if stamp is not None and kept.get(key) == stamp:
        return False
    found = tracked(repo, rel)
    if stamp is not None and found is not None and not dry_run:
        if found:
            kept.pop(key, None)
        else:
            kept[key] = stamp
        # Only the block files there still are: the file stays as small as their number.
        kept = {k: v for k, v in sorted(kept.items()) if os.path.lexists(k)}
        text = json.dumps({"version": 1, "untracked": kept}, indent=1)
        with contextlib.suppress(OSError, CofferError):  # a cache: unwritten, git is asked
            fsutil.ensure_dir(where.parent)
            fsutil.write_if_changed(where, (text + "\n").encode("utf-8"))
    return bool(found)


def _untracked(where: Path) -> dict[str, Any]:
    try:
        data = json.loads(where.read_bytes())
    except (OSError, ValueError):
        return {}
    kept = data.get("untracked") if isinstance(data, dict) and data.get("version") == 1 else None
    return kept if isinstance(kept, dict) else {}


def _how(journal: Journal, record: JournalRecord, repo: Repo, rel: str, *, dry_run: bool) -> str:
    """How git is kept from seeing the block of ``record``'s file."""
    path = Path(record.path)
    if _tracked(journal, repo, rel, dry_run=dry_run) or _shared(path) or _holds_user_text(path):
        return "filter"
    if record.git is not None and record.git.how == "exclude":
        return "exclude"  # our own exclude line is why check-ignore says "ignored"
    if ignored(repo, rel):
        return "none"
    return "exclude" if record.created_file else "filter"


def _shared(path: Path) -> bool:
    """The file holds the team block (docs/adr/0036): git must see the file, without the
    personal block, so the repository carries the team's memory."""
    from coffer.projection.managed_block import TEAM

    try:
        data = fsutil.read_bytes_or_none(path)
    except (OSError, CofferError):
        return False
    return data is not None and TEAM.start in data


def _holds_user_text(path: Path) -> bool:
    """The file holds something besides coffer's blocks: text the user wrote, which git
    must see (and so protect) even in a file coffer created."""
    from coffer.projection.managed_block import MEMORY, TEAM, remove

    try:
        data = fsutil.read_bytes_or_none(path)
        rest = remove(remove(data, MEMORY), TEAM) if data is not None else b""
    except (OSError, CofferError):
        return False  # unreadable or malformed: the write path reports it
    return bool(rest.strip(b" \t\r\n\xef\xbb\xbf"))


def _excluded_but_owned(record: JournalRecord) -> bool:
    """An exclude line hides a file coffer created that now holds the user's own text."""
    return (
        record.git is not None
        and record.git.how == "exclude"
        and not record.git.commit
        and _holds_user_text(Path(record.path))
    )


def _hide(journal: Journal, user: str, repo: Repo, rel: str, how: str) -> list[Edit]:
    if how == "exclude":
        line = Line(EXCLUDE_HEADER, f"/{rel}", "git ignores the file coffer created")
        return [files.add_line(journal, repo.common / "info" / "exclude", line, user)]
    if how == "filter":
        why = "git reads the file without coffer's block"
        line = Line(ATTRIBUTES_HEADER, f"/{rel} filter={FILTER}", why)
        attributes = repo.common / "info" / "attributes"
        return [files.add_line(journal, attributes, line, user)]
    return []


def sync(
    journal: Journal, record: JournalRecord, *, wrote: bool, commit: bool, dry_run: bool
) -> Report:
    """Hide the block file of ``record`` from git (or, with ``commit``, stop hiding it).

    Runs git only when the file was just written or the choice changed; a run that
    changed nothing costs one journal read.
    """
    report = Report()
    path, old = Path(record.path), record.git
    owned = _excluded_but_owned(record)
    # A moved venv leaves a clean command that no longer runs: set it again.
    stale = old is not None and old.how == "filter" and not files.filter_current(Path(old.common))
    if old is not None and not wrote and old.commit == commit and not (owned or stale):
        return report
    user = str(path)
    repo = locate(path)
    rel = relative(repo, path) if repo is not None else None
    how = "none"
    if repo is not None and rel is None:
        report.notices.append(f"{path}: git sees coffer's block (a path git patterns cannot name)")
    elif repo is not None and rel is not None and not commit:
        how = _how(journal, record, repo, rel, dry_run=dry_run)
    new = GitState(
        how=how,
        commit=commit,
        common=str(repo.common) if repo else "",
        top=str(repo.top) if repo else "",
        pattern=f"/{rel}" if rel else "",
    )
    if (
        old is not None
        and old.how not in (None, "none")
        and (old.how, old.common, old.pattern) != (how, new.common, new.pattern)
    ):
        _run(_release(journal, user, old), report, dry_run=dry_run)
        if old.how == "filter" and not dry_run and old.top:
            forget_stat(Repo(Path(old.top), Path(old.common)), old.pattern.lstrip("/"))
    if owned and how == "filter":
        # Said once: the next run finds the file hidden by the filter, not excluded.
        report.alerts.append(
            f"{path} now holds your own text: git sees the file again (coffer's block "
            "stays out of it), so git status shows it and git clean -X or a checkout keeps it"
        )
    if repo is not None and rel is not None:
        _run(_hide(journal, user, repo, rel, how), report, dry_run=dry_run)
        if how == "filter":
            _run([files.add_filter(journal, repo, user)], report, dry_run=dry_run)
    if dry_run:
        return report
    journal.save(record.but(git=new))
    if how == "filter" and repo is not None and rel is not None:
        files.keep_block(journal, path)
        refresh_index(repo, rel)
    return report


def forget(journal: Journal, record: JournalRecord, *, dry_run: bool) -> Report:
    """The block of ``record`` was removed: refresh git's view of the file, then take back
    whatever hid it (the last user of a line or of the filter takes those too)."""
    state = record.git
    report = Report()
    if state is None or state.how in (None, "none"):
        return report
    if not dry_run and state.how == "filter" and state.top:
        repo = Repo(Path(state.top), Path(state.common))
        refresh_index(repo, state.pattern.lstrip("/"))
    _run(_release(journal, record.path, state), report, dry_run=dry_run)
    if not dry_run:
        files.keep_block(journal, Path(record.path))  # the block is gone: so is its copy
    return report


def settle(report: Report) -> None:
    """After a run's writes: every tracked file it changed whose content git would store as
    exactly the staged blob gets its index entry's stat data refreshed, so `git status`
    shows a file as modified only when its cleaned content differs from what is staged
    (issue 23.4). A file holding the user's own change is left as git shows it."""
    done: set[Path] = set()
    # A block edited by hand is refused, not rewritten, and reported as a problem: git must
    # not show it as modified either when the edit is inside the block.
    paths = [c.path for c in report.changes if c.action != "remove"]
    for path in [*paths, *(p.path for p in report.problems)]:
        if path in done or not path.is_file():
            continue
        done.add(path)
        repo = locate(path)
        rel = relative(repo, path) if repo is not None else None
        if repo is None or rel is None or rel.split("/", 1)[0] == ".git":
            continue
        refresh_index(repo, rel)


# ---- the vault's project scope (ecc.memory.v1) -----------------------------------------

_VAULT = (".ecc", "memory", "project")


def _vault_line(root: Path) -> tuple[Repo, Path, str] | None:
    """(repository, its exclude file, the line hiding ``root``'s vault project scope)."""
    vault = root.joinpath(*_VAULT)
    repo = locate(vault / ".gitignore") if vault.is_dir() else None
    rel = relative(repo, vault) if repo is not None else None
    if repo is None or rel is None:
        return None
    return repo, repo.common / "info" / "exclude", f"/{rel}/"


def hide_vault(journal: Journal, root: Path, *, dry_run: bool = False) -> Report:
    """Keep the vault's project scope out of ``git status`` the way a block file coffer
    created is kept out: a line in ``info/exclude`` (docs/adr/0040).

    ecc.memory.v1 makes that scope repo-local (its own ``.gitignore`` ignores everything but
    itself, so git still lists ``?? .ecc/``); the team scope is meant to be reviewed and
    committed, so it stays visible. Costs one journal read once the line is in place.
    """
    report = Report()
    found = _vault_line(root)
    if found is None:
        return report
    repo, exclude, text = found
    user = f"vault:{root}"
    record = journal.load(f"git:{exclude}")
    if record is not None and user in record.users.get(text, ()):
        return report
    if ignored(repo, text.strip("/")) and record is None:
        return report  # the user ignores it already
    why = "git ignores the vault's repo-local project scope"
    _run(
        [files.add_line(journal, exclude, Line(EXCLUDE_HEADER, text, why), user)],
        report,
        dry_run=dry_run,
    )
    return report


def forget_vault(journal: Journal, root: Path | None, *, dry_run: bool) -> Report:
    """Take back the lines :func:`hide_vault` added, for ``root`` (None: every project)."""
    report = Report()
    for record in journal.load_all():
        if record.kind != "git-lines":
            continue
        for text, users in record.users.items():
            for user in users:
                if user.startswith("vault:") and root in (None, Path(user[len("vault:") :])):
                    drop = files.drop_line(journal, Path(record.path), text, user)
                    _run([drop], report, dry_run=dry_run)
    return report
