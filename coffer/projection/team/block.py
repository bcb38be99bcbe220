"""The team block: a project's ``.coffer/memory/`` rendered into the files its agents read.

Its own markers (managed_block.TEAM), so git's clean filter, which strips the personal
block, leaves it in: the repository carries it, and an agent that reads only the
repository (a cloud agent, a clone without coffer) reads it natively (docs/adr/0036). Its
body is a pure function of the committed entries, so a teammate's `coffer project` renders
the same bytes and `git status` stays clean; a change shows up as a change to commit.

It goes into every project-tier block file inside the project, and for an adapter whose
project tier is a link (Claude) into the first of its ``TEAM_FILES`` that exists, else the
last of them is created. It is written before the personal blocks, so their budget counts
it. Each write is atomic and journaled (``team:<path>``); `coffer unproject` removes it and
leaves ``.coffer/memory/`` alone. A hand edit inside it is overwritten: the entries are
the source, and they are in git.
"""

from __future__ import annotations

import stat
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Features
from coffer.base import fsutil
from coffer.base.errors import BlockError, CofferError
from coffer.base.report import Change, Problem, Report, plural
from coffer.projection import managed_block
from coffer.projection.agents import Targets
from coffer.projection.blocks import content
from coffer.projection.common import ensure_parent, lstat_or_none, mtime_ns, now_iso, text_diff
from coffer.projection.hook import GaveUp
from coffer.projection.journal import Journal, JournalRecord, sha256
from coffer.projection.team.kind import undo
from coffer.store import Entry, team

if TYPE_CHECKING:
    from coffer.projection.run import Run

# An adapter's optional members (its TEAM_FILES, its FACTS), as the registry checked them:
# asked only for the adapters the team block looks at, as it looks.
FeaturesOf = Callable[[str], Features]

TITLE = "Team memory (this repository's .coffer/memory/)"
BUDGET = 8 * 1024  # bytes of block body: the personal blocks share the agents' caps


def key(path: Path | str) -> str:
    return f"team:{path}"


def _inside(path: Path, root: Path) -> bool:
    return path.is_relative_to(root)


def files(
    run: Run, root: Path, targets: Targets, adapters: Collection[str], features_of: FeaturesOf
) -> dict[Path, list[str]]:
    """The files inside ``root`` that get the team block, each with the adapters reading it."""
    out: dict[Path, list[str]] = defaultdict(list)
    for file, items in targets.blocks.items():
        for name, target in items:
            if target.tier == "project" and _inside(file, root):
                out[file].append(name)
    home = run.ctx.home
    for name, target in targets.links:
        features = features_of(name)
        names = features.team_files if name in adapters else ()
        if target.tier != "project" or not names:
            continue
        file = next((root / n for n in names if _regular(root / n)), None) or root / names[-1]
        imports = features.facts.imports if features.facts is not None else None
        if imports is not None and _imports_one_of(file, set(out), imports.depth, home):
            continue  # a CLAUDE.md with `@AGENTS.md`: the agent reads that file's team block
        out[file].append(name)
    return out


def _imports_one_of(file: Path, blocks: set[Path], depth: int, home: Path) -> bool:
    """Whether ``file`` imports (directly or through its imports, ``depth`` deep as the agent
    follows them) one of ``blocks``, the files that get the team block anyway: a second copy
    would reach the agent twice (docs/adr/0046)."""
    from coffer.projection.blocks import imports

    todo, seen = [(file, 0)], {file}
    while todo:
        at, level = todo.pop()
        data = fsutil.read_bytes_or_none(at) if level + 1 < depth else None
        for token in imports.tokens(data.decode("utf-8", "surrogateescape")) if data else ():
            path = imports.resolve(token, at, home)
            if path in blocks:
                return True
            if path not in seen and path.is_file():
                seen.add(path)
                todo.append((path, level + 1))
    return False


def dropped(
    root: Path, chosen: Mapping[Path, object], adapters: Collection[str], features_of: FeaturesOf
) -> list[Path]:
    """The files one of ``adapters`` could hold the team block in (its ``TEAM_FILES``) that
    it no longer gets: a block coffer wrote there before (when the file had no import of
    the shared one, or another file was the first of them) goes."""
    out: list[Path] = []
    for name in adapters:
        for n in features_of(name).team_files:
            if root / n not in chosen and root / n not in out:
                out.append(root / n)
    return out


def _regular(path: Path) -> bool:
    # A `CLAUDE.md -> AGENTS.md` link is common: the file it shows gets the block itself.
    st = lstat_or_none(path)
    return st is not None and stat.S_ISREG(st.st_mode)


def render(data: bytes | None, entries: Sequence[Entry]) -> tuple[bytes, content.BlockBody]:
    """``data`` with its team block holding ``entries``, and what the block shows."""
    body = content.render(TITLE, "team", entries, BUDGET)
    return managed_block.upsert(data, body.body, managed_block.TEAM), body


