"""The Review, Agents and State views (the Memory views are coffer.ui.pages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from coffer.ui.pages import e, form, layout

if TYPE_CHECKING:
    from coffer.store.review import Item
    from coffer.sync.control import Status


def _side(item: Item) -> str:
    cells = "".join(
        f"<div><h3>#{n} {e(f.entry.name)} <small>{e(f.tier.label)}</small></h3>"
        f"<pre>{e(f.entry.body)}</pre></div>"
        for n, f in enumerate(item.entries, 1)
    )
    return f'<div class="side">{cells}</div>'


def _label(action: str, entries: int) -> str:
    """A review choice in words: ``keep:2`` is "keep #2 only"."""
    verb, _, n = action.partition(":")
    if n:
        return f"keep #{n} only" if verb == "keep" else f"{verb} #{n}"
    kept = {1: "keep it as it is", 2: "keep both"}.get(entries, "keep them all")
    words = {"keep": kept, "merge": "merge into #1", "verify": "verify: still true"}
    return words.get(verb, verb)


def review(items: Sequence[Item], csrf: str) -> str:
    from coffer.projection.review import merge_body

    out = []
    for item in items:
        keys = {"id": item.id}
        count = len(item.entries)
        buttons = "".join(
            form(
                "/resolve",
                csrf,
                {**keys, "action": a},
                f'<button data-action="{e(a)}">{e(_label(a, count))}</button>',
            )
            for a in item.actions
            if a != "merge"
        )
        merge = ""
        if "merge" in item.actions:
            first = item.entries[0].entry
            merge = form(
                "/resolve",
                csrf,
                {**keys, "action": "merge"},
                f'<label>description <input name="description" value="{e(first.description)}">'
                f'</label><textarea name="merged" rows="8">{e(merge_body(item))}</textarea>'
                f'<button data-action="merge">{_label("merge", count)}</button>',
            )
        out.append(
            f'<section class="item" data-kind="{e(item.kind)}"><h2>{e(item.kind)}: '
            f"{e(item.why)}</h2>{_side(item)}<div class=actions>{buttons}</div>{merge}</section>"
        )
    return layout("Review", "".join(out) or "<p>nothing to review</p>", "/review")


def _lines(kind: str, lines: Sequence[str]) -> str:
    """``lines`` as a list of class ``kind`` (nothing when there are none)."""
    items = "".join(f"<li>{e(line)}</li>" for line in lines)
    return f"<ul class={kind}>{items}</ul>" if items else ""


def _file(f: dict[str, Any]) -> str:
    """One file an agent reads (or would read), as `coffer explain` says it: its place, its
    size and what a cap keeps of it, what of coffer's it holds, then what hides it, what a
    cap cuts and when it is read at all."""
    from coffer.projection.explain import said

    place = f["order"] if f["order"] is not None else "-"
    return (
        f'<li data-state="{e(f["state"])}"><b>{e(place)}</b> '
        f"<span class=path>{e(f['path'])}</span> <small>{e('; '.join(said.tags(f)))}</small>"
        f"{_lines('notes', said.notes(f))}</li>"
    )


def agents(found: dict[str, Any]) -> str:
    """The Agents view: every agent `coffer explain` shows here (``found`` is its JSON),
    with the same words."""
    from coffer.projection.explain import said

    out = [f"<p class=count>session in {e(found['cwd'])}; project: "
           f"{e(found['project'] or 'none here (global tier only)')}</p>"]  # fmt: skip
    for a in found["agents"]:
        state = "ok" if a["ok"] else "not loading coffer"
        if not a["enabled"]:
            state = "coffer does not project into it: not detected"
        files = "".join(_file(f) for f in a["files"]) or "<li>no file it reads exists here</li>"
        hints = "".join(f"<p class=hint>{e(h)}</p>" for h in [*a["hints"], a["error"] or ""] if h)
        checked = said.checked(a["checked"])
        out.append(
            f'<section class="agent" data-agent="{e(a["name"])}"><h2>{e(a["title"])}'
            f" <small>{e(state)}</small></h2><ol class=files>{files}</ol>"
            f"{_lines('memory', [*said.memory(a), *said.cost(a['coffer_memory'])])}{hints}"
            f"{_lines('notes', a['notes'] if a['hints'] else [])}"  # its hazards, when they matter
            f"{'<p class=checked>facts checked on ' + e(checked) + '</p>' if checked else ''}"
            "</section>"
        )
    hidden = found["hidden"]
    if hidden:
        said_hidden = f"not installed, not enabled ({len(hidden)}): {', '.join(hidden)}"
        out.append(f"<p class=hidden>{e(said_hidden)}</p>")
    return layout("Agents", "".join(out), "/agents")


def state(found: dict[str, Any], csrf: str) -> str:
    from coffer.store.watch_state import status_lines

    watch = "".join(f"<li>{e(line)}</li>" for line in status_lines(found["watch"]))
    rows = "".join(
        f"<tr><td>{e(r.kind)}</td><td>{e(getattr(r, 'path', '') or '')}</td>"
        f"<td>{e(getattr(r, 'updated_at', None) or getattr(r, 'created_at', None) or '')}</td>"
        f"<td><code>{e(_undo(r))}</code></td><td>{_undo_button(r, csrf)}</td></tr>"
        for r in found["journal"]
    )
    journal = (
        f"<table><tr><th>kind</th><th>file</th><th>when</th><th>undo</th><th></th></tr>{rows}"
        "</table>"
        if rows
        else "<p>coffer has changed no file outside its store yet</p>"
    )
    body = f"<h2>Watcher</h2><ul>{watch}</ul>{_sync(found['sync'])}<h2>Journal</h2>{journal}"
    return layout("State", body, "/state")


def _sync(st: Status | str) -> str:
    """The sync panel: as `coffer sync status` says it (its remote already shown without a
    password), and each conflict copy waiting, resolved in the Review view."""
    from coffer.secrets import redact

    if isinstance(st, str):
        return f'<section id="sync"><h2>Sync</h2><p>sync: {e(st)}</p></section>'
    moved = f"<span class=moved>{e(redact(st.last_summary))}</span>"
    last = f"<span class=when>{e(st.last_round)}</span>: {moved}" if st.last_round else "never"
    lines = [f"remote: {e(redact(st.remote))} (this machine: {e(st.host)})", f"last round: {last}"]
    lines += [f"synced: {e(key)} &lt;- {e(label)}" for key, label in st.synced]
    lines += [f"local only: {e(label)}" for label in (*st.unkeyed, *st.doubles)]
    lines += [f"waiting: {e(key)} (no project here yet)" for key in st.waiting]
    if st.unpushed:
        lines.append(f"not pushed yet: {st.unpushed} commit(s)")
    copies = "".join(f"<li>{e(redact(c))}</li>" for c in st.conflict_copies)
    waiting = (
        f'<h3>Conflicts waiting</h3><ul class=conflicts>{copies}</ul><p><a href="/review">'
        "resolve them in Review</a></p>"
        if copies
        else "<p class=conflicts>no conflict waiting</p>"
    )
    said = "".join(f"<li>{line}</li>" for line in lines)
    return f'<section id="sync"><h2>Sync</h2><ul>{said}</ul>{waiting}</section>'


def _undo_button(record: Any, csrf: str) -> str:
    """Undo exactly this record (setup's and projections'; the service's is the CLI's)."""
    if record.kind == "service":
        return ""
    ask = f"Undo what coffer wrote in {record.path}?"
    return form("/undo", csrf, {"key": record.key}, "<button>Undo</button>", ask)


def _undo(record: Any) -> str:
    # Setup records are undone by `coffer setup --undo`; projections by `coffer unproject`,
    # in the project for its tier, with --global for the global tier's.
    if record.kind in ("setup", "service"):
        return "coffer setup --undo"
    return (
        "coffer unproject --global"
        if getattr(record, "tier", None) == "global"
        else "coffer unproject"
    )
