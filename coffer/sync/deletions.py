"""A burst of deletions is held, not pushed (docs/adr/0052).

An agent's consolidation can delete dozens of memory files at once (one user lost 23 in a
day); pushed, that deletion reaches every machine. So when one round would delete more than
:data:`BURST_SHARE` of a tier's synced entries and at least :data:`BURST_MIN` of them, those
deletions are held: the files stay in the repository, the pull does not bring them back
here, and the report says so until `coffer sync --allow-deletions`.
"""

from __future__ import annotations

from collections.abc import Mapping

from coffer.base.report import plural
from coffer.sync import local, tree

BURST_SHARE = 0.25
BURST_MIN = 5


def hold_bursts(
    offer: local.Offer, keyed: local.Keyed, synced: Mapping[str, str]
) -> tuple[local.Offer, tuple[str, ...]]:
    """``offer`` with each tier's burst of deletions held back; one line per tier held."""
    held: set[str] = set()
    said: list[str] = []
    for key, tier in keyed.tiers.items():
        if key in offer.absent:
            continue  # a missing directory deletes nothing (coffer.sync.local.offer)
        start = tree.prefix(key)
        before = [p for p in synced if p.startswith(start) and tree.split(p) is not None]
        gone = [p for p in before if p not in offer.files and p not in offer.held]
        if len(gone) >= BURST_MIN and len(gone) > BURST_SHARE * len(before):
            held.update(gone)
            said.append(
                f"{plural(len(gone), 'deletion')} of {len(before)} entries in {tier.label} held "
                "(not pushed): `coffer history NAME` and `coffer restore NAME` bring them back, "
                "`coffer sync --allow-deletions` sends them"
            )
    if not held:
        return offer, ()
    return offer._replace(held=offer.held | held), tuple(said)