def establish(
    run: Run,
    project: tuple[Path, str | None],
    targets: Targets,
    adapters: Collection[str],
    features_of: FeaturesOf,
) -> Report:
    """Render the team tier of the project (root, id), if it has one, into its files: those
    of ``targets`` (the targets of the enabled ``adapters``) inside it."""
    report = Report()
    root, journal, dry_run = project[0], run.journal, run.dry_run
    scan = team.scan(root)
    chosen = sorted(files(run, root, targets, adapters, features_of).items())
    if scan is None:
        # No team tier (never, or `.coffer/memory` removed): the blocks coffer wrote for
        # one go, as `unproject` would take them (one journal read per file).
        for file, _ in chosen:
            record = journal.load(key(file))
            if record is not None:
                with run.step():
                    gone = undo(journal, record, dry_run=dry_run, force=False, keep=True)
                    report.extend(gone)
        return report
    report.notices += [f"team tier: {p.line()}" for p in scan.problems]
    if scan.refused:
        return report  # a tier that cannot be read is not an empty one: blocks stay as they are
    for file in dropped(root, dict(chosen), adapters, features_of):
        record = journal.load(key(file))
        if record is not None and record.project_id == project[1]:
            with run.step():
                report.extend(undo(journal, record, dry_run=dry_run, force=False, keep=True))
    for file, names in chosen:
        job = _Job(file, tuple(names), project[1], scan.entries)
        with run.step():
            try:
                report.extend(_one(journal, job, dry_run=dry_run))
            except GaveUp:
                raise  # the session start's deadline: stop here, like every other step
            except (OSError, CofferError) as exc:
                report.problems.append(Problem(file, "error", f"team block: {exc}"))
    return report


class _Job(NamedTuple):
    file: Path
    names: tuple[str, ...]
    project_id: str | None
    entries: Sequence[Entry]


def _one(journal: Journal, job: _Job, *, dry_run: bool) -> Report:
    file, names, entries = job.file, job.names, job.entries
    report = Report()
    st = lstat_or_none(file)
    if st is not None and not stat.S_ISREG(st.st_mode):
        why = "not a regular file; coffer left it alone (team block)"
        report.problems.append(Problem(file, "foreign", why))
        return report
    data = fsutil.read_bytes_or_none(file)
    try:
        new, body = render(data, entries)
    except BlockError as exc:
        why = f"team block: {exc}; fix the markers by hand (a merge may have left two)"
        report.problems.append(Problem(file, "malformed", why))
        return report
    if body.withheld_secrets:  # redacted names: the gate keeps them out of the repository
        withheld = ", ".join(body.withheld_secrets)
        report.notices.append(
            f"{file}: team entries not rendered, they look like secrets: {withheld}"
        )
    if body.omitted:
        report.notices.append(f"{file}: {len(body.omitted)} team entries did not fit the block")
    record = journal.load(key(file))
    if new == data:
        if record is not None:
            merged = tuple(sorted(set(record.adapters) | set(names)))
            if merged != record.adapters and not dry_run:
                journal.save(record.but(adapters=merged))
        return report  # as committed (or as written before): nothing of coffer's to record
    action = "create" if data is None else "update"
    detail = plural(body.shown_full + body.shown_line, "team entry", "team entries")
    report.changes.append(Change(file, action, detail, text_diff(file, data, new)))
    if dry_run:
        return report
    if record is None:
        record = _new_record(journal, job, data)
    record = record.but(adapters=tuple(sorted(set(record.adapters) | set(names))))
    journal.save(record)  # before the write: a crash leaves a record of what was there
    if fsutil.read_bytes_or_none(file) != data:  # written meanwhile: never replace unseen bytes
        report.changes.pop()
        why = "the file changed while coffer was updating it; run `coffer project` again"
        report.problems.append(Problem(file, "refused", why))
        return report
    fsutil.atomic_write_bytes(file, new, mode=None)
    journal.save(record.but(after_sha256=sha256(new), updated_at=now_iso()))
    _unhide(journal, file)
    return report


def _new_record(journal: Journal, job: _Job, data: bytes | None) -> JournalRecord:
    file = job.file
    dirs = ensure_parent(file) if data is None else []
    if data is not None:
        journal.backup_bytes(data)
    return JournalRecord(
        kind="team",
        key=key(file),
        path=str(file),
        tier="project",
        project_id=job.project_id,
        adapters=tuple(sorted(job.names)),
        created_file=data is None,
        created_dirs=tuple(dirs),
        before_sha256=None if data is None else sha256(data),
        before_mtime_ns=mtime_ns(file) if data is not None else None,
        created_at=now_iso(),
        updated_at=now_iso(),
    )


def _unhide(journal: Journal, file: Path) -> None:
    """A file coffer created for its personal block is excluded from git; once it holds the
    team block git must see it (the clean filter still keeps the personal block out)."""
    from coffer.projection.git import hiding

    personal = journal.load(file)
    if personal is not None and personal.git is not None and personal.git.how == "exclude":
        hiding.sync(journal, personal, wrote=True, commit=personal.git.commit, dry_run=False)
