"""The read-only audit (docs/vault-format.md §9)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.vault.collation import rank_key
from coffer.vault.scan import MAX_DIAGNOSTICS, VaultScan
from coffer.vault.search import visible

if TYPE_CHECKING:
    from typing import Any


def report(scan: VaultScan, target: str | None) -> dict[str, Any]:
    """Build the §9 report from a finished scan; never touches the vault."""
    entries = [entry for entry in scan.entries if visible(entry.memory, target)]
    groups: dict[str, list[str]] = {}
    for entry in entries:
        groups.setdefault(entry.memory["id"], []).append(entry.path)
    duplicates = [{"id": mid, "paths": paths} for mid, paths in groups.items() if len(paths) > 1]
    duplicates.sort(key=lambda item: rank_key(str(item["id"])))
    broken: list[dict[str, str]] = []
    broken_count = 0
    for entry in entries:
        for link in entry.memory["links"]:
            # Links to memories hidden by the target filter count as broken (Q14).
            if link not in groups:
                broken_count += 1
                if len(broken) < MAX_DIAGNOSTICS:
                    broken.append(
                        {"sourceId": entry.memory["id"], "targetId": link, "path": entry.path}
                    )
    broken.sort(key=lambda item: rank_key(item["sourceId"]))
    ok = (
        scan.invalid_file_count == 0
        and not duplicates
        and broken_count == 0
        and scan.skipped_symlink_count == 0
        and not scan.truncated
    )
    return {
        "schemaVersion": "ecc.memory.doctor.v1",
        "ok": ok,
        "memoryCount": len(entries),
        "invalidFiles": scan.invalid_files,
        "invalidFileCount": scan.invalid_file_count,
        "duplicateIds": duplicates[:MAX_DIAGNOSTICS],
        "duplicateIdCount": len(duplicates),
        "brokenLinks": broken,
        "brokenLinkCount": broken_count,
        "skippedSymlinks": scan.skipped_symlinks,
        "skippedSymlinkCount": scan.skipped_symlink_count,
        "scannedBytes": scan.scanned_bytes,
        "truncated": scan.truncated,
        "diagnosticsTruncated": scan.diagnostics_truncated
        or len(duplicates) > MAX_DIAGNOSTICS
        or broken_count > MAX_DIAGNOSTICS,
    }
