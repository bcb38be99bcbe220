"""The library operations (docs/vault-format.md §1.4): plain data in, plain data out.

Every function returns dicts in the reference's JSON shapes and raises
:class:`~coffer.vault.errors.VaultError` carrying the exact reference message, so the CLI
and an MCP front end are thin layers over this module.
"""

# Paths stay `str` with os/os.path on purpose: the rules mirror Node's `path` semantics
# (lexical resolve, relative, realpath of a prefix) and the walk handles thousands of entries.

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from coffer.vault import doctor as _doctor
from coffer.vault.collation import rank_key
from coffer.vault.document import MAX_DOCUMENT_BYTES, serialize
from coffer.vault.errors import VaultError
from coffer.vault.ids import generate_id, now_timestamp
from coffer.vault.io import (
    DestinationExistsError,
    create_only_write,
    make_dirs,
    safe_read_text,
)
from coffer.vault.roots import (
    Roots,
    guard_kind_dir,
    guard_scope_root,
    normalize_scopes,
    resolve_roots,
)
from coffer.vault.scan import MAX_DIAGNOSTICS, VaultScan, load
from coffer.vault.search import (
    normalize_limit,
    rank,
    validate_kinds,
    validate_query,
    validate_target,
    visible,
)
from coffer.vault.secret_policy import scan_for_save
from coffer.vault.validate import KINDS, SCHEMA, enum_value, memory_id, normalize, summary

if TYPE_CHECKING:
    from typing import Any

GITIGNORE = "*\n!.gitignore\n"


def _js_falsy(value: object) -> bool:
    # `input.x || default` in the reference: undefined, null, "", 0, NaN and false.
    if value is None or value is False or value == "":
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == 0 or math.isnan(value)
    return False


def _or(value: object, default: object) -> object:
    return default if _js_falsy(value) else value


def _ensure_gitignore(root: str) -> None:
    """§6.7: the fail-closed project ``.gitignore``, created once, verified after."""
    path = os.path.join(root, ".gitignore")
    try:
        create_only_write(path, GITIGNORE, root)
    except DestinationExistsError:
        existing = safe_read_text(path, "project memory .gitignore", MAX_DOCUMENT_BYTES, root)
        if existing != GITIGNORE:
            raise VaultError(
                "Project memory .gitignore does not contain the required fail-closed rules."
            ) from None


def _prepare_scope(root: str, scope: str) -> None:
    make_dirs(root)
    if scope == "project":
        _ensure_gitignore(root)


def initialize(scopes: object = None, *, roots: Roots | None = None) -> dict[str, Any]:
    """§6.10: create the scope roots and their kind directories (idempotent)."""
    roots = roots or resolve_roots()
    normalized = normalize_scopes(scopes)
    directories: list[str] = []
    for scope in normalized:
        root = guard_scope_root(roots, scope)
        _prepare_scope(root, scope)
        for kind in KINDS:
            directory = guard_kind_dir(root, kind)
            make_dirs(directory)
            directories.append(directory)
    return {"scopes": normalized, "roots": roots.as_dict(), "directories": directories}


