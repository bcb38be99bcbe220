"""Store health checks. Reports only: nothing here writes (``coffer doctor``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from coffer import index, projects
from coffer.errors import StoreError
from coffer.secrets import find_secrets
from coffer.store import Store, Tier

Level = Literal["error", "warning", "info"]
_LINK_RE = re.compile(r"\[\[([^\[\]\n]+)\]\]")


@dataclass(frozen=True)
class Finding:
    level: Level
    tier: str
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "tier": self.tier, "path": self.path, "message": self.message}


def check_tier(store: Store, tier: Tier, global_names: set[str]) -> list[Finding]:
    out: list[Finding] = []

    def add(level: Level, path: Path, message: str) -> None:
        out.append(Finding(level, tier.label, str(path), message))

    if not tier.dir.is_dir():
        return out
    scan = store.scan(tier)
    for problem in scan.problems:
        add("error", tier.dir / problem.filename, f"not a usable entry: {problem.message}")
    names = Counter(e.name for e in scan.entries)
    for entry in scan.entries:
        path = tier.dir / entry.filename
        if names[entry.name] > 1:
            add("warning", path, f"duplicate name {entry.name!r} (also in another file)")
        labels = find_secrets("\n".join((entry.name, entry.description, entry.body)))
        if labels:
            add(
                "error",
                path,
                f"looks like it holds a secret ({', '.join(labels)}); "
                "remove it: agents read this file",
            )
        known = set(names) | global_names
        for target in _LINK_RE.findall(entry.body):
            if target.strip() not in known:
                add("warning", path, f"broken link [[{target.strip()}]]: no entry has that name")
    rendered, current = store.render_index(tier)
    index_path = tier.dir / index.INDEX_NAME
    if current != rendered.text.encode("utf-8", errors="surrogateescape"):
        add("warning", index_path, "MEMORY.md is out of date; `coffer reindex` regenerates it")
    if rendered.omitted:
        add(
            "info",
            index_path,
            f"{rendered.omitted} entries do not fit Claude's 200-line / "
            "25,000-character load budget and are listed only as a count",
        )
    return out


def run(store: Store, tiers: Sequence[Tier]) -> list[Finding]:
    """Findings for ``tiers``, plus registry problems."""
    findings: list[Finding] = []
    global_tier = store.global_tier()
    global_names = {e.name for e in store.scan(global_tier).entries}
    for tier in tiers:
        findings += check_tier(store, tier, global_names if tier.scope == "project" else set())
    try:
        known = projects.all_projects(store.root)
    except StoreError as exc:
        findings.append(Finding("error", "store", str(store.root / projects.REGISTRY), str(exc)))
        known = []
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
    return findings
