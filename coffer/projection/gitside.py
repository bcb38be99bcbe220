"""Keeping coffer's blocks out of git (docs/adr/0015-blocks-out-of-git.md).

A block is personal memory: unless the project chose to commit it, git must neither show
it (``git status``, ``git diff``) nor commit it (``git commit -a``, ``git add -A``).

- A file coffer created and git does not track gets its path in ``<common>/info/exclude``.
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

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coffer import fsutil
from coffer.projection.common import ensure_parent, now_iso, remove_created_dirs
from coffer.projection.journal import Journal, Record, sha256
from coffer.report import Change, Problem, Report

FILTER = "coffer"
EXCLUDE_HEADER = "# coffer: memory files it created (`coffer unproject` removes these lines)"
ATTRIBUTES_HEADER = "# coffer: keep its memory block out of git (`coffer unproject` removes these)"
# Paths written into exclude/attributes as they are: nothing git would read as a glob,
# quote or separator. Anything else is left visible to git and said so.
_SAFE = re.compile(r"[A-Za-z0-9._/+@,%~-]+")
# A hook may run coffer with these set for another repository; git must find the file's.
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


@dataclass(frozen=True)
class Repo:
    top: Path  # the work tree holding the file
    common: Path  # the git dir its worktrees share (config, info/)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    """Run git in ``cwd``; None when git is not installed or could not run."""
    git = shutil.which("git")
    if git is None:
        return None
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    try:
        return subprocess.run(
            [git, *args], cwd=cwd, env=env, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _out(result: subprocess.CompletedProcess[bytes] | None) -> str | None:
    if result is None or result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "surrogateescape").strip()


def locate(path: Path) -> Repo | None:
    """The git work tree holding ``path`` and its common git dir, or None."""
    if not path.parent.is_dir():
        return None
    out = _out(_git(path.parent, "rev-parse", "--show-toplevel", "--git-common-dir"))
    lines = out.splitlines() if out else []
    if len(lines) != 2:
        return None
    common = Path(lines[1])
    if not common.is_absolute():
        common = path.parent / common
    return Repo(Path(os.path.realpath(lines[0])), Path(os.path.realpath(common)))


def filter_command() -> str:
    """The clean command: this interpreter by absolute path, so git runs it without coffer's
    environment on PATH; -I keeps the repository's own files off the import path."""
    return f"{shlex.quote(sys.executable)} -I -m coffer.gitfilter"


def _relative(repo: Repo, path: Path) -> str | None:
    rel = os.path.relpath(os.path.realpath(path), repo.top).replace(os.sep, "/")
    if rel.startswith("../") or not _SAFE.fullmatch(rel):
        return None
    return rel


def _index_entry(repo: Repo, rel: str) -> tuple[bool, tuple[str, str] | None]:
    """(tracked, (mode, blob) of its plain stage-0 entry, or None if conflicted or flagged
    skip-worktree / assume-unchanged, which git does not compare anyway)."""
    out = _out(_git(repo.top, "ls-files", "-s", "-v", "--", rel))
    lines = out.splitlines() if out else []
    if not lines:
        return False, None
    fields = lines[0].split("\t", 1)[0].split(" ")
    if len(lines) != 1 or len(fields) != 4 or fields[0] != "H" or fields[3] != "0":
        return True, None
    return True, (fields[1], fields[2])


def _ignored(repo: Repo, rel: str) -> bool:
    result = _git(repo.top, "check-ignore", "-q", "--", rel)
    return result is not None and result.returncode == 0


def refresh_index(repo: Repo, rel: str) -> bool:
    """Give the index entry of ``rel`` the file's current stat data, if git would store the
    file (cleaned) as exactly the staged blob; True if it did. Never stages anything."""
    _, entry = _index_entry(repo, rel)
    if entry is None:
        return False
    mode, blob = entry
    if _out(_git(repo.top, "hash-object", f"--path={rel}", "--", rel)) != blob:
        return False  # the user's own change: git must go on showing it
    # `update-index --refresh` keeps an entry whose size changed as modified without looking
    # at the content; re-adding the same blob zeroes its stat data, and `add --refresh` then
    # compares through the filter and records the stat (it never stages content).
    set_entry = _git(repo.top, "update-index", "--cacheinfo", f"{mode},{blob},{rel}")
    if set_entry is None or set_entry.returncode != 0:
        return False
    _git(repo.top, "add", "--refresh", "--", rel)
    return True