def save(
    data: Mapping[str, Any],
    *,
    roots: Roots | None = None,
    now: Callable[[], str] | None = None,
    id_factory: Callable[[str], str] | None = None,
    reference_secret_scan: bool = False,
) -> dict[str, Any]:
    """§6.9: validate, scan for secrets, then create-only write. Returns ``{memory, path}``.

    ``path`` is the absolute destination. ``data`` uses the object keys (``sourceHarness``
    ...); ``id`` may be given explicitly, else ``id_factory(createdAt)`` or a generated id.
    ``reference_secret_scan`` restores the reference's JSON-only scan (Q1).
    """
    roots = roots or resolve_roots()
    timestamp = (now or now_timestamp)()
    explicit_id = data.get("id")
    if not _js_falsy(explicit_id):
        new_id: object = explicit_id
    elif id_factory is not None:
        new_id = id_factory(timestamp)
    else:
        new_id = generate_id(timestamp)
    candidate = {
        "schema": SCHEMA,
        "id": new_id,
        "title": data.get("title"),
        "kind": _or(data.get("kind"), "note"),
        "scope": _or(data.get("scope"), "project"),
        "trust": "unreviewed",
        "status": "active",
        "sourceHarness": _or(data.get("sourceHarness"), "unknown"),
        "targetHarnesses": _or(data.get("targetHarnesses"), ["all"]),
        "tags": _or(data.get("tags"), []),
        "links": _or(data.get("links"), []),
        "createdAt": timestamp,
        "updatedAt": timestamp,
        "body": _or(data.get("body"), ""),
    }
    memory = normalize(candidate)
    scan_for_save(memory, reference=reference_secret_scan)
    root = guard_scope_root(roots, memory["scope"])
    _prepare_scope(root, memory["scope"])
    directory = guard_kind_dir(root, memory["kind"])
    make_dirs(directory)
    destination = os.path.join(directory, f"{memory['id']}.md")
    try:
        create_only_write(destination, serialize(memory), root)
    except DestinationExistsError:
        raise VaultError(f"Memory {memory['id']} already exists; writes are create-only.") from None
    return {"memory": memory, "path": destination}


def _load(roots: Roots | None, scopes: object, env: Mapping[str, str] | None) -> VaultScan:
    normalized = normalize_scopes(scopes)
    # ``env`` locates coffer's parse cache (outside the vault; docs/adr/0011) and can turn it
    # off (COFFER_VAULT_CACHE=0); it changes no result.
    return load(roots or resolve_roots(), normalized, os.environ if env is None else env)


def search(  # noqa: PLR0913 (the reference API's own keyword set, §7.2)
    query: object = "",
    scopes: object = None,
    kinds: object = None,
    trust: object = None,
    target_harness: object = None,
    limit: object = None,
    *,
    roots: Roots | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """§7.2–§7.3: ``{results: [{memory, score, excerpt}], diagnostics}``."""
    text = validate_query(query)
    kind_filter = validate_kinds(kinds)
    trust_filter = None if trust is None else enum_value(trust, "memory trust", ("unreviewed",))
    target = validate_target(target_harness)
    count = normalize_limit(limit)
    scan = _load(roots, scopes, env)
    results = rank(scan.entries, text, kind_filter, trust_filter, target, count)
    return {"results": results, "diagnostics": scan.diagnostics()}


def read(
    memory_id_value: object,
    scopes: object = None,
    target_harness: object = None,
    *,
    roots: Roots | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """§8: ``{memory, path, backlinks, backlinksTruncated}``; all statuses are readable."""
    wanted = memory_id(memory_id_value)
    target = validate_target(target_harness)
    scan = _load(roots, scopes, env)
    matches = [
        entry
        for entry in scan.entries
        if entry.memory["id"] == wanted and visible(entry.memory, target)
    ]
    if not matches:
        raise VaultError(f"Memory {wanted} was not found.")
    if len(matches) > 1:
        raise VaultError(f"Memory {wanted} is duplicated in {len(matches)} files.")
    linking = [
        entry.memory
        for entry in scan.entries
        if wanted in entry.memory["links"]
        and entry.memory["status"] == "active"
        and visible(entry.memory, target)
    ]
    linking.sort(key=lambda memory: rank_key(memory["id"]))
    return {
        "memory": dict(matches[0].memory),
        "path": matches[0].path,
        "backlinks": [summary(memory) for memory in linking[:MAX_DIAGNOSTICS]],
        "backlinksTruncated": len(linking) > MAX_DIAGNOSTICS,
    }


def doctor(
    scopes: object = None,
    target_harness: object = None,
    *,
    roots: Roots | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """§9: the audit report; the target harness is validated after loading."""
    scan = _load(roots, scopes, env)
    target = validate_target(target_harness)
    return _doctor.report(scan, target)
