"""Where each entry came from (issue 25.1, docs/adr/0051).

coffer stamps, under ``metadata`` beside its other keys: ``origin`` (the first writer:
``cli``, ``ui``, ``mcp:<client>``, ``agent:<adapter>``, ``import:<adapter>``,
``merge:<adapter>``, ``team:<author>``), ``origin_machine``, ``origin_at``; on a later
change ``updated_by`` and ``updated_machine``; and ``text_digest``, a digest of the text as
coffer last recorded it, so a change nobody told coffer about (an agent editing a file in
its linked folder) shows.
An entry without ``origin`` reads as ``unknown``: it predates provenance, never a guess.
Deterministic: no network, no model.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil, platform
from coffer.store.projects import now_iso

if TYPE_CHECKING:
    from typing import Any

    from coffer.store.entry import Entry

# What coffer keeps beside a tier about its entries' provenance (coffer.store.agent_writes).
STATE = "provenance.json"
KEYS = ("origin", "origin_machine", "origin_at", "updated_by", "updated_machine", "text_digest")
UNKNOWN = "unknown"


def read_state(base: Path) -> dict[str, Any]:
    """The tier's ``provenance.json`` (beside the tier, never synced); empty if unreadable."""
    data = fsutil.read_bytes_or_none(base / STATE)
    try:
        doc = json.loads(data) if data is not None else {}
    except ValueError:
        doc = {}
    return doc if isinstance(doc, dict) else {}


def merged(base: Path) -> dict[str, dict[str, str]]:
    """The entries a first projection merged from an agent's own memory directory, by file
    name: ``{"origin": "merge:<adapter>", "machine", "at", "digest"}``. Kept beside the
    tier, not in the files: a merged copy stays byte for byte the agent's, which undo and
    uninstall compare with the backup to find the user's only copies (docs/adr/0051)."""
    try:
        stamp: int | None = os.stat(base / STATE).st_mtime_ns
    except OSError:
        stamp = None
    return _merged(base, stamp) if stamp is not None else {}


@functools.lru_cache(maxsize=16)
def _merged(base: Path, stamp: int) -> dict[str, dict[str, str]]:
    # Read once per version of the file: `list --json` asks for each of thousands of entries.
    # Bounded: a long-lived process sees many versions of many projects' files.
    raw = read_state(base).get("merged")
    if not isinstance(raw, dict):
        return {}
    return {
        str(k): {str(a): str(b) for a, b in v.items()}
        for k, v in raw.items()
        if isinstance(v, dict)
    }


def machine(store_root: Path) -> str:
    """This machine's name: the one `coffer sync init` chose (so two machines of one user
    tell each other apart in synced entries), else the short hostname."""
    config = store_root / "sync" / "config.json"
    try:
        stamp: int | None = os.stat(config).st_mtime_ns
    except OSError:
        stamp = None
    return _machine(config, stamp)


@functools.lru_cache(maxsize=4)
def _machine(config: Path, stamp: int | None) -> str:
    # Read once per version of the sync config: `list` shows thousands of entries. Bounded:
    # a long-lived process sees the config change.
    data = fsutil.read_bytes_or_none(config) if stamp is not None else None
    if data:
        try:
            host = json.loads(data).get("host")
        except (ValueError, AttributeError):
            host = None
        if isinstance(host, str) and host:
            return host
    return platform.host_name() or "machine"


# The digests of entries' text, by exactly what digest hashes (name, description, type,
# body): a stamp digests every entry of a linked tier at each `coffer project` and refresh
# of `coffer watch`, and the search cache hands in the digest it took when the file last
# changed, so an unchanged entry is never hashed again (docs/adr/0043, 0051).
_DIGESTS: dict[tuple[str, str, str, str], str] = {}
_MAX_DIGESTS = 20_000  # a long-running watcher or MCP server starts over past this


def digest(entry: Entry) -> str:
    """What an entry says, whatever the spacing: name, description, type and body. Taken
    once per text, or handed in by the search cache (what it hashes is the cache's schema:
    a change bumps search_cache._SCHEMA_VERSION)."""
    key = (entry.name, entry.description, entry.type or "", entry.body)
    found = _DIGESTS.get(key)
    if found is None:
        name, description, kind, body = key
        text = "\x1f".join((name, description, kind, " ".join(body.split())))
        found = _hashed(text)
        known_digest(entry, found)
    return found