def forget_stat(repo: Repo, rel: str) -> None:
    """Zero the stat data of ``rel``'s index entry (same blob), so git compares its content
    again: once the filter is gone, the block a refresh vouched for must show."""
    _, entry = _index_entry(repo, rel)
    if entry is not None:
        _git(repo.top, "update-index", "--cacheinfo", f"{entry[0]},{entry[1]},{rel}")


# ---- lines in info/exclude and info/attributes -------------------------------------------


def _has_line(data: bytes, line: str) -> bool:
    return line.encode() in data.splitlines()


def _without_line(data: bytes, line: str) -> bytes:
    """``data`` without the last line equal to ``line`` (line break included)."""
    lines = data.splitlines(keepends=True)
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].rstrip(b"\r\n") == line.encode():
            return b"".join(lines[:i] + lines[i + 1 :])
    return data


def _new_record(
    journal: Journal, path: Path, kind: str, data: bytes | None, *, dry_run: bool
) -> Record:
    if data is not None and not dry_run:
        journal.backup_bytes(data)
    return {
        "key": f"git:{path}",
        "path": str(path),
        "kind": kind,
        "users": {},
        "added": [],
        "created_file": data is None,
        "created_dirs": [],
        "before_sha256": None if data is None else sha256(data),
        "after_sha256": None,
        "created_at": now_iso(),
        "updated_at": now_iso(),
    }


def _write(journal: Journal, record: Record, path: Path, data: bytes | None, new: bytes) -> None:
    if data is None and not record["created_dirs"]:
        record["created_dirs"] = ensure_parent(path)
    journal.put(record)  # before the write: a crash leaves a record of what was there
    fsutil.atomic_write_bytes(path, new, mode=None)
    record["after_sha256"] = sha256(new)
    record["updated_at"] = now_iso()
    journal.put(record)


def _add_line(
    journal: Journal, path: Path, header: str, line: str, user: str, why: str, *, dry_run: bool
) -> Report:
    report = Report()
    data = fsutil.read_bytes_or_none(path)
    record = journal.get(f"git:{path}") or _new_record(
        journal, path, "git-lines", data, dry_run=dry_run
    )
    users: list[str] = record["users"].setdefault(line, [])
    if user not in users:
        users.append(user)
        users.sort()
    if data is not None and _has_line(data, line):
        if not dry_run:
            journal.put(record)  # the user's own line, or ours: either way it stays
        return report
    new = data or b""
    if new and not new.endswith(b"\n"):
        new += b"\n"
    added: list[str] = record["added"]
    if not _has_line(new, header):
        new += header.encode() + b"\n"
        if header not in added:
            added.append(header)
    new += line.encode() + b"\n"
    if line not in added:
        added.append(line)
    report.changes.append(Change(path, "create" if data is None else "update", f"{line} ({why})"))
    if not dry_run:
        _write(journal, record, path, data, new)
    return report


def _drop_line(journal: Journal, path: Path, line: str, user: str, *, dry_run: bool) -> Report:
    report = Report()
    record = journal.get(f"git:{path}")
    if record is None:
        return report
    users = [u for u in record["users"].get(line, []) if u != user]
    if users:
        record["users"][line] = users
        if not dry_run:
            journal.put(record)
        return report
    record["users"].pop(line, None)
    data = fsutil.read_bytes_or_none(path)
    if data is None:
        if not dry_run:
            journal.drop(record["key"])
        return report
    if record["users"]:
        new = _without_line(data, line) if line in record["added"] else data
        record["added"] = [a for a in record["added"] if a != line]
        if new != data:
            report.changes.append(Change(path, "update", f"removed {line}"))
        if not dry_run:
            if new != data:
                _write(journal, record, path, data, new)
            else:
                journal.put(record)
        return report
    report.extend(_give_back(journal, record, path, data, dry_run=dry_run))
    return report


