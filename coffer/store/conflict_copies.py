"""Conflict copies: the second version of an entry two machines changed at once.

``coffer sync`` keeps both versions of such an entry (docs/adr/0034): ours at its path,
theirs as an entry of its own whose frontmatter says which entry it copies
(``metadata.conflict_of``), from which machine and when. Until someone keeps one, each is
a warning of ``coffer doctor``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base.suggest import command
from coffer.store.entry import Entry
from coffer.store.health import Finding
from coffer.store.store import Store
from coffer.store.tier import Tier

if TYPE_CHECKING:
    from coffer.store.search_cache import TierScan

CONFLICT_OF = "conflict_of"
CONFLICT_FROM = "conflict_from"
CONFLICT_AT = "conflict_at"


def is_conflict_copy(entry: Entry) -> bool:
    return isinstance(entry.metadata.get(CONFLICT_OF), str)


def findings(
    store: Store, tiers: Sequence[Tier], scans: Mapping[Path, TierScan] | None = None
) -> list[Finding]:
    """One warning per conflict copy in ``tiers`` (messages are redacted by the caller);
    ``scans``: the tiers as coffer.store.health.scans_by_dir read them, when the caller has."""
    out: list[Finding] = []
    for tier in tiers:
        if not tier.dir.is_dir():
            continue
        found = scans[tier.dir] if scans is not None else store.scan(tier)
        for entry in found.entries:
            if not is_conflict_copy(entry):
                continue
            origin = str(entry.metadata.get(CONFLICT_FROM) or "another machine")
            when = str(entry.metadata.get(CONFLICT_AT) or "")
            scope = ("--scope", "global") if tier.scope == "global" else ()
            message = (
                f"conflict copy: {origin} changed {entry.metadata[CONFLICT_OF]} too"
                f"{' (' + when + ')' if when else ''}; keep the version you want "
                f"(`coffer update`), then {command('coffer', 'forget', entry.name, *scope)}"
            )
            out.append(Finding("warning", tier.label, str(tier.dir / entry.filename), message))
    return out
