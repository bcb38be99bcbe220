"""The git files coffer adds to for a block file: lines in ``info/exclude`` and
``info/attributes``, and the ``filter.coffer`` entry in ``config``.

Each of the three files has one journal record listing its users (block files): a line, or
the filter entry, goes when its last user goes, and a file that only coffer changed since
is given back byte for byte (docs/adr/0015-blocks-out-of-git.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from coffer.base import fsutil
from coffer.base.errors import CofferError
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import ensure_parent, now_iso, remove_created_dirs
from coffer.projection.git.repo import Repo, filter_command, git, output
from coffer.projection.journal import Journal, JournalRecord, sha256

FILTER = "coffer"
EXCLUDE_HEADER = "# coffer: memory files it created (`coffer unproject` removes these lines)"
ATTRIBUTES_HEADER = "# coffer: keep its memory block out of git (`coffer unproject` removes these)"


def _has_line(data: bytes, line: str) -> bool:
    return line.encode() in data.splitlines()


def _without_line(data: bytes, line: str) -> bytes:
    """``data`` without the last line equal to ``line`` (line break included)."""
    lines = data.splitlines(keepends=True)
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].rstrip(b"\r\n") == line.encode():
            return b"".join(lines[:i] + lines[i + 1 :])
    return data


class Edit:
    """What one change to a git file would do: ``report`` says it, ``steps`` do it (each
    may amend the report, e.g. when git refuses)."""

    def __init__(self) -> None:
        self.report = Report()
        self.steps: list[Callable[[Report], object]] = []

    def run(self, *, dry_run: bool) -> Report:
        """The plan alone on a dry run; else the plan applied."""
        if not dry_run:
            for step in self.steps:
                step(self.report)
        return self.report


class Line(NamedTuple):
    """A line coffer adds to a git info file, under its comment, and why."""

    header: str
    text: str
    why: str


def _new_record(path: Path, kind: str, data: bytes | None) -> JournalRecord:
    return JournalRecord(
        key=f"git:{path}",
        path=str(path),
        kind=kind,
        created_file=data is None,
        before_sha256=None if data is None else sha256(data),
        created_at=now_iso(),
        updated_at=now_iso(),
    )


def _opened(
    journal: Journal, path: Path, kind: str, data: bytes | None
) -> tuple[JournalRecord, Edit]:
    """The record of ``path`` (a new one backs up ``data`` first) and an edit to fill in."""
    found = journal.load(f"git:{path}")
    edit = Edit()
    if found is None and data is not None:
        edit.steps.append(lambda _: journal.backup_bytes(data))
    return found or _new_record(path, kind, data), edit


def _with_user(record: JournalRecord, name: str, user: str) -> JournalRecord:
    users = {k: list(v) for k, v in record.users.items()}
    mine = users.setdefault(name, [])
    if user not in mine:
        mine.append(user)
        mine.sort()
    return record.but(users=users)


def _without_user(record: JournalRecord, name: str, user: str) -> JournalRecord:
    users = {k: list(v) for k, v in record.users.items()}
    left = [u for u in users.pop(name, []) if u != user]
    if left:
        users[name] = left
    return record.but(users=users)


def _write(
    journal: Journal, record: JournalRecord, path: Path, data: bytes | None, new: bytes
) -> None:
    if data is None and not record.created_dirs:
        record = record.but(created_dirs=tuple(ensure_parent(path)))
    journal.save(record)  # before the write: a crash leaves a record of what was there
    fsutil.atomic_write_bytes(path, new, mode=None)
    journal.save(record.but(after_sha256=sha256(new), updated_at=now_iso()))


def add_line(journal: Journal, path: Path, line: Line, user: str) -> Edit:
    """Add ``line`` for ``user`` (a block file), unless the file already has it."""
    data = fsutil.read_bytes_or_none(path)
    record, edit = _opened(journal, path, "git-lines", data)
    record = _with_user(record, line.text, user)
    if data is not None and _has_line(data, line.text):
        # The user's own line, or ours: either way it stays.
        edit.steps.append(lambda _: journal.save(record))
        return edit
    new = data or b""
    if new and not new.endswith(b"\n"):
        new += b"\n"
    added = list(record.added)
    if not _has_line(new, line.header):
        new += line.header.encode() + b"\n"
        added += [line.header] if line.header not in added else []
    new += line.text.encode() + b"\n"
    added += [line.text] if line.text not in added else []
    record = record.but(added=tuple(added))
    action = "create" if data is None else "update"
    edit.report.changes.append(Change(path, action, f"{line.text} ({line.why})"))
    edit.steps.append(lambda _: _write(journal, record, path, data, new))
    return edit


def _release(
    journal: Journal, path: Path, name: str, user: str
) -> tuple[JournalRecord | None, Edit]:
    """``path``'s record without ``user`` of ``name``, if that was the last user of it;
    else None, and an edit that records who still uses it."""
    edit = Edit()
    found = journal.load(f"git:{path}")
    if found is None:
        return None, edit
    record = _without_user(found, name, user)
    if name in record.users:
        edit.steps.append(lambda _: journal.save(record))
        return None, edit
    return record, edit


def drop_line(journal: Journal, path: Path, line: str, user: str) -> Edit:
    """``user`` no longer needs ``line``: the last user takes it out."""
    record, edit = _release(journal, path, line, user)
    if record is None:
        return edit
    data, key = fsutil.read_bytes_or_none(path), record.key
    if data is None:
        edit.steps.append(lambda _: journal.drop(key))
        return edit
    if not record.users:
        return _give_back(journal, record, path, data)
    new = _without_line(data, line) if line in record.added else data
    record = record.but(added=tuple(a for a in record.added if a != line))
    if new != data:
        edit.report.changes.append(Change(path, "update", f"removed {line}"))
        edit.steps.append(lambda _: _write(journal, record, path, data, new))
    else:
        edit.steps.append(lambda _: journal.save(record))
    return edit


def _give_back(journal: Journal, record: JournalRecord, path: Path, data: bytes) -> Edit:
    """The last user is gone: the file as it was if only coffer wrote it since, else the
    file without coffer's lines."""
    edit = Edit()
    if sha256(data) == record.after_sha256 and record.created_file:
        edit.report.changes.append(Change(path, "remove", "deleted the file coffer created"))
        edit.steps.append(lambda _: fsutil.unlink(path))
        edit.steps.append(lambda _: remove_created_dirs(list(record.created_dirs)))
    elif sha256(data) == record.after_sha256:
        edit.report.changes.append(Change(path, "restore", "as it was before coffer"))
        before = str(record.before_sha256)
        edit.steps.append(
            lambda _: fsutil.atomic_write_bytes(path, journal.read_backup(before), mode=None)
        )
    else:
        new = data
        for line in record.added:
            new = _without_line(new, line)
        if new != data:
            edit.report.changes.append(Change(path, "update", "removed coffer's lines"))
            edit.steps.append(lambda _: fsutil.atomic_write_bytes(path, new, mode=None))
    edit.steps.append(lambda _: journal.drop(record.key))
    return edit


