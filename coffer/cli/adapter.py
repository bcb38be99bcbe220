"""`coffer adapter` (list, enable, disable): audit and choose the agents to project into."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.base.errors import UnknownNameError
from coffer.cli import reading
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    build_engine,
    complete_agent,
    echo,
    option,
)
from coffer.cli.typer_app import app
from coffer.store import settings as settings_mod

adapter_app = typer.Typer(no_args_is_help=True, help="Inspect and choose agent adapters.")
app.add_typer(adapter_app, name="adapter")


@adapter_app.command("list")
def adapter_list(
    path: ProjectOpt = None,
    as_json: JsonOpt = False,
    every: Annotated[bool, option("every")] = False,
) -> None:
    """Audit what is projected where.

    Exit codes: 0 when nothing needs you (targets not projected yet are only noted), 1 when
    something enabled does (a hand-edited block, a foreign file, an adapter's error; said
    on stderr), 2 for a usage error."""
    raise typer.Exit(reading.adapter_list(path, as_json, every))


AgentArg = Annotated[str, typer.Argument(metavar="NAME", autocompletion=complete_agent)]


def _set_adapter(name: str, on: bool) -> None:
    from coffer.adapter.registry import unknown_agents

    engine = build_engine()
    if name not in engine.loaded.adapters:
        raise UnknownNameError(unknown_agents([name], engine.loaded.adapters))
    s = settings_mod.load(engine.store.root)
    s.adapters[name] = on
    settings_mod.save(engine.store.root, s)


@adapter_app.command("enable")
def adapter_enable(name: AgentArg) -> None:
    """Project into this agent even if coffer does not detect it."""
    _set_adapter(name, True)
    echo(f"enabled {name}; run `coffer project` to project into it")


@adapter_app.command("disable")
def adapter_disable(name: AgentArg) -> None:
    """Stop projecting into this agent (existing projections stay until `unproject`)."""
    _set_adapter(name, False)
    echo(f"disabled {name}; `coffer unproject --agent {name}` removes what coffer wrote for it")
