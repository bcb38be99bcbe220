"""The team tier: entries a project keeps in its own repository, in ``.coffer/memory/``.

The directory exists only where someone ran `coffer team init` (the team's invitation,
docs/adr/0036). Its files arrive by `git pull` from anyone with push access, so every read
here treats them as hostile (docs/adr/0018): the directory and its files must be real
(no symlink anywhere from the project root down), names are plain ``*.md`` components,
each file is read through ``O_NOFOLLOW`` up to a byte cap, the tier up to a count and a
total, text must be UTF-8 and the frontmatter parses at bounded cost (coffer.store.entry).
A file that fails any of these is skipped and reported by name (redacted); nothing raises.

Writes (`team init`, `team add`, `team remove`) are atomic and go only inside this
directory. They are not journaled: the directory is the team's content, committed and
reviewed like code, and `coffer unproject` leaves it alone.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import NamedTuple

from coffer.base import platform
from coffer.base.reads import read_at_most
from coffer.secrets import redact
from coffer.store.entry import Entry, EntryParseError, parse
from coffer.store.incoming import MAX_ENTRY_FILE

TEAM_PARTS = (".coffer", "memory")
INDEX_NAME = "MEMORY.md"
MAX_FILE_BYTES = MAX_ENTRY_FILE  # a team entry is an entry like a personal one (docs/adr/0043)
MAX_FILES = 500
MAX_TOTAL_BYTES = 4 * 1024 * 1024
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.md", re.ASCII)


class TeamProblem(NamedTuple):
    """A file of the team directory that is not read, and why (its name already redacted)."""

    filename: str
    why: str

    def line(self) -> str:
        return f"{'/'.join(TEAM_PARTS)}/{self.filename}: {self.why}; skipped"


class TeamScan(NamedTuple):
    """The team tier of one project: its entries (by file name) and the files skipped."""

    dir: Path
    entries: tuple[Entry, ...]
    problems: tuple[TeamProblem, ...]
    refused: bool = False  # the directory itself could not be read: no entries is no answer


def team_dir(root: Path) -> Path:
    return root.joinpath(*TEAM_PARTS)


def _real_dir(path: Path) -> str | None:
    """Why ``path`` is not a directory of the repository's own (None when it is)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink; coffer reads the team tier only from the repository itself"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    return None


def refusal(root: Path) -> str | None:
    """Why the project at ``root`` has no usable team tier (None: it has one)."""
    for depth in range(1, len(TEAM_PARTS) + 1):
        why = _real_dir(root.joinpath(*TEAM_PARTS[:depth]))
        if why is not None:
            return why if why == "missing" else f"{'/'.join(TEAM_PARTS[:depth])} {why}"
    return None


def _read(path: Path, budget: int) -> tuple[Entry | None, str | None]:
    """One team file, parsed, or why not; never follows a link or blocks on a FIFO."""
    try:
        fd = platform.open_nofollow(path, os.O_RDONLY | platform.NONBLOCK | platform.CLOEXEC)
    except platform.NotRegularFile:
        return None, "is not a regular file"  # a FIFO, refused unopened without O_NONBLOCK
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "is a symlink; coffer does not follow links in the team tier"
        return None, f"cannot be opened ({exc.strerror})"
    cap = min(MAX_FILE_BYTES, budget)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, "is not a regular file"
        data = read_at_most(fd, cap)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"
    finally:
        os.close(fd)
    if len(data) > cap:
        limit = (
            f"; an entry file holds at most {MAX_ENTRY_FILE // 1024} KiB"
            if cap == MAX_FILE_BYTES
            else ""
        )
        return None, f"is larger than {cap} bytes{limit}"
    if b"\x00" in data:
        return None, "is binary (holds NUL bytes)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "is not valid UTF-8"
    try:
        return parse(text, path.name), None
    except EntryParseError as exc:
        return None, str(exc)
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:
        return None, f"cannot be parsed ({type(exc).__name__})"


def _names(directory: Path) -> tuple[list[str], list[TeamProblem]]:
    names: list[str] = []
    problems: list[TeamProblem] = []
    with os.scandir(directory) as it:
        for de in it:
            name = de.name
            if name == INDEX_NAME or name.startswith("."):
                continue  # the generated index, git's and editors' hidden files
            if not _plain_name(name):
                why = "is not a plain NAME.md file name"
                problems.append(TeamProblem(redact(name.encode("unicode_escape").decode()), why))
                continue
            names.append(name)
    return sorted(names), problems


def scan(root: Path) -> TeamScan | None:
    """The team tier of the project at ``root``, or None when it has not opted in."""
    directory = team_dir(root)
    why = refusal(root)
    if why == "missing":
        return None
    if why is not None:
        return TeamScan(directory, (), (TeamProblem("", why),), refused=True)
    try:
        names, problems = _names(directory)
    except OSError as exc:
        why = f"cannot be listed ({exc.strerror})"
        return TeamScan(directory, (), (TeamProblem("", why),), refused=True)
    entries: list[Entry] = []
    left = MAX_TOTAL_BYTES
    for n, name in enumerate(names):
        if n >= MAX_FILES or left <= 0:
            rest = len(names) - n
            problems.append(TeamProblem("", f"{rest} more files past the first {n} were not read"))
            break
        entry, why_not = _read(directory / name, left)
        if entry is None:
            problems.append(TeamProblem(redact(name), why_not or "unreadable"))
            continue
        left -= len(entry.body.encode("utf-8", "surrogateescape")) + 1
        entries.append(entry)
    return TeamScan(directory, tuple(entries), tuple(problems))


def find(team: TeamScan, name: str) -> Entry | None:
    for entry in team.entries:
        if name in (entry.name, entry.filename, entry.filename.removesuffix(".md")):
            return entry
    return None


def _plain_name(name: str) -> bool:
    """A plain ``NAME.md``: a letter or digit, then up to 120 of those or ``._-``."""
    return _PLAIN_NAME.fullmatch(name) is not None