def _give_back(
    journal: Journal, record: Record, path: Path, data: bytes, *, dry_run: bool
) -> Report:
    """The last user is gone: the file as it was if only coffer wrote it since, else the
    file without coffer's lines."""
    report = Report()
    if sha256(data) == record.get("after_sha256"):
        if record.get("created_file"):
            report.changes.append(Change(path, "remove", "deleted the file coffer created"))
            if not dry_run:
                fsutil.unlink(path)
                remove_created_dirs(list(record.get("created_dirs", [])))
        else:
            report.changes.append(Change(path, "restore", "as it was before coffer"))
            if not dry_run:
                before = journal.read_backup(record["before_sha256"])
                fsutil.atomic_write_bytes(path, before, mode=None)
    else:
        new = data
        for line in record.get("added", []):
            new = _without_line(new, line)
        if new != data:
            report.changes.append(Change(path, "update", "removed coffer's lines"))
            if not dry_run:
                fsutil.atomic_write_bytes(path, new, mode=None)
    if not dry_run:
        journal.drop(record["key"])
    return report


# ---- the filter entry in config ----------------------------------------------------------


def _add_filter(journal: Journal, repo: Repo, user: str, *, dry_run: bool) -> Report:
    report = Report()
    path = repo.common / "config"
    key = f"git:{path}"
    data = fsutil.read_bytes_or_none(path)
    record = journal.get(key) or _new_record(journal, path, "git-config", data, dry_run=dry_run)
    users: list[str] = record["users"].setdefault(FILTER, [])
    if user not in users:
        users.append(user)
        users.sort()
    command = filter_command()
    current = _out(_git(repo.top, "config", "--file", str(path), f"filter.{FILTER}.clean"))
    if current == command:
        if not dry_run:
            journal.put(record)
        return report
    report.changes.append(
        Change(path, "update", f"filter.{FILTER}.clean, which strips coffer's block")
    )
    if dry_run:
        return report
    journal.put(record)
    result = _git(repo.top, "config", "--file", str(path), f"filter.{FILTER}.clean", command)
    if result is None or result.returncode != 0:
        report.changes.pop()
        why = result.stderr.decode(errors="replace").strip() if result else "git not found"
        report.problems.append(Problem(path, "error", f"cannot set the filter: {why}"))
        return report
    record["added"] = [FILTER]
    record["after_sha256"] = sha256(fsutil.read_bytes_or_none(path) or b"")
    record["updated_at"] = now_iso()
    journal.put(record)
    return report


def _drop_filter(journal: Journal, common: Path, user: str, *, dry_run: bool) -> Report:
    report = Report()
    path = common / "config"
    record = journal.get(f"git:{path}")
    if record is None:
        return report
    users = [u for u in record["users"].get(FILTER, []) if u != user]
    if users:
        record["users"][FILTER] = users
        if not dry_run:
            journal.put(record)
        return report
    data = fsutil.read_bytes_or_none(path)
    if data is None or not record.get("added"):
        if not dry_run:
            journal.drop(record["key"])
        return report
    if sha256(data) == record.get("after_sha256"):
        report.changes.append(Change(path, "restore", "as it was before coffer"))
        if not dry_run:
            fsutil.atomic_write_bytes(path, journal.read_backup(record["before_sha256"]), mode=None)
    else:
        # The user (or git) changed the config since: take out only coffer's section.
        report.changes.append(Change(path, "update", f"removed filter.{FILTER}"))
        if not dry_run:
            _git(common, "config", "--file", str(path), "--remove-section", f"filter.{FILTER}")
    if not dry_run:
        journal.drop(record["key"])
    return report


# ---- per block file --------------------------------------------------------------------


