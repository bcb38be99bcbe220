"""The page's HTML: server-rendered, every value through :func:`html.escape`, one stylesheet
and one small script shipped beside this module (docs/adr/0056)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlencode

from coffer.store.entry import TYPES, Entry
from coffer.store.tier import Found


class Shown(NamedTuple):
    """One page of the Memory view: its rows, its number (from 1), how many, of how many rows."""

    rows: Sequence[Found]
    page: int
    pages: int
    total: int

    @classmethod
    def of(cls, found: Sequence[Found], page: int, size: int) -> Shown:
        pages = max(1, -(-len(found) // size))
        page = min(max(page, 1), pages)
        return cls(found[(page - 1) * size : page * size], page, pages, len(found))


_VIEWS = (("/", "Memory"), ("/review", "Review"), ("/agents", "Agents"), ("/state", "State"))


def e(value: object) -> str:
    return escape(str(value), quote=True)


def layout(title: str, body: str, current: str = "") -> str:
    nav = "".join(
        f'<a href="{path}"{" class=on" if path == current else ""}>{name}</a>'
        for path, name in _VIEWS
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)} · coffer</title>"
        '<link rel="stylesheet" href="/static/ui.css"><script src="/static/ui.js" defer></script>'
        f"</head><body><header><b>coffer</b><nav>{nav}</nav></header>"
        f"<main><h1>{e(title)}</h1>{body}</main></body></html>"
    )


def form(action: str, csrf: str, fields: dict[str, str], inner: str, confirm: str = "") -> str:
    hidden = "".join(
        f'<input type="hidden" name="{e(k)}" value="{e(v)}">'
        for k, v in {"csrf": csrf, **fields}.items()
    )
    said = f' data-confirm="{e(confirm)}"' if confirm else ""
    return f'<form method="post" action="{action}"{said}>{hidden}{inner}</form>'


def counted(n: int, query: str) -> str:
    """``1 entry``, ``10,000 entries``, ``1 hit``: how many rows a view shows."""
    one, many = ("hit", "hits") if query else ("entry", "entries")
    return f"{n:,} {one if n == 1 else many}"


def _link(f: Found) -> str:
    query = urlencode({"scope": f.tier.scope, "name": f.entry.name})
    return f'<a class="entry" href="/entry?{query}">{e(f.entry.name)}</a>'


def _origin(f: Found) -> str:
    origin = f.entry.metadata.get("origin")
    return str(origin) if isinstance(origin, str) and origin else "unknown"


def pager(query: str, page: int, pages: int) -> str:
    """Links to the previous and next page of the Memory view (none when one page holds all)."""
    if pages <= 1:
        return ""

    def to(n: int, label: str) -> str:
        return f'<a class="page" href="/?{urlencode({"q": query, "page": n})}">{label}</a>'

    back = to(page - 1, "previous") if page > 1 else ""
    more = to(page + 1, "next") if page < pages else ""
    return f'<nav class="pager">{back} page {page} of {pages} {more}</nav>'


def memory(project: Path, query: str, shown: Shown, team: str = "") -> str:
    """The Memory view: one page of ``shown`` (every row is escaped), then the team tier."""
    rows = "".join(
        f"<tr><td>{_link(f)}<div class=desc>{e(f.entry.description)}</div></td>"
        f"<td>{e(f.tier.label)}</td><td>{e(f.entry.type or '')}</td><td>{e(_origin(f))}</td>"
        f"<td>{e(f.entry.updated_at[:10])}</td>"
        f"<td>{freshness(f.entry)}</td>"
        "</tr>"
        for f in shown.rows
    )
    search = (
        '<form method="get" action="/" class="search">'
        f'<input name="q" value="{e(query)}" placeholder="search as recall ranks" autofocus>'
        "<button>Search</button></form>"
    )
    said = f"{counted(shown.total, query)} for {e(project)}"
    table = (
        "<table><tr><th>entry</th><th>tier</th><th>type</th><th>from</th><th>updated</th>"
        f"<th>freshness</th></tr>{rows}</table>"
    )
    paging = pager(query, shown.page, shown.pages)
    body = f"{search}<p class=count>{said}</p>{paging}{table}{paging}{team}"
    return layout("Memory", body, "/")


def freshness(entry: Entry) -> str:
    """``fresh``, or why the entry may no longer be true (judged when read)."""
    return f"<span class=stale>stale: {e(entry.stale)}</span>" if entry.stale else "fresh"


def _anchors(meta: Mapping[str, Any]) -> str:
    from coffer.store.freshness import anchors_of

    shown = [a.path + (f"#{a.symbol}" if a.symbol else "") for a in anchors_of(meta)]
    return e(", ".join(shown)) if shown else "none"


def _review(meta: Mapping[str, Any]) -> str:
    due, every = meta.get("review_after"), meta.get("review_every")
    if not due:
        return "not set"
    return e(f"{due} (then every {every})" if every else due)


def about(f: Found, provenance: str, csrf: str) -> str:
    """What the entry page says of an entry: where it is and came from, when it was made and
    changed, whether it is still true (with Verify when it is stale), what it is about."""
    meta = f.entry.metadata
    keys = {"scope": f.tier.scope, "name": f.entry.name}
    verify = ""
    if f.entry.stale:  # as `coffer review`'s verify: checked now, its anchors' contents true
        verify = form("/update", csrf, {**keys, "verified": "1"}, "<button>Verify</button>")
    rows = (
        ("tier", f"{e(f.tier.label)} · {e(f.path)}"),
        ("provenance", e(provenance)),
        ("created", e(meta.get("created_at") or "unknown")),
        ("updated", e(f.entry.updated_at or "unknown")),
        ("freshness", freshness(f.entry) + verify),
        ("verified", e(meta.get("verified_at") or "never")),
        ("anchors", _anchors(meta)),
        ("review after", _review(meta)),
    )
    cells = "".join(f"<tr><th>{k}</th><td class={k.split()[0]}>{v}</td></tr>" for k, v in rows)
    return f"<table class=about>{cells}</table>"


def entry(f: Found, history: Iterable[dict[str, Any]], csrf: str, provenance: str,
          team: bool = False) -> str:  # fmt: skip
    keys = {"scope": f.tier.scope, "name": f.entry.name}
    # "none" only for an entry that has no type: a type cannot be taken away
    kind = f.entry.type or ""
    types = "".join(
        f'<option value="{t}"{" selected" if t == kind else ""}>{t or "none"}</option>'
        for t in (TYPES if kind else ("", *TYPES))
    )
    anchors = (
        '<label>add anchors <input name="anchors" placeholder="PATH or PATH#SYMBOL, '
        'separated by spaces"></label>'
        if f.tier.root is not None  # the global tier has no repository to anchor in
        else ""
    )
    edit = form(
        "/update",
        csrf,
        keys,
        f'<label>description <input name="description" value="{e(f.entry.description)}"></label>'
        f'<label>type <select name="type">{types}</select></label>'
        f'<textarea name="text" rows="10">{e(f.entry.body)}</textarea>{anchors}'
        '<label>review after <input name="review_after" placeholder="a date (2027-03-01) or '
        'an age (90d, 6m): when to look at it again"></label><button>Save</button>',
    )
    forget = form("/forget", csrf, keys, "<button class=danger>Forget</button>", "Forget it?")
    if team:  # `coffer team add`: the project has a team tier to promote it into
        forget += form("/team/add", csrf, keys, "<button>Share with the team</button>")
    versions = "".join(
        f"<tr><td>{v['number']}</td><td>{e(v['when'])}</td><td>{e(v['event'])}</td>"
        f"<td>{v['size']} B</td><td>{e(v['origin'])}</td>"
        f"<td class=desc>{e(v['description'])}</td><td>"
        + form("/restore", csrf, {**keys, "version": str(v["number"])}, "<button>Restore</button>")
        + "</td></tr>"
        for v in history
    )
    kept = f"<h2>History</h2><table>{versions}</table>" if versions else "<p>no kept version</p>"
    return layout(f.entry.name, about(f, provenance, csrf) + edit + forget + kept)


def gone(scope: str, name: str, history: Iterable[dict[str, Any]], csrf: str) -> str:
    """An entry that is not there (forgotten): its kept versions, to bring one back."""
    keys = {"scope": scope, "name": name}
    restore = form("/restore", csrf, keys, "<button>Restore the last version</button>")
    shown = "".join(f"<li>{v['number']}: {e(v['when'])} {e(v['event'])}</li>" for v in history)
    return layout(name, f"<p>{e(name)} is not in the {e(scope)} tier.</p><ul>{shown}</ul>{restore}")


def done(what: str, updated: Sequence[Path], back: str, said: Sequence[str] = ()) -> str:
    """What a write did: the files it updated, and ``said`` (how, and what was refused)."""
    files = "".join(f"<li>updated {e(p)}</li>" for p in updated) or "<li>no projected file</li>"
    how = "".join(f"<li>{e(line)}</li>" for line in said)
    notes = f'<ul class="said">{how}</ul>' if how else ""
    return layout(
        what, f'<ul class="updated">{files}</ul>{notes}<p><a href="{e(back)}">back</a></p>'
    )


def refused(status: int, why: str) -> str:
    return layout(f"{status}", f"<p>{e(why)}</p>")