def smudge_dir(journal: Journal) -> Path:
    """Where the smudge command finds each filtered file's block (coffer.gitfilter)."""
    return journal.dir.parent / "state" / "git-blocks"


def keep_block(journal: Journal, path: Path) -> None:
    """Record the block ``path`` holds now, for the smudge command; none: forget it."""
    from coffer.projection.managed_block import block_key, find

    cache = smudge_dir(journal) / block_key(str(path))
    try:
        data = fsutil.read_bytes_or_none(path)
        span = find(data) if data is not None else None
    except CofferError:
        span = None
    if span is None:
        if cache.exists():
            fsutil.unlink(cache)
        return
    fsutil.ensure_dir(cache.parent)
    fsutil.write_if_changed(cache, span.body.encode("utf-8", "surrogateescape"))


def filter_current(common: Path) -> bool:
    """Whether ``<common>/config`` names this interpreter's clean command, read from the
    file (no git process): a venv moved since the filter was set leaves a command that no
    longer runs, and the next run that writes sets it again."""
    data = fsutil.read_bytes_or_none(common / "config") or b""
    return filter_command().encode() in data.replace(b'\\"', b'"')


def broken_filter(config: Path) -> str | None:
    """Why the clean command ``config`` names for coffer's filter cannot run, or None.

    Run the way git runs it (through the shell, the file on stdin): a block that went
    through it must come back without the block.
    """
    import subprocess

    command = output(git(config.parent, "config", "--file", str(config), f"filter.{FILTER}.clean"))
    if command is None:
        return None
    import shutil

    from coffer.projection.managed_block import upsert

    shell = shutil.which("sh")
    if shell is None:
        return None  # git runs filters through sh: with none, git cannot run it either
    sample = upsert(b"user text\n", "probe")
    try:
        ran = subprocess.run(
            [shell, "-c", command], input=sample, capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"`{command}` cannot run ({exc})"
    if ran.returncode != 0 or ran.stdout != b"user text\n":
        err = ran.stderr.decode(errors="replace").strip().splitlines()
        return f"`{command}` fails ({err[-1] if err else f'exit {ran.returncode}'})"
    return None


# ---- the filter entry in config ----------------------------------------------------------


def add_filter(journal: Journal, repo: Repo, user: str) -> Edit:
    """Set ``filter.coffer.clean`` in the repository's config for ``user``."""
    path = repo.common / "config"
    data = fsutil.read_bytes_or_none(path)
    record, edit = _opened(journal, path, "git-config", data)
    record = _with_user(record, FILTER, user)
    command = filter_command()
    # `required`: when the command cannot run (a moved or removed venv), git refuses to add
    # the file instead of storing it uncleaned, block and all. A required filter needs a
    # smudge command too; it puts the block back when git writes the file, and when the
    # command cannot start at all, `cat` writes the file as stored: a checkout never fails.
    import shlex  # as filter_command: only where the filter is set

    blocks = shlex.quote(str(smudge_dir(journal)))
    wanted = {
        f"filter.{FILTER}.clean": command,
        f"filter.{FILTER}.smudge": f"{command} --smudge %f {blocks} || cat",
        f"filter.{FILTER}.required": "true",
    }
    if all(output(git(repo.top, "config", "--file", str(path), k)) == v for k, v in wanted.items()):
        edit.steps.append(lambda _: journal.save(record))
        return edit
    why = f"filter.{FILTER}.clean, which strips coffer's block"
    edit.report.changes.append(Change(path, "update", why))

    def set_filter(report: Report) -> None:
        journal.save(record)
        for key, value in wanted.items():
            result = git(repo.top, "config", "--file", str(path), key, value)
            if result is None or result.returncode != 0:
                report.changes.pop()
                why = result.stderr.decode(errors="replace").strip() if result else "git not found"
                report.problems.append(Problem(path, "error", f"cannot set the filter: {why}"))
                return
        after = sha256(fsutil.read_bytes_or_none(path) or b"")
        journal.save(record.but(added=(FILTER,), after_sha256=after, updated_at=now_iso()))

    edit.steps.append(set_filter)
    return edit


def drop_filter(journal: Journal, common: Path, user: str) -> Edit:
    """``user`` no longer needs the filter: the last user takes it out."""
    path = common / "config"
    record, edit = _release(journal, path, FILTER, user)
    if record is None:
        return edit
    data = fsutil.read_bytes_or_none(path)
    if data is not None and record.added and sha256(data) == record.after_sha256:
        edit.report.changes.append(Change(path, "restore", "as it was before coffer"))
        before = str(record.before_sha256)
        edit.steps.append(
            lambda _: fsutil.atomic_write_bytes(path, journal.read_backup(before), mode=None)
        )
    elif data is not None and record.added:
        # The user (or git) changed the config since: take out only coffer's section.
        edit.report.changes.append(Change(path, "update", f"removed filter.{FILTER}"))
        section = f"filter.{FILTER}"
        edit.steps.append(
            lambda _: git(common, "config", "--file", str(path), "--remove-section", section)
        )
    edit.steps.append(lambda _: journal.drop(record.key))
    return edit
