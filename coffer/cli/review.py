"""`coffer review`: the review queue (coffer.store.review), one item at a time, each kept,
merged, forgotten or verified (coffer.projection.review); `--json` lists it for scripts."""

from __future__ import annotations

import shutil
from typing import Annotated

import typer

from coffer.cli._common import JsonOpt, ProjectOpt, ScopeOpt, echo, emit_json, here, scope, store
from coffer.cli.memory import edited
from coffer.cli.typer_app import app
from coffer.cli.writing import writer
from coffer.store import Tier

# What each choice is called at the prompt, and what it does.
_SAID = {
    "keep": ("k", "keep all as they are"),
    "keep:1": ("1", "keep #1 only"),
    "keep:2": ("2", "keep #2 only"),
    "merge": ("m", "merge into #1 (in your editor)"),
    "forget:1": ("f", "forget it"),
    "verify": ("v", "verify: still true"),
    "accept": ("a", "accept: every agent may load it"),
}


@app.command()
def review(
    scope_value: ScopeOpt = None,
    hold: Annotated[
        bool | None,
        typer.Option(
            "--hold-agent-writes/--no-hold-agent-writes",
            help="From now on, hold what agents write in this tier as pending until you accept "
            "it here (or let it reach every agent at once, the default). Needs --scope.",
        ),
    ] = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Walk what needs a person: conflict copies, import collisions, duplicates,
    contradictions, stale entries and agents' pending entries. Each is kept, merged,
    forgotten, verified or accepted; `s` skips it, `q` stops."""
    from coffer.projection.review import merge_draft, resolve
    from coffer.store.review import queue

    tiers = store().tiers(here(project), scope(scope_value))
    if hold is not None:
        _hold(tiers if scope_value is not None else [], hold)
        return
    items = queue(store(), tiers)
    if as_json:
        emit_json({"items": [i.as_json() for i in items]})
        return
    if not items:
        echo("nothing to review")
        return
    for n, item in enumerate(items, 1):
        echo(f"\n[{n}/{len(items)}] {item.kind}: {item.why}")
        for k, f in enumerate(item.entries, 1):
            first = f.entry.body.strip().splitlines()[0] if f.entry.body.strip() else ""
            echo(f"  #{k} {f.entry.name} ({f.tier.label}): {first[:100]}")
        keys = {_SAID[a][0]: a for a in item.actions}
        menu = ", ".join(f"{_SAID[a][0]} {_SAID[a][1]}" for a in item.actions)
        answer = typer.prompt(f"  {menu}, s skip, q quit", default="s", show_default=False)
        answer = answer.strip().lower()
        if answer == "q":
            break
        action = keys.get(answer)
        if action is None:
            echo("  skipped")
            continue
        merged, draft = None, None
        if action == "merge":
            merged, draft = edited(
                merge_draft(item), item.entries[0].entry.filename, "nothing changed"
            )
        for path in resolve(writer(), item, action, merged):
            echo(f"  updated {path}")
        if draft is not None:  # kept when the merge was refused, so no edit is lost
            shutil.rmtree(draft.parent, ignore_errors=True)
        echo(f"  done: {_SAID[action][1]}")


def _hold(tiers: list[Tier], hold: bool) -> None:
    if len(tiers) != 1:
        raise typer.BadParameter("choose the tier with --scope project or --scope global")
    store().choose("hold_agent_writes", tiers[0], hold)
    said = "held as pending until accepted" if hold else "reach every agent at once"
    echo(f"what agents write in {tiers[0].label}: {said}")
