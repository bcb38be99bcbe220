"""Files an agent wrote into its linked folder (Claude's auto-memory, Gemini's private
memory: links to a tier), given their provenance at the next `coffer project` (the
session-start hook) or refresh of `coffer watch` (docs/adr/0051).

A file coffer did not write is one without ``origin``, or whose text no longer matches its
``text_digest``; the adapters whose link points at the tier name the writer. The tier's
``provenance.json`` (beside the tier, never synced) lists the entries that predate
provenance, so they stay ``unknown`` instead of being taken for the agent's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coffer.base import fsutil
from coffer.base.errors import CofferError
from coffer.store import pending
from coffer.store.provenance import STATE, changed, created, digest, machine, merged, read_state

if TYPE_CHECKING:
    from coffer.store.entry import Entry
    from coffer.store.search_cache import TierScan
    from coffer.store.store import Store
    from coffer.store.tier import Tier

    # The files stamped, and the scan read when none was (the tier as it is now).
    Stamped = tuple[list[str], TierScan | None]
    # What a sweep writes: each entry an agent wrote or changed, with its stamped keys, and
    # the entries still predating provenance (None: the tier's first sweep).
    Plan = tuple[list[tuple[Entry, dict[str, Any]]], dict[str, str] | None]


def _load(base: Path) -> dict[str, str] | None:
    raw = read_state(base).get("unknown")
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else None


def _save(base: Path, unknown: Mapping[str, str]) -> None:
    doc = {**read_state(base), "version": 1, "unknown": dict(sorted(unknown.items()))}
    text = json.dumps(doc, indent=1, sort_keys=True)
    fsutil.write_if_changed(base / STATE, (text + "\n").encode("utf-8"))


def record_merge(base: Path, entries: Sequence[Entry], adapter: str, where: str, now: str) -> None:
    """Remember that ``entries`` came in by a merge of ``adapter``'s memory directory; as
    files without origin, an agent's later edit of one still reads as the agent's."""
    doc = read_state(base)
    got = {k: dict(v) for k, v in merged(base).items()}
    for e in entries:
        if not e.metadata.get("origin"):
            got[e.filename] = {"origin": f"merge:{adapter}", "machine": where, "at": now,
                               "digest": digest(e)}  # fmt: skip
    unknown = _load(base)
    if unknown is not None:
        unknown.update({e.filename: digest(e) for e in entries if not e.metadata.get("origin")})
    doc.update({"version": 1, "merged": dict(sorted(got.items()))})
    if unknown is not None:
        doc["unknown"] = dict(sorted(unknown.items()))
    text = json.dumps(doc, indent=1, sort_keys=True)
    fsutil.write_if_changed(base / STATE, (text + "\n").encode("utf-8"))


def writer_of(agents: Sequence[str]) -> str:
    """``agent:<name>``; several agents sharing one tier are named all, not guessed at."""
    return "agent:" + "|".join(sorted(set(agents)))


def _plan(
    tier: Tier, entries: Sequence[Entry], agents: Sequence[str], where: str, now: str, hold: bool
) -> Plan:
    base = tier.base
    unknown = _load(base)
    if unknown is None:
        return [], None
    by = writer_of(agents)
    stamps: list[tuple[Entry, dict[str, Any]]] = []
    for e in entries:
        d = digest(e)
        meta = e.metadata
        if meta.get("origin"):
            if meta.get("text_digest") == d:
                continue
            meta = {**changed(meta, by, where), "updated_at": now}
        elif e.filename in unknown:
            if unknown[e.filename] == d:
                continue
            came = merged(base).get(e.filename)
            if came:  # the merged entry the agent changed keeps its origin
                meta = {**meta, "origin": came["origin"], "origin_machine": came.get("machine"),
                        "origin_at": came.get("at")}  # fmt: skip
            del unknown[e.filename]
            meta = {**changed(meta, by, where), "updated_at": now}
        else:
            meta = created(meta, by, where, now)
            if hold:
                meta = pending.marked(meta)  # waits for a person (docs/adr/0054)
        stamps.append((e, meta))
    return stamps, unknown


def _write(tier: Tier, entries: Sequence[Entry], plan: Plan) -> list[str]:
    stamps, unknown = plan
    if unknown is None:  # the first sweep: what is there predates provenance
        _save(tier.base, {e.filename: digest(e) for e in entries if not e.metadata.get("origin")})
        return []
    done: list[str] = []
    for e, meta in stamps:
        from coffer.store.drafts import file_text

        path = fsutil.safe_child(tier.dir, e.filename)
        if fsutil.read_bytes_or_none(path) is None:
            continue
        try:
            text = file_text(e._replace(metadata=meta, stale=""))
        except CofferError:
            continue  # at the size limit already: left as the agent wrote it (ADR 0043)
        fsutil.atomic_write_text(path, text)
        done.append(e.filename)
    _save(tier.base, unknown)
    return done


def sweep(
    tier: Tier,
    entries: Sequence[Entry],
    agents: Sequence[str],
    *,
    where: str,
    now: str,
    hold: bool = False,
) -> list[str]:
    """Stamp the entries of a linked tier that an agent wrote or changed since coffer last
    looked (the caller holds the tier's lock); return their file names. The first sweep of
    a tier records the entries it finds without origin as predating provenance."""
    return _write(tier, entries, _plan(tier, entries, agents, where, now, hold))


def stamp_linked(store: Store, tier: Tier, agents: Sequence[str]) -> Stamped:
    """Stamp what ``agents`` (the adapters whose linked folder is ``tier``) wrote there
    since coffer last looked: at every `coffer project` (the session-start hook) and every
    refresh of `coffer watch`. Returns the files stamped and, when it stamped none, the
    tier's scan it read: the tier as it is, which the caller's blocks need not read again
    (each read lists and stats every file)."""
    if not agents or not tier.dir.is_dir():
        return [], None
    from coffer.store.projects import now_iso

    with store.lock(tier):
        found = store.scan(tier)
        hold = pending.held(store.root, tier)
        plan = _plan(tier, found.entries, agents, machine(store.root), now_iso(), hold)
        # The history is brought up to date before a stamp rewrites a file, so the agent's
        # change keeps the version it replaced (ADR 0052). Nothing to stamp (nearly every
        # run): no look, which lists and stats the tier again; the next one sees whatever
        # changed since, as it would have.
        kept = store.kept(tier) if plan[0] else None
        done = _write(tier, found.entries, plan)
        if kept is not None:
            for filename in done:
                kept.wrote(filename, replaced=False)
        return done, None if done else found


def known(base: Path, entries: Sequence[Entry]) -> None:
    """Entries without origin that coffer itself put in a tier (a pull from a machine that
    predates provenance): not the agent's, so they stay ``unknown``."""
    unknown = _load(base)
    if unknown is None:
        return
    unknown.update({e.filename: digest(e) for e in entries if not e.metadata.get("origin")})
    _save(base, unknown)