def _release(journal: Journal, user: str, state: Mapping[str, Any], *, dry_run: bool) -> Report:
    report = Report()
    common = Path(state["common"])
    pattern = state["pattern"]
    if state["how"] == "exclude":
        exclude = common / "info" / "exclude"
        report.extend(_drop_line(journal, exclude, pattern, user, dry_run=dry_run))
    elif state["how"] == "filter":
        line = f"{pattern} filter={FILTER}"
        attributes = common / "info" / "attributes"
        report.extend(_drop_line(journal, attributes, line, user, dry_run=dry_run))
        report.extend(_drop_filter(journal, common, user, dry_run=dry_run))
    return report


def sync(journal: Journal, record: Record, *, wrote: bool, commit: bool, dry_run: bool) -> Report:
    """Hide the block file of ``record`` from git (or, with ``commit``, stop hiding it).

    Runs git only when the file was just written or the choice changed; a run that
    changed nothing costs one journal read.
    """
    report = Report()
    path = Path(record["path"])
    state: dict[str, Any] | None = record.get("git")
    if state is not None and not wrote and bool(state.get("commit")) == commit:
        return report
    user = str(path)
    repo = locate(path)
    rel = _relative(repo, path) if repo is not None else None
    how = "none"
    if repo is not None and rel is None:
        report.notices.append(f"{path}: git sees coffer's block (a path git patterns cannot name)")
    elif repo is not None and rel is not None and not commit:
        tracked, _ = _index_entry(repo, rel)
        if tracked:
            how = "filter"
        elif state is not None and state.get("how") == "exclude":
            how = "exclude"  # our own exclude line is why check-ignore says "ignored"
        elif _ignored(repo, rel):
            how = "none"
        else:
            how = "exclude" if record.get("created_file") else "filter"
    new_state: dict[str, Any] = {
        "how": how,
        "commit": commit,
        "common": str(repo.common) if repo else "",
        "top": str(repo.top) if repo else "",
        "pattern": f"/{rel}" if rel else "",
    }
    old = state or {}
    if old.get("how") not in (None, "none") and (
        (old.get("how"), old.get("common"), old.get("pattern"))
        != (how, new_state["common"], new_state["pattern"])
    ):
        report.extend(_release(journal, user, old, dry_run=dry_run))
        if old.get("how") == "filter" and not dry_run and old.get("top"):
            forget_stat(Repo(Path(old["top"]), Path(old["common"])), old["pattern"].lstrip("/"))
    if repo is not None and rel is not None:
        if how == "exclude":
            exclude = repo.common / "info" / "exclude"
            report.extend(
                _add_line(
                    journal,
                    exclude,
                    EXCLUDE_HEADER,
                    f"/{rel}",
                    user,
                    "git ignores the file coffer created",
                    dry_run=dry_run,
                )
            )
        elif how == "filter":
            attributes = repo.common / "info" / "attributes"
            line = f"/{rel} filter={FILTER}"
            report.extend(
                _add_line(
                    journal,
                    attributes,
                    ATTRIBUTES_HEADER,
                    line,
                    user,
                    "git reads the file without coffer's block",
                    dry_run=dry_run,
                )
            )
            report.extend(_add_filter(journal, repo, user, dry_run=dry_run))
    if dry_run:
        return report
    record["git"] = new_state
    journal.put(record)
    if how == "filter" and repo is not None and rel is not None:
        refresh_index(repo, rel)
    return report


def forget(journal: Journal, record: Record, *, dry_run: bool) -> Report:
    """The block of ``record`` was removed: refresh git's view of the file, then take back
    whatever hid it (the last user of a line or of the filter takes those too)."""
    state: dict[str, Any] | None = record.get("git")
    if not state or state.get("how") in (None, "none"):
        return Report()
    if not dry_run and state["how"] == "filter" and state.get("top"):
        repo = Repo(Path(state["top"]), Path(state["common"]))
        refresh_index(repo, state["pattern"].lstrip("/"))
    return _release(journal, str(record["path"]), state, dry_run=dry_run)
