"""Store upkeep commands: reindex, doctor (whose checks are coffer.cli.upkeep's, which the
quick path runs too)."""

from __future__ import annotations

from typing import Annotated

import typer

from coffer.cli import upkeep
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    ScopeOpt,
    echo,
    here,
    option,
    scope,
    store,
)
from coffer.cli.typer_app import app


@app.command()
def reindex(scope_value: ScopeOpt = None, project: ProjectOpt = None) -> None:
    """Regenerate MEMORY.md from the entries (hand-written lines are kept)."""
    s = store()
    for tier in s.tiers(here(project), scope(scope_value)):
        changed = s.regenerate_index(tier)
        echo(f"{'rewrote' if changed else 'unchanged'} {tier.dir / 'MEMORY.md'}")


@app.command()
def doctor(
    all_projects: Annotated[bool, option("every_project")] = False,
    rebuild_projects: Annotated[bool, option("rebuild_projects")] = False,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check store health (unparsable files, duplicates, broken links, stale index).

    Reports only, unless asked to rebuild the project list; exits 1 when anything needs attention.
    """
    raise typer.Exit(upkeep.doctor(all_projects, rebuild_projects, project, as_json))
