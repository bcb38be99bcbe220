"""`coffer explain`: what each agent loads at session start here, and whether coffer's
memory is in it (coffer.projection.explain; docs/adr/0029). Informational: exit 0 whatever
it finds; a usage error (an unknown agent) is 2, a path that does not exist 1."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    coffer_app,
    complete_agent,
    echo,
    emit_json,
    project_path,
)
from coffer.cli.typer_app import app

if TYPE_CHECKING:
    from coffer.projection.explain import Explained

AgentOpt = Annotated[
    str | None,
    typer.Option("--agent", help="Only this agent.", metavar="NAME", autocompletion=complete_agent),
]


@app.command("explain")
def explain_command(
    agent: AgentOpt = None,
    path: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show what each agent loads at session start here, in order: files, sizes, what its
    caps cut and what hides what; whether coffer's memory is in it, and what to change if
    not. Always exits 0: it only explains."""
    from coffer.adapter.registry import unknown_agents
    from coffer.base.errors import UnknownNameError
    from coffer.projection.agents import AgentSet
    from coffer.projection.explain import explain

    root = coffer_app()
    loaded = root.adapters()
    if agent is not None and agent not in loaded.adapters:
        raise UnknownNameError(unknown_agents([agent], loaded.adapters))
    agents = AgentSet(root.store, root.environ, loaded)
    found = explain(agents, project_path(path), agent)
    if as_json:
        emit_json(found.json())
    else:
        _print(found)


def _size(f: dict[str, Any]) -> str:
    kept = f"{f['kept_bytes']:,} of " if f["state"] == "cut" else ""
    return f"{kept}{f['bytes']:,} bytes, {f['lines']:,} lines"


def _file_line(f: dict[str, Any]) -> str:
    place = f"{f['order']:>3}." if f["order"] is not None else "   -"
    tags = [f["scope"], _size(f)]
    if f["coffer"]:
        tags.append(
            f"coffer {f['coffer']}" + (f" ({f['coffer_cut']} cut)" if f["coffer_cut"] else "")
        )
    line = f"{place} {f['path']}  [{'; '.join(tags)}]"
    if f["imported_by"]:
        line += f"\n       imported by {f['imported_by']}"
    if f["state"] == "shadowed":
        line += f"\n       not read: {f['shadowed_by']} hides it"
    elif f["state"] == "off":
        line += f"\n       not read: {f['why']}"
    elif f["state"] == "dropped":
        line += "\n       not read: its caps leave nothing of it"
    for cut in f["cut"]:
        line += f"\n       cut: {cut}"
    if f["when"] and f["order"] is not None:
        line += f"\n       when: {f['when']}"
    return line


def _cost_line(c: dict[str, Any]) -> str:
    line = f"  coffer's memory in its context: {c['bytes']:,} bytes (~{c['tokens']:,} tokens)"
    twice = [
        f"{tier} {len(found)}× ({', '.join(Path(f['path']).name for f in found)}; "
        f"{c['repeated_bytes'][tier]:,} bytes repeated)"
        for tier, found in c["copies"].items()
        if len(found) > 1
    ]
    line += f"; read more than once: {'; '.join(twice)}" if twice else ""
    counts = c.get("entries", {}).values()
    shown, total = sum(v["in_view"] for v in counts), sum(v["total"] for v in counts)
    if total:
        line += f"\n  {shown} of {total} entries in view, ~{c['tokens']:,} tokens"
        line += f"; {total - shown} by recall only" if shown < total else ""
    return line


def _checked(checks: list[dict[str, Any]]) -> str:
    """Each version once, with every way it was checked."""
    hows: dict[str, list[str]] = {}
    for c in checks:
        seen = hows.setdefault(c["version"], [])
        seen += [h for h in c["how"] if h not in seen]
    return ", ".join(f"{version} ({'/'.join(how)})" for version, how in hows.items())


def _print(found: Explained) -> None:
    data = found.json()
    project = data["project"]
    echo(f"session in {data['cwd']}; project: {project or 'none here (global tier only)'}")
    for a in data["agents"]:
        echo("")
        state = "" if a["enabled"] else " (coffer does not project into it: not detected)"
        echo(f"{a['name']} — {a['title']}{state}")
        if not a["files"]:
            echo("    no file it reads exists here")
        for f in a["files"]:
            echo(_file_line(f))
        for tier, m in a["memory"].items():
            where = f" ({m['path']})" if m["path"] and m["state"] != "none" else ""
            detail = f": {m['detail']}" if m["detail"] else ""
            echo(f"  coffer {tier} memory: {m['state']}{where}{detail}")
        echo(_cost_line(a["coffer_memory"]))
        for hint in a["hints"]:
            echo(f"  hint: {hint}")
        for note in a["notes"] if a["hints"] else ():  # the agent's hazards, when they matter
            echo(f"  note: {note}")
        checked = _checked(a["checked"])
        if checked:
            echo(f"  facts checked on {checked}")
    if data["hidden"]:
        hidden = ", ".join(data["hidden"])
        echo(f"\nnot installed, not enabled ({len(data['hidden'])}): {hidden}")
