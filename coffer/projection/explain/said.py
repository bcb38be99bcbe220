"""The words of `coffer explain`, made from its JSON (coffer.projection.explain.shape):
the CLI prints them and `coffer ui`'s Agents view shows them, so both say the same
(docs/adr/0029, docs/adr/0056). Pure functions over that JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def size(f: dict[str, Any]) -> str:
    """``32,768 of 42,301 bytes, 801 lines``: what a cap keeps of a cut file, then its size."""
    kept = f"{f['kept_bytes']:,} of " if f["state"] == "cut" else ""
    return f"{kept}{f['bytes']:,} bytes, {f['lines']:,} lines"


def tags(f: dict[str, Any]) -> list[str]:
    """A file's scope, size and what of coffer's it holds (and how much of that a cap cuts)."""
    out = [f["scope"], size(f)]
    if f["coffer"]:
        out.append(
            f"coffer {f['coffer']}" + (f" ({f['coffer_cut']} cut)" if f["coffer_cut"] else "")
        )
    return out


def notes(f: dict[str, Any]) -> list[str]:
    """What else is true of a file: who imports it, why it is not read (what hides it, the
    setting that turns it off, a cap that leaves nothing), what its caps cut, and when it
    is read at all."""
    out = []
    if f["imported_by"]:
        out.append(f"imported by {f['imported_by']}")
    if f["state"] == "shadowed":
        out.append(f"not read: {f['shadowed_by']} hides it")
    elif f["state"] == "off":
        out.append(f"not read: {f['why']}")
    elif f["state"] == "dropped":
        out.append("not read: its caps leave nothing of it")
    out += [f"cut: {cut}" for cut in f["cut"]]
    if f["when"] and f["order"] is not None:
        out.append(f"when: {f['when']}")
    return out


def memory(agent: dict[str, Any]) -> list[str]:
    """One line per tier: whether coffer's memory of that tier reaches the agent, and where."""
    out = []
    for tier, m in agent["memory"].items():
        where = f" ({m['path']})" if m["path"] and m["state"] != "none" else ""
        detail = f": {m['detail']}" if m["detail"] else ""
        out.append(f"coffer {tier} memory: {m['state']}{where}{detail}")
    return out


def cost(c: dict[str, Any]) -> list[str]:
    """The bytes and tokens of coffer's memory in the agent's context (and what is read more
    than once), then how many entries are in view and how many only recall finds."""
    line = f"coffer's memory in its context: {c['bytes']:,} bytes (~{c['tokens']:,} tokens)"
    twice = [
        f"{tier} {len(found)}× ({', '.join(Path(f['path']).name for f in found)}; "
        f"{c['repeated_bytes'][tier]:,} bytes repeated)"
        for tier, found in c["copies"].items()
        if len(found) > 1
    ]
    line += f"; read more than once: {'; '.join(twice)}" if twice else ""
    out = [line]
    counts = c.get("entries", {}).values()
    shown, total = sum(v["in_view"] for v in counts), sum(v["total"] for v in counts)
    if total:
        seen = f"{shown} of {total} entries in view, ~{c['tokens']:,} tokens"
        out.append(seen + (f"; {total - shown} by recall only" if shown < total else ""))
    return out


def checked(checks: list[dict[str, Any]]) -> str:
    """Each version the agent's facts were checked on once, with every way it was checked."""
    hows: dict[str, list[str]] = {}
    for c in checks:
        seen = hows.setdefault(c["version"], [])
        seen += [h for h in c["how"] if h not in seen]
    return ", ".join(f"{version} ({'/'.join(how)})" for version, how in hows.items())
