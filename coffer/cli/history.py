"""`coffer history` and `coffer restore`: the versions coffer kept of an entry, and putting
one back (coffer.store.history, docs/adr/0052)."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.base.errors import InvalidInputError
from coffer.cli._common import JsonOpt, ProjectOpt, WriteScopeOpt, echo, emit_json, here, scope
from coffer.cli._common import store as open_store
from coffer.cli.memory import NameArg
from coffer.cli.typer_app import app
from coffer.cli.writing import say_refreshed, writer
from coffer.store.tier import Tier

VersionOpt = Annotated[
    int | None,
    typer.Option("--version", help="The version to restore (`coffer history NAME` numbers them)."),
]


def _tier(project: ProjectOpt, scope_value: str | None) -> Tier:
    tiers = open_store().tiers(here(project), scope(scope_value))
    if not tiers:
        raise InvalidInputError("this project has no memory yet")
    return tiers[0]


@app.command()
def history(
    name: NameArg,
    scope_value: WriteScopeOpt = "project",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the kept versions of an entry: each rewrite or deletion coffer saw, oldest first."""
    from coffer.store import history as kept_versions

    tier = _tier(project, scope_value)
    s = open_store()
    with s.lock(tier):
        kept = s.kept(tier)  # a change not looked at yet is kept first
    shown = [kept_versions.about(kept, v) for v in kept.versions(name)]
    if as_json:
        emit_json(shown)
        return
    for v in shown:
        echo(
            f"{v['number']:>3}  {v['when']}  {v['event']:<8} {v['size']:>6} B  "
            f"{v['origin']}  {v['description']}"
        )
    days = kept_versions.RETENTION_DAYS
    if not shown:
        echo(f"no kept version of {name!r} in {tier.label} (versions are kept {days} days)")
    else:
        echo(f"versions are kept {days} days; `coffer restore {name} --version N` brings one back")


@app.command()
def restore(
    name: NameArg,
    version: VersionOpt = None,
    scope_value: WriteScopeOpt = "project",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Bring back a kept version of an entry (by default the latest that differs from the
    file, or the last one of a deleted entry) and refresh every block."""
    tier = _tier(project, scope_value)
    chosen, changed, refreshed = writer().restore(tier, name, version)
    path = tier.dir / chosen.filename
    if as_json:
        emit_json({"action": "restored" if changed else "unchanged", "name": chosen.name,
                   "version": chosen.number, "file": str(path),
                   "refresh": refreshed.as_json()})  # fmt: skip
        return
    if not changed:
        echo(f"{path} already holds version {chosen.number}")
        return
    echo(f"restored version {chosen.number} of {chosen.name} to {path}")
    say_refreshed(refreshed)
