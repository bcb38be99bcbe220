"""`coffer explain`: what each agent loads at session start here, and whether coffer's
memory is in it (coffer.projection.explain; docs/adr/0029). Informational: exit 0 whatever
it finds; a usage error (an unknown agent) is 2, a path that does not exist 1."""

from __future__ import annotations

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