def _hashed(text: str) -> str:
    import hashlib  # here: OpenSSL's _hashlib; `recall` reads provenance, never digests it

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def known_digest(entry: Entry, found: str) -> None:
    """Record ``digest(entry)``, taken earlier (the search cache's)."""
    if len(_DIGESTS) >= _MAX_DIGESTS:
        _DIGESTS.clear()
    # the key digest looks up, spelt out: the cache hands in one per row it builds
    _DIGESTS[(entry.name, entry.description, entry.type or "", entry.body)] = found


def created(meta: Mapping[str, Any], by: str, where: str, now: str) -> dict[str, Any]:
    """``meta`` of a new entry, with its origin (one given in ``meta`` is kept)."""
    out = dict(meta)
    out.setdefault("origin", by)
    out.setdefault("origin_machine", where)
    out.setdefault("origin_at", now)
    return out


def changed(meta: Mapping[str, Any], by: str, where: str) -> dict[str, Any]:
    """``meta`` of an entry ``by`` changed: the origin stays, the last writer is recorded."""
    out = dict(meta)
    out.setdefault("origin", UNKNOWN)
    out["updated_by"] = by
    out["updated_machine"] = where
    return out


def sealed(entry: Entry) -> Entry:
    """``entry`` with the digest of its text as the file will read back."""
    from coffer.store.entry import parse, serialize

    back = parse(serialize(entry), entry.filename or "entry.md")
    return entry._replace(metadata={**entry.metadata, "text_digest": digest(back)})


def carried(entry: Entry, merged: Mapping[str, Mapping[str, str]] | None) -> Mapping[str, Any]:
    """``entry``'s metadata with the origin the tier recorded for it when a first
    projection merged it (``merged``, by file name), so a change keeps that origin."""
    meta = entry.metadata
    came = (merged or {}).get(entry.filename)
    if meta.get("origin") or not came or came.get("digest") != digest(entry):
        return meta
    return {**meta, "origin": came["origin"], "origin_machine": came.get("machine"),
            "origin_at": came.get("at")}  # fmt: skip


def view(
    entry: Entry, here: str | None = None, merged: Mapping[str, Mapping[str, str]] | None = None
) -> dict[str, Any]:
    """The provenance shown by `show`, `list --json`, `recall` and the MCP tools;
    ``merged``: the tier's record of what a first projection merged, for an entry whose
    file does not say (``agent_writes.merged``)."""
    meta = carried(entry, merged)
    out: dict[str, Any] = {"origin": str(meta.get("origin") or UNKNOWN)}
    for key, shown in (("origin_machine", "machine"), ("origin_at", "at")):
        if meta.get(key):
            out[shown] = str(meta[key])
    session = meta.get("origin_session_id") or meta.get("originSessionId")
    if session:
        out["session"] = str(session)
    if meta.get("updated_by"):
        out["updated_by"] = str(meta["updated_by"])
        if meta.get("updated_machine"):
            out["updated_machine"] = str(meta["updated_machine"])
    last = meta.get("updated_machine") or meta.get("origin_machine")
    if here is not None and last and str(last) != here:
        out["arrived"] = f"sync:{last}"  # written on another machine: it came by sync
    from coffer.secrets import redact, visible

    # A teammate's or an agent's file may put anything there: shown, never a credential,
    # not even one split by a zero-width character that the pattern would not see.
    return {k: redact(visible(v)) for k, v in out.items()}


def line(entry: Entry, merged: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The short human form: ``from cli on laptop, 2026-12-03``."""
    v = view(entry, merged=merged)
    text = f"from {v['origin']}"
    if "machine" in v:
        text += f" on {v['machine']}"
    if "at" in v:
        text += f", {v['at'][:10]}"
    if "updated_by" in v:
        text += f"; changed by {v['updated_by']}"
    return text


__all__ = [
    "KEYS",
    "STATE",
    "UNKNOWN",
    "carried",
    "changed",
    "created",
    "digest",
    "known_digest",
    "line",
    "machine",
    "merged",
    "read_state",
    "sealed",
    "view",
]


def stamped(meta: Mapping[str, Any], action: str, by: str, root: Path) -> dict[str, Any]:
    """``meta`` with the provenance of ``action`` (``created`` or a change) by ``by`` on
    this machine (the store at ``root`` names it)."""
    where = machine(root)
    if action == "created":
        return created(meta, by, where, now_iso())
    return changed(meta, by, where)
