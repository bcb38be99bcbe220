"""Read-only store commands: recall, list, show, where."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from coffer import fsutil
from coffer.cli import app
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    ScopeOpt,
    echo,
    emit_json,
    found_json,
    project_path,
    scope,
    store,
)
from coffer.errors import NotAProjectError
from coffer.report import plural
from coffer.secrets import find_secrets, redact
from coffer.store.entry import serialize
from coffer.store.store import Found
from coffer.store.views import tier_json


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    scope_value: ScopeOpt = None,
    limit: Annotated[int, typer.Option(help="At most this many results.", min=1)] = 10,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search both tiers (BM25 ranking); each hit shows its tier and file."""
    s = store()
    hits = s.recall(s.tiers(project_path(project), scope(scope_value)), query, limit)
    if as_json:
        results = [found_json(h, body=True, score=True) for h in hits]
        emit_json({"query": query, "results": results})
        return
    if not hits:
        echo(f"no entries match {query!r}")
        raise typer.Exit(0)
    for n, hit in enumerate(hits, 1):
        echo(redact(f"{n}. {hit.entry.name}  [{hit.tier.label}]  score {hit.score:.3g}"))
        if hit.entry.description:
            echo(redact(f"   {hit.entry.description}"))
        echo(redact(f"   {hit.path}"))


@app.command("list")
def list_(
    scope_value: ScopeOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List entries of the project and global tiers."""
    s = store()
    tiers = s.tiers(project_path(project), scope(scope_value))
    rows = [(t, s.entries(t)) for t in tiers]
    if as_json:
        emit_json(
            {
                "tiers": [
                    {**tier_json(t), "entries": [found_json(Found(t, e), body=False) for e in es]}
                    for t, es in rows
                ]
            }
        )
        return
    # One width for every tier, taken from the longest name: columns stay aligned.
    shown = [
        (t, [(redact(e.name), redact(e.type or "-"), redact(e.description)) for e in es])
        for t, es in rows
    ]
    name_w = max((len(name) for _, es in shown for name, _, _ in es), default=0)
    type_w = max((len(type_) for _, es in shown for _, type_, _ in es), default=0)
    for tier, entries in shown:
        echo(f"{tier.label}: {plural(len(entries), 'entry', 'entries')}")
        for name, type_, description in entries:
            echo(f"  {name:<{name_w}}  {type_:<{type_w}}  {description}".rstrip())


@app.command()
def show(
    name: Annotated[str, typer.Argument(help="Entry name.")],
    scope_value: ScopeOpt = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print one entry's file exactly as stored (its path and tier go to stderr)."""
    s = store()
    found = s.find(s.tiers(project_path(project), scope(scope_value)), name)
    if as_json:
        emit_json(found_json(found, body=True))
        return
    # The header goes to stderr, so `coffer show NAME > x.md` is the entry file, byte for byte
    # (unless it holds a secret: then it is printed redacted, and stderr says so).
    typer.echo(redact(f"# {found.path}  [{found.tier.label}]"), err=True)
    data = fsutil.read_bytes_or_none(found.path)
    if data is None:
        data = serialize(found.entry).encode()
    text = data.decode("utf-8", "surrogateescape")
    labels = find_secrets(text)
    if labels:
        data = redact(text).encode("utf-8", "surrogateescape")
        typer.echo(
            f"coffer: {', '.join(labels)} redacted from this entry; open the file itself to see it",
            err=True,
        )
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


@app.command()
def where(project: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """Show the store location and the project the current directory resolves to."""
    s = store()
    path = project_path(project)
    # The home directory, / or an uninvited directory is no project, but where things are
    # is still an answer.
    try:
        root: Path | None = s.resolve_root(path)
    except NotAProjectError as exc:
        root, why = None, str(exc)
    tier = s.project_tier(path) if root else None
    global_tier = s.global_tier()
    data = {
        "store": str(s.root),
        "project": {
            "root": str(root),
            "name": root.name,
            "id": tier.info.id if tier else None,
            "dir": str(tier.dir) if tier else None,
        }
        if root
        else None,
        "global": {"id": global_tier.info.id, "dir": str(global_tier.dir)},
    }
    if as_json:
        emit_json(data)
        return
    echo(f"store:   {s.root}")
    if root:
        echo(f"project: {root.name} ({root})")
        echo(f"         {tier.dir if tier else '(no memory yet: created on first remember)'}")
    else:
        echo(f"project: none, only the global tier ({why})")
    echo(f"global:  {global_tier.dir}")
