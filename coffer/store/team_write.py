"""Writing the team tier: `coffer team init`, `add` and `remove` (docs/adr/0036).

Each write is atomic and stays inside ``<root>/.coffer/memory/``; ``MEMORY.md`` there is
regenerated after every change, so the directory is never empty (git keeps no empty
directory, and a teammate's clone must see that the project opted in). Promotion is the
only way personal memory reaches the team tier, and it passes the store's secret gate.
"""

from __future__ import annotations

from pathlib import Path

from coffer.base import fsutil
from coffer.base.errors import EntryExistsError, EntryNotFoundError, InvalidInputError
from coffer.base.suggest import command
from coffer.store import team
from coffer.store.entry import Entry, serialize
from coffer.store.team import INDEX_NAME, TEAM_PARTS, TeamScan

# The keys a promoted entry keeps: which session wrote it stays personal.
_KEPT_KEYS = ("type", "id", "created_at", "updated_at", "origin", "origin_at")
_INDEX_HEAD = (
    "# Team memory\n\n"
    "Entries this project shares through its repository (coffer's team tier). Review them "
    "like code; `coffer team add NAME` promotes a personal entry, `coffer team remove NAME` "
    "drops one. This index is regenerated.\n\n"
)


def _index_text(scan: TeamScan) -> str:
    from coffer.store.entry import withheld
    from coffer.store.index import entry_line

    # Committed with the code: an entry the gate flags (a teammate's file) is not listed.
    shown = [e for e in scan.entries if not withheld(e)]
    lines = [entry_line(e) for e in sorted(shown, key=lambda e: e.filename)]
    return _INDEX_HEAD + "".join(f"{line}\n" for line in lines)


def _refuse_links(root: Path) -> None:
    why = team.refusal(root)
    if why not in (None, "missing"):
        raise InvalidInputError(f"{team.team_dir(root)}: {why}")


def _regenerate(root: Path) -> TeamScan:
    scan = team.scan(root)
    assert scan is not None  # called with the directory in place
    fsutil.write_if_changed(scan.dir / INDEX_NAME, _index_text(scan).encode(), mode=None)
    return scan


def init(root: Path) -> tuple[Path, bool]:
    """Create the team directory (and its index); return it and whether it was new."""
    _refuse_links(root)
    directory = team.team_dir(root)
    created = not directory.exists()
    fsutil.ensure_dir(directory, mode=0o755)
    _refuse_links(root)  # made between the check and the mkdir: still never followed
    _regenerate(root)
    return directory, created


def require(root: Path) -> TeamScan:
    scan = team.scan(root)
    if scan is None:
        raise InvalidInputError(
            f"{root} has no team tier; `coffer team init` there creates {'/'.join(TEAM_PARTS)}/"
        )
    if scan.refused:
        raise InvalidInputError(f"{scan.dir}: {scan.problems[0].why}")
    return scan


def promoted(entry: Entry) -> Entry:
    """The team copy of a personal entry: same name, text and type, no session keys."""
    meta = {k: entry.metadata[k] for k in _KEPT_KEYS if k in entry.metadata}
    meta.setdefault("origin", "unknown")  # the personal origin survives (docs/adr/0051)
    return Entry(entry.name, entry.description, entry.body, meta, f"{entry.name}.md")


def _author(root: Path) -> str:
    """``team:<git author>`` of the clone at ``root`` (who promoted the entry)."""
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None:
        return "team:unknown"
    try:
        done = subprocess.run(
            [git, "-C", str(root), "var", "GIT_AUTHOR_IDENT"],
            capture_output=True,
            # git prints the name as configured, UTF-8 by convention: never the ANSI code
            # page text=True would assume on Windows, and no crash on a stray byte.
            encoding="utf-8",
            errors="replace",
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "team:unknown"
    ident = done.stdout.strip().rsplit(" ", 2)[0] if done.returncode == 0 else ""
    return f"team:{ident or 'unknown'}"


def add(root: Path, entry: Entry) -> Path:
    """Write ``entry`` into the team tier; refuses a secret and any name already there."""
    from coffer.store.drafts import check_file_size, check_secrets

    scan = require(root)
    check_secrets(entry.name, entry.description, entry.body, entry.filename)
    if entry.metadata.get("pending") is True:  # an agent's, not yet accepted (ADR 0054)
        raise InvalidInputError(
            f"{entry.name} is an agent's entry waiting for you: accept it first "
            f"({command('coffer', 'review')})"
        )
    copy = promoted(entry)
    copy = copy._replace(metadata={**copy.metadata, "updated_by": _author(root)})
    clash = team.find(scan, copy.name) or team.find(scan, copy.filename)
    taken = {p.filename for p in scan.problems}
    if clash is not None or copy.filename in taken or (scan.dir / copy.filename).exists():
        where = clash.filename if clash is not None else copy.filename
        raise EntryExistsError(
            f"the team tier already has an entry named {copy.name!r} ({where}); "
            f"{command('coffer', 'team', 'remove', copy.name)} first, or rename the personal entry"
        )
    path = fsutil.safe_child(scan.dir, copy.filename)
    text = serialize(copy)
    check_file_size(text, copy.filename)  # what the team tier would not read back
    fsutil.atomic_write_text(path, text, mode=None)
    _regenerate(root)
    return path


def remove(root: Path, name: str) -> Path:
    """Delete the team entry ``name`` (git keeps its history); return its path."""
    scan = require(root)
    found = team.find(scan, name)
    if found is None:
        raise EntryNotFoundError(f"no team entry named {name!r} in {scan.dir}")
    path = fsutil.safe_child(scan.dir, found.filename)
    fsutil.unlink(path)
    _regenerate(root)
    return path
