"""What the read-only commands print (recall, list, show, where, watch --status, adapter
list), without typer: the typer commands (coffer.cli.read, …) and the quick path
(coffer.cli.quick) both call these, so both print the same. Each returns the exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil
from coffer.base.errors import NotAProjectError
from coffer.cli._out import (
    build_engine,
    coffer_app,
    echo,
    emit_json,
    found_json,
    founds_json,
    here,
    say_errors,
    scope,
    store,
)
from coffer.secrets import find_secrets, redact, redact_each

if TYPE_CHECKING:
    from typing import Any

    from coffer.store import Entry

# Each command imports what only it needs (the entry format, the shared views, the report's
# wording): `coffer where` reads no entry (docs/adr/0023).


def recall(
    query: str, scope_value: str | None, limit: int, project: Path | None, as_json: bool
) -> int:
    """Search both tiers (BM25 ranking); each hit shows its tier and file."""
    from coffer.store import provenance

    s = store()
    at = here(project)
    hits = s.recall(s.tiers(at, scope(scope_value)), query, limit)
    team = _team_hits(at, scope_value, query, limit)
    if as_json:
        results = founds_json(hits, body=True, score=True)
        emit_json({"query": query, "results": results, "team": team})
        return 0
    if not hits and not team:
        echo(f"no entries match {query!r}")
        return 0
    lines: list[str] = []
    for n, hit in enumerate(hits, 1):
        lines.append(f"{n}. {hit.entry.name}  [{hit.tier.label}]  score {hit.score:.3g}")
        if hit.entry.description:
            lines.append(f"   {hit.entry.description}")
        lines.append(f"   {hit.path}")
        came = provenance.merged(hit.tier.base)  # what a first projection merged
        lines.append(f"   {provenance.line(hit.entry, came)}")  # where it came from (ADR 0051)
    for n, t in enumerate(team, len(hits) + 1):
        lines.append(f"{n}. {t['name']}  [team]  score {t['score']:.3g}")
        lines.append(f"   {t['path']}")
        lines.append(f"   {_from(t['provenance'])}")
    # Screened together, as `list` does: forty lines cost one screen, not forty.
    for line in redact_each(lines):
        echo(line)
    return 0


def _from(prov: dict[str, Any]) -> str:
    text = f"from {prov['origin']}" + (f" on {prov['machine']}" if "machine" in prov else "")
    return text + (f"; changed by {prov['updated_by']}" if "updated_by" in prov else "")


def _team_hits(at: Any, scope_value: str | None, query: str, limit: int) -> list[dict[str, Any]]:
    """The team tier's matches (docs/adr/0036), when the project has one and no tier was
    chosen or the project tier was."""
    if scope_value == "global" or at.project is None:
        return []
    from coffer.store import team_search

    return [
        {k: redact(v) if isinstance(v, str) else v for k, v in h.as_json().items()}
        for h in team_search.recall(store(), at.project, query, limit)
    ]


def list_entries(scope_value: str | None, project: Path | None, as_json: bool) -> int:
    """List entries of the project and global tiers."""
    from coffer.store import Found
    from coffer.store.views import tier_json

    s = store()
    tiers = s.tiers(here(project), scope(scope_value))
    rows = [(t, s.entries(t)) for t in tiers]
    if as_json:
        emit_json(
            {
                "tiers": [
                    {**tier_json(t), "entries": founds_json((Found(t, e) for e in es), body=False)}
                    for t, es in rows
                ]
            }
        )
        return 0
    # One width for every tier, taken from the longest name: columns stay aligned.
    # Redacted together (one screen for the listing), then dealt back three per entry.
    texts = iter(redact_each([text for _, es in rows for e in es for text in _columns(e)]))
    shown = [(t, [(next(texts), next(texts), next(texts)) for _ in es]) for t, es in rows]
    name_w = max((len(name) for _, es in shown for name, _, _ in es), default=0)
    type_w = max((len(type_) for _, es in shown for _, type_, _ in es), default=0)
    for tier, entries in shown:
        echo(f"{tier.label}: {len(entries)} {'entry' if len(entries) == 1 else 'entries'}")
        for name, type_, description in entries:
            echo(f"  {name:<{name_w}}  {type_:<{type_w}}  {description}".rstrip())
    return 0


def _columns(entry: Entry) -> tuple[str, str, str]:
    return entry.name, entry.type or "-", entry.description


def show(name: str, scope_value: str | None, project: Path | None, as_json: bool) -> int:
    """Print one entry's file exactly as stored (its path and tier go to stderr)."""
    from coffer.store.entry import serialize

    s = store()
    found = s.find(s.tiers(here(project), scope(scope_value)), name)
    if as_json:
        emit_json(found_json(found, body=True))
        return 0
    # The header goes to stderr, so `coffer show NAME > x.md` is the entry file, byte for byte
    # (unless it holds a secret: then it is printed redacted, and stderr says so).
    echo(redact(f"# {found.path}  [{found.tier.label}]"), err=True)
    data = fsutil.read_bytes_or_none(found.path)
    if data is None:
        data = serialize(found.entry).encode()
    text = data.decode("utf-8", "surrogateescape")
    labels = find_secrets(text)
    if labels:
        data = redact(text).encode("utf-8", "surrogateescape")
        echo(
            f"coffer: {', '.join(labels)} redacted from this entry; open the file itself to see it",
            err=True,
        )
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    return 0


