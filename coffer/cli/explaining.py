"""What `coffer explain` prints, without typer: the typer command (coffer.cli.explain) and
the quick path (coffer.cli.quick) both call :func:`explain`, so both print the same."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from coffer.cli._out import coffer_app, echo, emit_json, project_path

if TYPE_CHECKING:
    from coffer.projection.explain import Explained


def explain(agent: str | None, project: Path | None, as_json: bool) -> int:
    """What each agent loads at session start here (coffer.projection.explain; docs/adr/0029).
    Informational: 0 whatever it finds; an unknown agent is a usage error (2)."""
    from coffer.adapter.registry import unknown_agents
    from coffer.base.errors import UnknownNameError
    from coffer.projection.agents import AgentSet
    from coffer.projection.explain import explain as explained

    root = coffer_app()
    loaded = root.adapters()
    if agent is not None and agent not in loaded.adapters:
        raise UnknownNameError(unknown_agents([agent], loaded.adapters))
    agents = AgentSet(root.store, root.environ, loaded)
    found = explained(agents, project_path(project), agent)
    if as_json:
        emit_json(found.json())
    else:
        _print(found)
    return 0


def _file_line(f: dict[str, Any]) -> str:
    from coffer.projection.explain import said

    place = f"{f['order']:>3}." if f["order"] is not None else "   -"
    line = f"{place} {f['path']}  [{'; '.join(said.tags(f))}]"
    return "".join([line, *(f"\n       {note}" for note in said.notes(f))])


def _print(found: Explained) -> None:
    from coffer.projection.explain import said

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
        for line in [*said.memory(a), *said.cost(a["coffer_memory"])]:
            echo(f"  {line}")
        for hint in a["hints"]:
            echo(f"  hint: {hint}")
        for note in a["notes"] if a["hints"] else ():  # the agent's hazards, when they matter
            echo(f"  note: {note}")
        checked = said.checked(a["checked"])
        if checked:
            echo(f"  facts checked on {checked}")
    if data["hidden"]:
        hidden = ", ".join(data["hidden"])
        echo(f"\nnot installed, not enabled ({len(data['hidden'])}): {hidden}")
