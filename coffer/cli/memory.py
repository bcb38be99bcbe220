"""Store commands: remember, update, recall, list, show, forget, where, reindex, doctor."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from coffer import fsutil
from coffer.cli import app
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    ScopeOpt,
    WriteScopeOpt,
    check_type,
    complete_type,
    echo,
    emit_json,
    project_path,
    scope,
    store,
    usage_checked,
)
from coffer.errors import InvalidInputError, NotAProjectError
from coffer.projection.writes import Refreshed, Writer
from coffer.report import plural
from coffer.secrets import find_secrets, redact
from coffer.store import health as doctor_mod
from coffer.store.entry import TYPES, check_name, serialize
from coffer.store.store import Found, Saved, Tier


def _tier_json(tier: Tier) -> dict[str, Any]:
    return {
        "scope": tier.scope,
        "project": tier.info.name if tier.scope == "project" else None,
        "root": tier.info.root or None,
        "id": tier.info.id,
        "dir": str(tier.dir),
    }


def _redacted(value: Any) -> Any:
    """``value`` with every secret-shaped span in its strings replaced by ``[redacted …]``.

    Entries arrive through linked directories and synced folders, so a name, description or
    file name may hold a token the write gate never saw; what coffer prints (to a terminal or
    an agent reading its output) never repeats it, as doctor and watch do not.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {_redacted(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def _found_json(found: Found, *, body: bool, score: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": found.entry.name,
        "description": found.entry.description,
        "type": found.entry.type,
        "file": str(found.path),
        "tier": _tier_json(found.tier),
    }
    if score:
        data["score"] = found.score
    if body:
        data["metadata"] = dict(found.entry.metadata)
        data["body"] = found.entry.body
    redacted: dict[str, Any] = _redacted(data)
    return redacted


def _writer() -> Writer:
    return Writer(store(), os.environ)


def _say_refreshed(refreshed: Refreshed) -> None:
    """Which projected files the write reached; what it could not reach goes to stderr."""
    for path in refreshed.updated:
        echo(f"updated {path}")
    for problem in refreshed.problems:
        typer.echo(f"coffer: not refreshed: {problem}", err=True)


def _write_tier(project: ProjectOpt, scope_value: str | None) -> Tier:
    s = store()
    if scope(scope_value) == "global":
        return s.global_tier(create=True)
    tier = s.project_tier(project_path(project), create=True)
    assert tier is not None
    return tier


def _type_option(label: str) -> Any:
    """``--type`` for the commands that write an entry (checked and completed alike)."""
    return typer.Option(
        "--type",
        help=f"{label}: {', '.join(TYPES)}.",
        metavar="TYPE",
        callback=check_type,
        autocompletion=complete_type,
    )


@app.command()
def remember(
    text: Annotated[str, typer.Argument(help="What to remember; '-' reads it from stdin.")],
    name: Annotated[
        str | None,
        typer.Option(help="Entry name (kebab-case).", callback=usage_checked(check_name)),
    ] = None,
    description: Annotated[str | None, typer.Option(help="One-line description.")] = None,
    type_: Annotated[str | None, _type_option("Entry type")] = None,
    scope_value: WriteScopeOpt = "project",
    replace: Annotated[
        bool, typer.Option(help="Overwrite an existing entry with the same --name.")
    ] = False,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Store a memory entry in the project's tier (or the global one)."""
    if text == "-":
        text = sys.stdin.read()
    tier = _write_tier(project, scope_value)
    saved, refreshed = _writer().remember(
        tier, text, name=name, description=description, type=type_, replace_existing=replace
    )
    _say_saved(saved, refreshed, as_json)


def _say_saved(saved: Saved, refreshed: Refreshed, as_json: bool) -> None:
    path = saved.tier.dir / saved.entry.filename
    if as_json:
        emit_json(
            {
                "action": saved.action,
                "name": saved.entry.name,
                "file": str(path),
                "tier": _tier_json(saved.tier),
                "refresh": refreshed.as_json(),
            }
        )
        return
    if saved.action == "unchanged":
        echo(f"already remembered as {saved.entry.name} in {saved.tier.label}: {path}")
    else:
        echo(f"{saved.action} {saved.entry.name} in {saved.tier.label}: {path}")
    _say_refreshed(refreshed)


@app.command()
def update(
    name: Annotated[str, typer.Argument(help="Entry name.")],
    text: Annotated[
        str | None, typer.Argument(help="The new text; '-' reads it from stdin.")
    ] = None,
    description: Annotated[str | None, typer.Option(help="New one-line description.")] = None,
    type_: Annotated[str | None, _type_option("New entry type")] = None,
    scope_value: WriteScopeOpt = "project",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change an existing entry's text, description or type (other metadata is kept)."""
    if text is None and description is None and type_ is None:
        raise InvalidInputError("nothing to update: pass the new text, --description or --type")
    if text == "-":
        text = sys.stdin.read()
    tiers = store().tiers(project_path(project), scope(scope_value))
    if not tiers:
        raise InvalidInputError("this project has no memory yet")
    saved, refreshed = _writer().update(
        tiers[0], name, text=text, description=description, type=type_
    )
    _say_saved(saved, refreshed, as_json)


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
        results = [_found_json(h, body=True, score=True) for h in hits]
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
                    {**_tier_json(t), "entries": [_found_json(Found(t, e), body=False) for e in es]}
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
        emit_json(_found_json(found, body=True))
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
def forget(
    name: Annotated[str, typer.Argument(help="Entry name.")],
    scope_value: WriteScopeOpt = "project",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove an entry (moved to the store's trash, not destroyed)."""
    s = store()
    chosen = scope(scope_value)
    tiers = s.tiers(project_path(project), chosen)
    if not tiers:
        raise InvalidInputError("this project has no memory yet")
    found, refreshed = _writer().forget(tiers[0], name)
    if as_json:
        emit_json(
            {
                "action": "forgotten",
                **_found_json(found, body=False),
                "refresh": refreshed.as_json(),
            }
        )
    else:
        echo(f"forgot {found.entry.name} from {found.tier.label} (kept in {found.tier.base}/trash)")
        _say_refreshed(refreshed)


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


@app.command()
def reindex(scope_value: ScopeOpt = None, project: ProjectOpt = None) -> None:
    """Regenerate MEMORY.md from the entries (hand-written lines are kept)."""
    s = store()
    for tier in s.tiers(project_path(project), scope(scope_value)):
        changed = s.regenerate_index(tier)
        echo(f"{'rewrote' if changed else 'unchanged'} {tier.dir / 'MEMORY.md'}")


@app.command()
def doctor(
    all_projects: Annotated[bool, typer.Option("--all", help="Check every project.")] = False,
    rebuild_projects: Annotated[
        bool,
        typer.Option(
            "--rebuild-projects",
            "--rebuild-registry",  # the name before 0.2; kept so scripts keep working
            help="Rebuild projects.json from projects/*/project.json (keeps the old file).",
        ),
    ] = False,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check store health (unparsable files, duplicates, broken links, stale index).

    Reports only, unless asked to rebuild the project list; exits 1 when anything needs attention.
    """
    from coffer.errors import StoreError
    from coffer.store import projects

    s = store()
    if rebuild_projects:
        with s.store_lock():
            mapping = projects.rebuild_project_list(s.root)
        echo(f"rebuilt {s.root / projects.PROJECT_LIST}: {plural(len(mapping), 'project')}")
    try:
        tiers = s.all_tiers() if all_projects else s.tiers(project_path(project), None)
    except StoreError:
        tiers = [s.global_tier()]  # the project list itself is damaged: doctor says so below
    findings = doctor_mod.run(s, tiers)
    bad = any(f.level != "info" for f in findings)
    if as_json:
        emit_json({"ok": not bad, "findings": [f.as_dict() for f in findings]})
    else:
        for f in findings:
            echo(f"{f.level}: {f.tier}: {f.path}: {f.message}")
        echo("ok" if not bad else plural(sum(f.level != "info" for f in findings), "problem"))
    raise typer.Exit(1 if bad else 0)