def where(project: Path | None, as_json: bool) -> int:
    """Show the store location and the project the current directory resolves to."""
    s = store()
    at = here(project)
    # The home directory, / or an uninvited directory is no project, but where things are
    # is still an answer.
    try:
        root: Path | None = at.require()
    except NotAProjectError as exc:
        root, why = None, str(exc)
    tier = s.tier_at(root) if root else None
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
        return 0
    echo(f"store:   {s.root}")
    if root:
        echo(f"project: {root.name} ({root})")
        echo(f"         {tier.dir if tier else '(no memory yet: created on first remember)'}")
    else:
        echo(f"project: none, only the global tier ({why})")
    echo(f"global:  {global_tier.dir}")
    return 0


def adapter_list(project: Path | None, as_json: bool, every: bool = False) -> int:
    """`coffer adapter list`: 1 when something enabled needs the user (said on stderr), else
    0, also when targets are merely not projected yet (a note says what to run). Agents
    neither installed nor enabled are counted, and listed with ``every`` (--all)."""
    engine = build_engine()
    at = here(project)  # the one resolution of this command
    statuses, errors = engine.status(at, every=every)
    root = at.project
    ok = all(s.ok for s in statuses) and not errors
    problems = [f"{s.name}: {p}" for s in statuses for p in s.problems()]
    pending = [t for s in statuses if s.enabled for t in s.targets if t.pending]
    code = 1 if problems or errors else 0
    from coffer.overview import watch_info

    watch = watch_info(engine.store.root, os.environ)
    shown = [s for s in statuses if every or not s.hidden]
    platform_notes = _platform_notes(engine, root)
    hidden = [s.name for s in statuses if s.hidden and not every]
    if as_json:
        emit_json(
            {
                "ok": ok,
                "project": {"root": str(root), "name": root.name} if root else None,
                "errors": errors,
                "problems": problems,
                "pending": len(pending),
                "watch": watch,
                "adapters": [s.as_json() for s in shown],
                "hidden": hidden,
                "platform": platform_notes,
            }
        )
        say_errors(problems, "adapter list says more")
        return code
    echo(f"project: {root.name} ({root})" if root else "project: none here (global tier only)")
    _adapter_lines(shown)
    if hidden:
        echo(f"not installed, not enabled ({len(hidden)}): {', '.join(hidden)} (--all lists them)")
    echo(_watch_line(watch))
    for e in errors:
        echo(f"error: {e}")
    for note in platform_notes:
        echo(f"note: {note}")
    if pending:
        n = len(pending)
        echo(
            f"note: {n} target{'s' if n > 1 else ''} not projected or behind the entries; "
            "`coffer project` brings them up to date (so does the next session start)"
        )
    say_errors(problems, "adapter list says more")
    return code


def _platform_notes(engine: Any, root: Path | None) -> list[str]:
    """What this platform keeps from working (WSL: agents on the Windows side, a
    repository on a Windows drive)."""
    from coffer.adapter import wsl
    from coffer.projection.checkup import windows_git

    notes = [wsl.notice(wsl.windows_side(engine.loaded))]
    notes.append(windows_git(root) if root is not None else None)
    return [n for n in notes if n is not None]


