"""The bounded vault scan shared by search, read and doctor (spec §7.1)."""

# Paths stay `str` with os/os.path on purpose: the rules mirror Node's `path` semantics
# (lexical resolve, relative, realpath of a prefix) and the walk handles thousands of entries.

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from coffer.vault.collation import sorted_by
from coffer.vault.document import MAX_DOCUMENT_BYTES, parse
from coffer.vault.errors import VaultError, raw_os_error
from coffer.vault.io import decode_text, safe_read_bytes
from coffer.vault.roots import Roots, canonical, guard_scope_root
from coffer.vault.secretscan import is_quarantined

MAX_VISITED = 5_000
MAX_SCANNED_BYTES = 16_777_216
MAX_DEPTH = 8
MAX_DIAGNOSTICS = 100
_BOM = b"\xef\xbb\xbf"

# §7.1 public per-file errors: the only forms ever shown.
INVALID = ("invalid-document", "Memory document is invalid or unreadable.")
MISPLACED = ("location-mismatch", "Memory metadata does not match its vault location.")
QUARANTINED = ("suspected-secret", "Memory document was quarantined.")


@dataclass(slots=True)
class Entry:
    """A parsed, location-checked, secret-free memory and its vault-relative path."""

    memory: dict[str, Any]
    path: str


def _display(name: str) -> str:
    # Node decodes directory entries as UTF-8 with U+FFFD for bad bytes; Python keeps them as
    # surrogate escapes. Show (and sort) them as the reference does.
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass
class _Walk:
    budget: int
    visited: int = 0
    truncated: bool = False
    symlink_count: int = 0
    symlinks: list[str] = field(default_factory=list)
    # (absolute path, "/"-separated path relative to the scope root, readable)
    candidates: list[tuple[str, str, bool]] = field(default_factory=list)

    def visit(self, directory: str, rel: str, depth: int) -> None:
        if depth > MAX_DEPTH or self.visited >= self.budget:
            self.truncated = True
            return
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
        named = [(_display(entry.name), entry) for entry in entries]
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


@dataclass
class Scan:
    """The loader's result: entries plus the §7.1 diagnostics."""

    entries: list[Entry] = field(default_factory=list)
    invalid_files: list[dict[str, str]] = field(default_factory=list)
    invalid_file_count: int = 0
    skipped_symlinks: list[str] = field(default_factory=list)
    skipped_symlink_count: int = 0
    visited: int = 0
    scanned_bytes: int = 0
    truncated: bool = False

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

    def _load_file(
        self, scope: str, root: str, canon: str, candidate: tuple[str, str, bool]
    ) -> bool:
        """Load one candidate; False means "stop this scope" (byte budget)."""
        path, rel, readable = candidate
        vpath = f"{scope}:{rel}"
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
        try:
            memory = parse(text, path, byte_length=size)
        except VaultError:
            self.invalid(vpath, INVALID)
            return True
        # Location check (Q13): scope and the first path segment only.
        if memory["scope"] != scope or rel.split("/", 1)[0] != memory["kind"] + "s":
            self.invalid(vpath, MISPLACED)
        elif is_quarantined(memory):
            self.invalid(vpath, QUARANTINED)
        else:
            self.entries.append(Entry(memory, vpath))
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
        for candidate in walked.candidates:
            if self.scanned_bytes >= MAX_SCANNED_BYTES:
                self.truncated = True
                return
            if not self._load_file(scope, root, canon, candidate):
                return


def load(roots: Roots, scopes: list[str]) -> Scan:
    """§7.1 loading over normalized ``scopes``, in order."""
    scan = Scan()
    for scope in scopes:
        if scan.visited >= MAX_VISITED or scan.scanned_bytes >= MAX_SCANNED_BYTES:
            scan.truncated = True
            break
        scan.load_scope(roots, scope)
    return scan
