"""Store health checks. Reports only: nothing here writes (``coffer doctor``)."""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from coffer.base.errors import StoreError
from coffer.base.report import plural
from coffer.base.suggest import command
from coffer.secrets import redact, redact_each
from coffer.store import index, projects
from coffer.store.entry import Entry, same_text_key, withheld
from coffer.store.store import Store
from coffer.store.tier import Tier

if TYPE_CHECKING:
    from coffer.store.search_cache import TierScan

Level = Literal["error", "warning", "info"]

_LINK_RE = re.compile(r"\[\[([^\[\]\n]+)\]\]")


class Finding(NamedTuple):
    level: Level
    tier: str
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "tier": self.tier, "path": self.path, "message": self.message}


# Near duplicates: Jaccard similarity of the two bodies' word sets (docs/adr/0014).
NEAR = 0.8
# Near duplicates are information, not problems: past this many in a tier, doctor counts the
# rest (a store of templated notes has thousands) and `coffer review` walks them all.
MAX_NEAR_SHOWN = 50
_WORD_RE = re.compile(r"\w+")


def _words(entry: Entry) -> frozenset[str]:
    return frozenset(_WORD_RE.findall(entry.body.lower()))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two word sets: the words both hold over the words either holds."""
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def duplicates(
    entries: Sequence[Entry], threshold: float = NEAR
) -> tuple[list[tuple[Entry, Entry]], list[tuple[Entry, Entry, float]]]:
    """(exact, near) duplicates among ``entries``: each entry that repeats an earlier one,
    paired with the first it repeats (the earlier one first).

    Exact: the same text once whitespace is normalised. Near: word-set Jaccard similarity at
    least ``threshold``. One pair per duplicate, not every pair: a store holding 250 copies
    of one note gets 249 findings, not 31,000, and the search stops at the first match.
    Candidates come from prefix filtering (Chaudhuri et al. 2006; Bayardo et al. 2007): with
    words ordered rarest first, two sets that similar must share a word among the first
    ``len - ceil(threshold * len) + 1`` of each, and the first word they share must leave
    enough words after it in both, so a store of 10,000 entries is not checked pair by
    pair, even when every entry holds the same frequent words.
    """
    exact: list[tuple[Entry, Entry]] = []
    first: dict[str, Entry] = {}
    distinct: list[Entry] = []
    for entry in entries:
        key = same_text_key(entry.body)
        if key in first:
            exact.append((first[key], entry))
        else:
            first[key] = entry
            distinct.append(entry)
    sets = [_words(e) for e in distinct]
    freq = Counter(w for ws in sets for w in ws)
    # word -> (position in the entry's rarest-first order, entry size) -> entries, ascending
    seen: dict[str, dict[tuple[int, int], list[int]]] = {}
    near: list[tuple[Entry, Entry, float]] = []
    for i, ws in enumerate(sets):
        if not ws:
            continue
        ordered = sorted(ws, key=lambda w: (freq[w], w))
        prefix = ordered[: len(ws) - math.ceil(threshold * len(ws)) + 1]
        walks: list[list[int]] = []
        for p, w in enumerate(prefix):
            for (q, size), js in seen.get(w, {}).items():
                # The first shared word sits at p here and at q there, so at most
                # 1 + min(the words after each) are shared: too few, and no entry of this
                # group can be near (positional filtering, Xiao et al. 2008). It also
                # rules out sizes too different to be near.
                most = 1 + min(len(ws) - p - 1, size - q - 1)
                if most / (len(ws) + size - most) >= threshold:
                    walks.append(js)
        checked: set[int] = set()
        # earliest first, lazily: the first match ends the walk (each list is ascending)
        for j in heapq.merge(*walks):
            if j in checked:
                continue  # met under another word
            checked.add(j)
            found = similarity(ws, sets[j])
            if found >= threshold:
                near.append((distinct[j], distinct[i], found))
                break
        for p, w in enumerate(prefix):
            seen.setdefault(w, {}).setdefault((p, len(ws)), []).append(i)
    return exact, near


def scans_by_dir(store: Store, tiers: Sequence[Tier]) -> dict[Path, TierScan]:
    """The scan of each of ``tiers`` and of the global tier, by directory: doctor writes
    nothing, so each of its checks judges this one read of a tier."""
    out: dict[Path, TierScan] = {}
    for tier in [*tiers, store.global_tier()]:
        if tier.dir not in out:
            out[tier.dir] = store.scan(tier)
    return out


def check_tier(
    store: Store, tier: Tier, global_names: set[str], scans: Mapping[Path, TierScan]
) -> list[Finding]:
    out: list[Finding] = []

    def add(level: Level, path: Path, message: str) -> None:
        # A file name can hold a token: run() redacts every finding's path and message.
        out.append(Finding(level, tier.label, str(path), message))

    if not tier.dir.is_dir():
        return out
    scan = scans[tier.dir]
    for problem in scan.problems:
        add("error", tier.dir / problem.filename, f"not a usable entry: {problem.message}")
    names = Counter(e.name for e in scan.entries)
    known = set(names) | global_names  # what a [[link]] may name
    directory = tier.dir
    for entry in scan.entries:
        for level, message in _entry_findings(entry, names, known):
            add(level, directory / entry.filename, message)
    out += _duplicate_findings(store, tier, scan.entries, scans)
    rendered, current = store.render_index(tier, scan)
    index_path = tier.dir / index.INDEX_NAME
    if current != rendered.text.encode("utf-8", errors="surrogateescape"):
        add("warning", index_path, "MEMORY.md is out of date; `coffer reindex` regenerates it")
    if rendered.omitted:
        add(
            "info",
            index_path,
            f"{plural(rendered.omitted, 'entry', 'entries')} do not fit Claude's 200-line / "
            "25,000-character load budget and are listed only as a count",
        )
    return out


def _entry_findings(entry: Entry, names: Counter[str], known: set[str]) -> list[tuple[Level, str]]:
    """What doctor says of one entry on its own (most entries: nothing)."""
    out: list[tuple[Level, str]] = []
    if names[entry.name] > 1:
        out.append(("warning", f"duplicate name {redact(entry.name)!r} (also in another file)"))
    labels = withheld(entry)
    if labels:
        out.append(
            (
                "error",
                f"looks like it holds a secret ({', '.join(labels)}); "
                "remove it: agents read this file",
            )
        )
    if entry.stale:
        out.append(("warning", f"stale: {entry.stale}; check it, then `coffer verify`"))
    for target in _LINK_RE.findall(entry.body):
        if target.strip() not in known:
            message = f"broken link [[{redact(target.strip())}]]: no entry has that name"
            out.append(("warning", message))
    return out


def _duplicate_findings(
    store: Store, tier: Tier, entries: Sequence[Entry], scans: Mapping[Path, TierScan]
) -> list[Finding]:
    """Duplicates within ``tier``, and for a project tier, of global entries too: agents
    read both tiers, so the same fact in each is read twice."""
    own = {id(e) for e in entries}
    pool = list(entries)
    global_dir, own_dir = store.global_tier().dir, tier.dir
    if tier.scope == "project":
        pool += scans[global_dir].entries
    where = {id(e): global_dir if id(e) not in own else own_dir for e in pool}

    def path(e: Entry) -> Path:
        return where[id(e)] / e.filename

    scope = ("--scope", "global") if tier.scope == "global" else ()
    exact, near = duplicates(pool)
    pairs = [(a, b, None) for a, b in exact] + list(near)
    out: list[Finding] = []
    near_shown = 0
    for a, b, similarity in pairs:
        if id(b) not in own:
            a, b = b, a  # report this tier's copy: it is the one this tier can change
        if id(b) not in own:
            continue
        if similarity is not None:
            near_shown += 1
            if near_shown > MAX_NEAR_SHOWN:
                continue
        if similarity is None:
            level: Level = "warning"
            forget = command("coffer", "forget", b.name, *scope)
            message = f"the same text as {path(a)}; keep one ({forget})"
        else:
            level = "info"
            message = (
                f"nearly the same text as {path(a)} ({similarity:.0%} of their words shared); "
                "if they say one thing, put it in one "
                f"({command('coffer', 'update', b.name, '…', *scope)}) "
                f"and forget the other ({a.name})"
            )
        out.append(Finding(level, tier.label, str(path(b)), message))
    if near_shown > MAX_NEAR_SHOWN:
        more = near_shown - MAX_NEAR_SHOWN
        message = (
            f"and {plural(more, 'more near duplicate')} like those; "
            f"{command('coffer', 'review', *scope)} walks every one"
        )
        out.append(Finding("info", tier.label, str(tier.dir), message))
    return out


def run(
    store: Store,
    tiers: Sequence[Tier],
    more: Sequence[Finding] = (),
    scans: Mapping[Path, TierScan] | None = None,
) -> list[Finding]:
    """Findings for ``tiers``, plus project-list problems and ``more`` from the layers above
    (the journal's, coffer/projection/checkup.py), all redacted alike; ``scans``: the
    tiers as :func:`scans_by_dir` read them, when the caller has."""
    findings: list[Finding] = []
    scans = scans_by_dir(store, tiers) if scans is None else scans
    global_names = {e.name for e in scans[store.global_tier().dir].entries}
    for tier in tiers:
        names = global_names if tier.scope == "project" else set()
        findings += check_tier(store, tier, names, scans)
    try:
        known = projects.all_projects(store.root)
    except StoreError as exc:
        where = str(store.root / projects.PROJECT_LIST)
        findings.append(Finding("error", "store", where, str(exc)))
        known = []
    findings += more
    for info in known:
        if not Path(info.root).is_dir():
            findings.append(
                Finding(
                    "warning",
                    info.label,
                    info.root,
                    "project root no longer exists (moved or deleted); its memory is kept",
                )
            )
    # Findings name files and entries, and a file name can be a token: never print one.
    # Screened together: a store of templated notes gives doctor hundreds of findings.
    texts = iter(redact_each([text for f in findings for text in (f.path, f.message)]))
    return [Finding(f.level, f.tier, next(texts), next(texts)) for f in findings]
