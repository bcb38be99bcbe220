"""Undo with no journal at all: the store and the ledger were both deleted (docs/adr/0021).

What coffer wrote is still recognisable without a record: a managed block by its markers,
in the files the adapters name; a memory link by pointing into the store. Blocks are
removed (a hand-edited one only with ``--force``) and links are replaced by an empty
directory. A native-memory switch cannot be put back without its pre-image, and coffer
never guesses one: it says where a switch that is off is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coffer.adapter import Mode, NativeMemory
from coffer.base import fsutil, platform
from coffer.base.errors import BlockError, CofferError
from coffer.base.report import Change, Problem, Report
from coffer.projection import managed_block
from coffer.projection.agents import AgentSet
from coffer.projection.common import lstat_or_none, text_diff
from coffer.projection.git import files


def _inside(target: str, root: Path) -> bool:
    return target == str(root) or target.startswith(str(root) + os.sep)


def _block(path: Path, *, dry_run: bool, force: bool) -> Report:
    report = Report()
    st = lstat_or_none(path)
    if st is None or not stat.S_ISREG(st.st_mode):
        return report
    data = fsutil.read_bytes_or_none(path) or b""
    try:
        span = managed_block.find(data)
    except BlockError as exc:
        report.problems.append(Problem(path, "refused", f"{exc}; remove the block by hand"))
        return report
    if span is None:
        return report
    if span.edited and not force:
        report.problems.append(
            Problem(
                path,
                "refused",
                "a coffer block edited by hand, and no journal to check it against; keep what "
                "you need, then rerun with --force",
            )
        )
        return report
    new = managed_block.remove(data)
    report.changes.append(
        Change(
            path,
            "update",
            "without the coffer block (found by its markers)",
            text_diff(path, data, new),
        )
    )
    if not dry_run:
        fsutil.atomic_write_bytes(path, new, mode=None)
    if new.strip(b"\xef\xbb\xbf \t\r\n") == b"":
        report.notices.append(f"{path}: now empty; delete it if coffer created it")
    return report


def _link(path: Path, store: Path, *, dry_run: bool) -> Report:
    report = Report()
    st = lstat_or_none(path)
    if st is None or not platform.is_link(st) or not _inside(platform.read_link(path), store):
        return report
    report.changes.append(
        Change(path, "restore", "an empty directory in place of coffer's link into the store")
    )
    if not dry_run:
        platform.remove_link(path)  # a junction too, never what it points to
        fsutil.ensure_dir(path)
    return report


def _git_hints(root: Path) -> Report:
    # What hid the blocks from git: left as they are (a line's owner is unknown without the
    # journal), and said, since the filter fails once coffer is gone.
    report = Report()
    dotgit = root / ".git"
    for name, marker in (
        ("info/exclude", files.EXCLUDE_HEADER),
        ("info/attributes", files.ATTRIBUTES_HEADER),
    ):
        data = fsutil.read_bytes_or_none(dotgit / name)
        if data is not None and marker.encode() in data:
            report.notices.append(
                f"{dotgit / name}: delete the lines under coffer's comment by hand"
            )
    config = fsutil.read_bytes_or_none(dotgit / "config")
    if config is not None and f'[filter "{files.FILTER}"]'.encode() in config:
        report.notices.append(
            f"{dotgit / 'config'}: `git config --remove-section filter.{files.FILTER}` "
            "removes coffer's clean filter"
        )
    return report


def _native_hint(name: str, native: NativeMemory) -> str | None:
    """Where an agent's own memory is off: coffer may have turned it off, and cannot say."""
    data = fsutil.read_bytes_or_none(native.config)
    if data is None:
        return None
    try:
        on = native.enabled(data)
    except CofferError:
        on = True
    if on:
        return None
    what = native.describe or f"{name}'s own memory"
    return (
        f"{native.config}: {what} is off; if coffer turned it off, its record of "
        "the earlier value went with the store, so coffer leaves it: set it back "
        "by hand if you want it"
    )


def sweep(agents: AgentSet, root: Path | None, *, dry_run: bool, force: bool) -> Report:
    """Find and undo what coffer wrote for the global tier and ``root``'s project."""
    report = Report()
    store = agents.store.root
    ctx = agents.context(root)
    seen: set[Path] = set()
    for name, adapter in sorted(agents.loaded.adapters.items()):
        try:
            targets = list(adapter.targets(ctx))
            native = adapter.native_memory(ctx)
        except CofferError as exc:
            report.problems.append(Problem(Path(name), "error", str(exc)))
            continue
        for target in targets:
            if target.path in seen:
                continue
            seen.add(target.path)
            if target.mode is Mode.RENDER:
                report.extend(_block(target.path, dry_run=dry_run, force=force))
            elif target.mode is Mode.SYMLINK:
                report.extend(_link(target.path, store, dry_run=dry_run))
        hint = _native_hint(name, native) if native is not None else None
        if hint is not None:
            report.notices.append(hint)
    if root is not None:
        report.extend(_git_hints(root))
    if report.changes or report.problems or report.notices:
        report.notices.append(
            f"no journal in {store} or its ledger: coffer found its changes by their markers"
        )
    return report
