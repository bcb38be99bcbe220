"""The bounded vault scan shared by search, read and doctor (docs/vault-format.md §7.1)."""

# Paths stay `str` with os/os.path on purpose: the rules mirror Node's `path` semantics
# (lexical resolve, relative, realpath of a prefix) and the walk handles thousands of entries.

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from coffer.vault import cache as _cache
from coffer.vault.cache import ScanCache
from coffer.vault.collation import sorted_by
from coffer.vault.document import MAX_DOCUMENT_BYTES, parse
from coffer.vault.errors import VaultError, raw_os_error
from coffer.vault.io import decode_text, safe_read_bytes
from coffer.vault.roots import Roots, canonical, guard_scope_root
from coffer.vault.secret_policy import is_quarantined

if TYPE_CHECKING:
    from typing import Any

MAX_VISITED = 5_000
MAX_SCANNED_BYTES = 16_777_216
MAX_DEPTH = 8
MAX_DIAGNOSTICS = 100
_BOM = b"\xef\xbb\xbf"

# §7.1 public per-file errors: the only forms ever shown.
INVALID = ("invalid-document", "Memory document is invalid or unreadable.")
MISPLACED = ("location-mismatch", "Memory metadata does not match its vault location.")
QUARANTINED = ("suspected-secret", "Memory document was quarantined.")
_PROBLEMS = {_cache.INVALID: INVALID, _cache.MISPLACED: MISPLACED, _cache.QUARANTINED: QUARANTINED}


# Plain classes rather than dataclasses: importing dataclasses (and inspect with it) costs
# ~7 ms, a noticeable share of a `coffer vault search` (docs/adr/0011).
class Entry:
    """A parsed, location-checked, secret-free memory and its vault-relative path."""

    __slots__ = ("memory", "path")

    def __init__(self, memory: dict[str, Any], path: str) -> None:
        self.memory = memory
        self.path = path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return (self.memory, self.path) == (other.memory, other.path)

    def __repr__(self) -> str:
        return f"Entry(memory={self.memory!r}, path={self.path!r})"


def _display(name: str) -> str:
    # Node decodes directory entries as UTF-8 with U+FFFD for bad bytes; Python keeps them as
    # surrogate escapes. Show (and sort) them as the reference does.
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class _Walk:
    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.visited = 0
        self.truncated = False
        self.symlink_count = 0
        self.symlinks: list[str] = []
        # (absolute path, "/"-separated path relative to the scope root, readable)
        self.candidates: list[tuple[str, str, bool]] = []

    def _listing(self, directory: str) -> list[os.DirEntry[str]]:
        """At most the rest of the budget of ``directory``'s entries (any more: truncated)."""
        remaining = self.budget - self.visited
        entries: list[os.DirEntry[str]] = []
        try:
            with os.scandir(directory) as iterator:
                for entry in iterator:
                    if len(entries) >= remaining:
                        self.truncated = True
                        break
                    entries.append(entry)
        except OSError as exc:
            # The reference prints opendir errors without the path (§6.11).
            raise raw_os_error(exc, "opendir", None) from None
        return entries

    def visit(self, directory: str, rel: str, depth: int) -> None:
        if depth > MAX_DEPTH or self.visited >= self.budget:
            self.truncated = True
            return
        named = [(_display(entry.name), entry) for entry in self._listing(directory)]
        for name, entry in sorted_by(named, lambda pair: pair[0]):
            if self.visited >= self.budget:
                self.truncated = True
                return
            self.visited += 1
            child_rel = f"{rel}/{name}" if rel else name
            readable = name == entry.name
            if entry.is_symlink():
                self.symlink_count += 1
                if len(self.symlinks) < MAX_DIAGNOSTICS:
                    self.symlinks.append(child_rel)
            elif entry.is_dir(follow_symlinks=False):
                if not name.startswith("."):
                    if not readable:
                        # The reference would open the U+FFFD-spelled name, which is not there.
                        raise raw_os_error(FileNotFoundError(2, "x"), "opendir", None)
                    self.visit(entry.path, child_rel, depth + 1)
            elif (
                entry.is_file(follow_symlinks=False)
                and name.endswith(".md")
                and not name.startswith(".")
            ):
                self.candidates.append((entry.path, child_rel, readable))


def walk(root: str, budget: int) -> _Walk:
    """Walk one scope root with an entry budget; a missing root is an empty walk."""
    result = _Walk(budget)
    try:
        os.stat(root)
    except (FileNotFoundError, NotADirectoryError):
        return result
    result.visit(root, "", 0)
    return result