def _adapter_lines(statuses: Sequence[Any]) -> None:
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
        if s.wireable and s.enabled:
            wired = ", ".join(f"{k} {v}" for k, v in sorted(s.wiring.items()))
            echo(f"  setup: {wired or 'not wired (`coffer setup` wires its MCP server and more)'}")
        if s.trust is not None and s.enabled:
            echo(f"  hook trust: {s.trust.state} ({s.trust.detail})")
            for line in s.trust.how.splitlines():
                echo(f"    {line}")
        if s.error:
            echo(f"  error: {s.error}")
        if s.link is not None and s.enabled:
            echo(f"  warning: {s.link.warning}")
        for t in s.targets:
            detail = f" ({t.detail})" if t.detail else ""
            cols = f"{t.tier:<{tier_w}}  {t.mode:<{mode_w}}  {t.state:<{state_w}}"
            echo(f"  {cols}  {t.path}{detail}")
            if t.note:
                echo(f"  {'':<{tier_w + mode_w + state_w + 4}}  note: {t.note}")


def _watch_line(watch: dict[str, Any]) -> str:
    from coffer.setup import service_status as service
    from coffer.setup.service_privacy import denial_lines

    head = f"watch: running (pid {watch['pid']})" if watch["running"] else "watch: not running"
    line = f"{head}; service: {service.describe(watch['service'])}"
    return "\n".join([line, *(f"  {d}" for d in denial_lines(watch))])


def watch_status(as_json: bool) -> int:
    """`coffer watch --status`: 0 if the daemon runs, watch_state.EXIT_NOT_RUNNING if not."""
    from coffer.setup import service_status as service
    from coffer.store import watch_state

    root = coffer_app().store_root
    data = watch_state.read_status(root)
    data["service"] = service.status(root, os.environ)
    if as_json:
        emit_json(data)
    else:
        lines = watch_state.status_lines(data)
        for line in lines + service.status_lines(data["service"], data):
            echo(line)
    return 0 if data["running"] else watch_state.EXIT_NOT_RUNNING


def status(project: Path | None, as_json: bool) -> int:
    """`coffer status`: the overview (coffer.overview); informational, exit 0."""
    from coffer.overview import overview

    data = overview(coffer_app(), here(project))
    if as_json:
        emit_json(data)
        return 0
    for line in status_lines(data):
        echo(line)
    return 0


def _trust_word(trust: dict[str, Any] | None) -> str:
    return "" if trust is None else f", hook {trust['state']}"


def _agent_status(a: dict[str, Any]) -> list[str]:
    """One agent's lines of `coffer status`: projected, wired, its hook trusted."""
    if not a["enabled"]:
        return [f"{a['name']}: present, not enabled (`coffer adapter enable {a['name']}`)"]
    projected = "projected" if a["projected"] else "not projected"
    wired = a["wired"]
    if wired is None:
        setup = ""
    elif wired:
        setup = ", " + ", ".join(f"{k} {v}" for k, v in wired.items())
    else:
        setup = ", not wired (`coffer setup`)"
    lines = [f"{a['name']}: {projected}{setup}{_trust_word(a['trust'])}"]
    lines += [f"  {p}" for p in a["problems"]]
    trust = a["trust"]
    if trust is not None and trust["state"] != "trusted":
        lines.append(f"  hook: {trust['detail']}")
        lines += [f"    {line}" for line in trust["how"].splitlines()]
    return lines


def status_lines(data: dict[str, Any]) -> list[str]:
    project, counts = data["project"], data["entries"]
    team = f", team {counts['team']}" if counts["team"] is not None else ""
    if project:
        lines = [f"project: {project['name']} ({project['root']})"]
        lines.append(f"entries: project {counts['project'] or 0}{team}, global {counts['global']}")
    else:
        lines = ["project: none here (global tier only)", f"entries: global {counts['global']}"]
    for a in data["agents"]:
        lines += _agent_status(a)
    if data["hidden"]:
        lines.append(f"not installed, not enabled: {len(data['hidden'])} more agents")
    lines.append(_watch_line(data["watch"]))
    sync = data["sync"]
    if not sync["configured"]:
        lines.append("sync: not set up (`coffer sync init REMOTE`)")
    elif sync.get("error"):
        lines.append(f"sync: {sync['error']}")
    else:
        last = f"{sync['last_round']}: {sync['last_summary']}" if sync["last_round"] else "never"
        lines.append(f"sync: {sync['remote']}; last round {last}")
    if data["problems"]:
        lines += [f"last problem: {p}" for p in data["problems"]]
    else:
        lines.append("last problem: none")
    return lines
