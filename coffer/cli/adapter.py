"""`coffer adapter` (list, enable, disable): audit and choose the agents to project into."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from coffer.cli import app
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    build_engine,
    complete_agent,
    echo,
    emit_json,
    project_path,
)
from coffer.errors import UnknownNameError
from coffer.store import settings as settings_mod

adapter_app = typer.Typer(no_args_is_help=True, help="Inspect and choose agent adapters.")
app.add_typer(adapter_app, name="adapter")


@adapter_app.command("list")
def adapter_list(path: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """Audit what is projected where. Exits 1 when anything enabled is not ok."""
    engine = build_engine()
    statuses, errors = engine.status(project_path(path))
    root = engine.store.project_root_or_none(project_path(path))
    ok = all(s.ok for s in statuses) and not errors
    watch = _watch_info(engine.store.root)
    if as_json:
        data: dict[str, Any] = {
            "ok": ok,
            "project": {"root": str(root), "name": root.name} if root else None,
            "errors": errors,
            "watch": watch,
            "adapters": [
                {
                    "name": s.name,
                    "origin": s.origin,
                    "present": s.present,
                    "enabled": s.enabled,
                    "modes": s.modes,
                    "native_memory": s.native,
                    "error": s.error or None,
                    "ok": s.ok,
                    "targets": [t.__dict__ for t in s.targets],
                }
                for s in statuses
            ],
        }
        emit_json(data)
        raise typer.Exit(0 if ok else 1)
    echo(f"project: {root.name} ({root})" if root else "project: none here (global tier only)")
    # Widths from the values shown, so a long state or mode never shifts the path column.
    targets = [t for s in statuses for t in s.targets]
    tier_w = max((len(t.tier) for t in targets), default=0)
    mode_w = max((len(t.mode) for t in targets), default=0)
    state_w = max((len(t.state) for t in targets), default=0)
    for s in statuses:
        modes = " ".join(f"{k}={v}" for k, v in s.modes.items())
        flags = f"{'present' if s.present else 'absent'}, {'enabled' if s.enabled else 'disabled'}"
        echo(f"{s.name} ({flags}; {modes}; from {s.origin})")
        if s.native != "none":
            echo(f"  native memory: {s.native}")
        if s.error:
            echo(f"  error: {s.error}")
        for t in s.targets:
            detail = f" ({t.detail})" if t.detail else ""
            cols = f"{t.tier:<{tier_w}}  {t.mode:<{mode_w}}  {t.state:<{state_w}}"
            echo(f"  {cols}  {t.path}{detail}")
            if t.note:
                echo(f"  {'':<{tier_w + mode_w + state_w + 4}}  note: {t.note}")
    echo(_watch_line(watch))
    for e in errors:
        echo(f"error: {e}")
    raise typer.Exit(0 if ok else 1)


def _watch_info(root: Path) -> dict[str, Any]:
    """Whether `coffer watch` runs for this store, and as which service (not part of `ok`:
    without the watcher, blocks still refresh at every session start)."""
    from coffer.setup import service
    from coffer.watch import daemon

    data = daemon.read_status(root)
    running = bool(data.get("running"))
    return {
        "running": running,
        "pid": data.get("pid") if running else None,
        "service": service.status(root, os.environ),
    }


def _watch_line(watch: dict[str, Any]) -> str:
    from coffer.setup import service

    head = f"watch: running (pid {watch['pid']})" if watch["running"] else "watch: not running"
    return f"{head}; service: {service.describe(watch['service'])}"


AgentArg = Annotated[str, typer.Argument(metavar="NAME", autocompletion=complete_agent)]


def _set_adapter(name: str, on: bool) -> None:
    from coffer.registry import unknown_agents

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
