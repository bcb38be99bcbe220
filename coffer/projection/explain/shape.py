"""The one JSON shape of `coffer explain --json`.

It is stable: tests/projection/explain/test_explain.py holds it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coffer.projection.explain.caps import Cost, Measured
from coffer.projection.explain.verdict import TierView

if TYPE_CHECKING:
    from typing import Any

    from coffer.projection.explain import AgentView, Explained


def _path(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def file_json(m: Measured, order: int | None) -> dict[str, Any]:
    f = m.found
    return {
        "order": order,  # 1-based place in the context; null for a file the agent skips
        "path": str(f.path),
        "template": f.load.path,
        "scope": f.load.scope,
        "state": m.state,
        "bytes": m.size,
        "lines": m.lines,
        "chars": m.chars,
        "kept_bytes": sum(m.kept) if f.state == "loaded" else 0,
        "cut": list(m.cut),
        "shadowed_by": _path(f.by),
        "why": f.why or None,
        "coffer": m.coffer or None,
        "coffer_cut": m.coffer_cut or None,
        "when": f.load.when or None,
        "how": f.load.how,
        "imported_by": _path(f.via),
        "coffer_bytes": m.coffer_bytes,
    }


def tier_json(t: TierView) -> dict[str, Any]:
    return {
        "state": t.state,
        "ok": t.ok,
        "path": _path(t.path),
        "detail": t.detail or None,
        "hint": t.hint or None,
    }


def agent_json(view: AgentView) -> dict[str, Any]:
    facts = view.facts
    files, order = [], 0
    for m in view.files:
        order += m.read
        files.append(file_json(m, order if m.read else None))
    return {
        "name": view.name,
        "title": view.title,
        "present": view.present,
        "enabled": view.enabled,
        "ok": all(t.ok for t in view.tiers),
        "files": files,
        "memory": {t.tier: tier_json(t) for t in view.tiers},
        "hints": view.hints,
        "notes": list(facts.notes) if facts else [],
        "checked": [
            {"version": c.version, "how": list(c.how), "source": c.source, "date": c.date or None}
            for c in (facts.checked if facts else ())
        ],
        "error": view.error or None,
        "coffer_memory": {
            **cost_json(view.cost),
            # per tier: how many entries reach the model; the rest only recall finds
            "entries": {t: {"in_view": v.shown, "total": v.total} for t, v in view.in_view.items()},
        },
    }


def cost_json(c: Cost) -> dict[str, Any]:
    return {
        "bytes": c.bytes,
        "tokens": c.tokens,  # about bytes / 4
        "copies": {
            tier: [{"path": str(p), "kind": kind, "bytes": n} for p, kind, n in found]
            for tier, found in c.copies.items()
        },
        "repeated_bytes": c.repeated,
    }


def explained_json(e: Explained) -> dict[str, Any]:
    return {
        "cwd": str(e.cwd),
        "root": _path(e.root),
        "project": _path(e.project),
        "agents": [agent_json(v) for v in e.agents],
        "hidden": e.hidden,
    }