class VaultScan:
    """The loader's result: entries plus the §7.1 diagnostics.

    ``env`` decides whether the parse cache (:mod:`coffer.vault.cache`) is used and where it
    lives; None means no cache.
    """

    def __init__(self, env: Mapping[str, str] | None = None, *, write_cache: bool = True) -> None:
        self.entries: list[Entry] = []
        self.invalid_files: list[dict[str, str]] = []
        self.invalid_file_count = 0
        self.skipped_symlinks: list[str] = []
        self.skipped_symlink_count = 0
        self.visited = 0
        self.scanned_bytes = 0
        self.truncated = False
        self.env = env
        self.write_cache = write_cache

    def invalid(self, path: str, problem: tuple[str, str]) -> None:
        self.invalid_file_count += 1
        if len(self.invalid_files) < MAX_DIAGNOSTICS:
            self.invalid_files.append({"path": path, "code": problem[0], "message": problem[1]})

    @property
    def diagnostics_truncated(self) -> bool:
        return self.invalid_file_count > len(
            self.invalid_files
        ) or self.skipped_symlink_count > len(self.skipped_symlinks)

    def diagnostics(self) -> dict[str, Any]:
        return {
            "invalidFiles": self.invalid_files,
            "invalidFileCount": self.invalid_file_count,
            "skippedSymlinks": self.skipped_symlinks,
            "skippedSymlinkCount": self.skipped_symlink_count,
            "scannedBytes": self.scanned_bytes,
            "truncated": self.truncated,
            "diagnosticsTruncated": self.diagnostics_truncated,
        }

    def _record(self, vpath: str, outcome: int, memory: dict[str, Any] | None) -> None:
        if outcome == _cache.ENTRY and memory is not None:
            self.entries.append(Entry(memory, vpath))
        else:
            self.invalid(vpath, _PROBLEMS[outcome])

    def _load_file(
        self,
        scope: str,
        root: str,
        canon: str,
        candidate: tuple[str, str, bool],
        cache: ScanCache | None,
    ) -> bool:
        """Load one candidate; False means "stop this scope" (byte budget)."""
        path, rel, readable = candidate
        vpath = f"{scope}:{rel}"
        # The cache stands in for steps 2 and 6-8 only: the budget arithmetic below runs on
        # the cached decoded length exactly as on a fresh read.
        key = cache.key(path) if cache is not None and readable else None
        if key is not None and cache is not None:
            hit = cache.get(path, key)
            if hit is not None:
                cached_size, cached_outcome, cached_memory = hit
                if self.scanned_bytes + cached_size > MAX_SCANNED_BYTES:
                    self.truncated = True
                    return False
                self.scanned_bytes += cached_size
                self._record(vpath, cached_outcome, cached_memory)
                return True
        try:
            if not readable:
                raise VaultError("unreadable name")
            data = safe_read_bytes(
                path, "memory document", MAX_DOCUMENT_BYTES, root, canonical_root=canon
            )
            text = decode_text(data, "memory document")
        except (VaultError, OSError):
            self.invalid(vpath, INVALID)
            return True
        size = len(data) - 3 if data.startswith(_BOM) else len(data)
        if self.scanned_bytes + size > MAX_SCANNED_BYTES:
            self.truncated = True
            return False
        self.scanned_bytes += size
        memory: dict[str, Any] | None
        try:
            memory = parse(text, path, byte_length=size)
        except VaultError:
            memory, outcome = None, _cache.INVALID
        else:
            # Location check (Q13): scope and the first path segment only.
            if memory["scope"] != scope or rel.split("/", 1)[0] != memory["kind"] + "s":
                outcome = _cache.MISPLACED
            elif is_quarantined(memory):
                outcome = _cache.QUARANTINED
            else:
                outcome = _cache.ENTRY
        if key is not None and cache is not None:
            cache.put(path, key, size, outcome, memory)
        self._record(vpath, outcome, memory)
        return True

    def load_scope(self, roots: Roots, scope: str) -> None:
        root = guard_scope_root(roots, scope)
        walked = walk(root, MAX_VISITED - self.visited)
        self.visited += walked.visited
        self.truncated = self.truncated or walked.truncated
        self.skipped_symlink_count += walked.symlink_count
        for rel in walked.symlinks:
            if len(self.skipped_symlinks) >= MAX_DIAGNOSTICS:
                break
            self.skipped_symlinks.append(f"{scope}:{rel}")
        if not walked.candidates:
            return
        try:
            canon = canonical(root)
        except OSError:
            canon = ""
        cache = (
            ScanCache.open(self.env, scope, root, writable=self.write_cache)
            if self.env is not None
            else None
        )
        for candidate in walked.candidates:
            if self.scanned_bytes >= MAX_SCANNED_BYTES:
                self.truncated = True
                break
            if not self._load_file(scope, root, canon, candidate, cache):
                break
        if cache is not None:
            cache.save()


def load(
    roots: Roots,
    scopes: list[str],
    env: Mapping[str, str] | None = None,
    *,
    write_cache: bool = True,
) -> VaultScan:
    """§7.1 loading over normalized ``scopes``, in order.

    With ``env``, the parse cache of :mod:`coffer.vault.cache` may stand in for re-reading
    unchanged files (invisibly); without it every file is read. ``write_cache=False`` uses
    the cache without ever updating it.
    """
    scan = VaultScan(env, write_cache=write_cache)
    for scope in scopes:
        if scan.visited >= MAX_VISITED or scan.scanned_bytes >= MAX_SCANNED_BYTES:
            scan.truncated = True
            break
        scan.load_scope(roots, scope)
    return scan
