"""The team tier on the page (docs/adr/0036): its entries with who last changed them, one
entry's text, and the one team edit the CLI offers (`coffer team remove`). Every value a
teammate wrote goes through :func:`coffer.secrets.redact` and :func:`html.escape`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from coffer.secrets import redact
from coffer.ui.pages import counted, e, form, freshness, layout

if TYPE_CHECKING:
    from coffer.store.entry import Entry
    from coffer.store.team import TeamScan


def r(value: object) -> str:
    """A teammate's text, never a credential, always escaped."""
    return e(redact(str(value)))


def by(entry: Entry) -> str:
    """Who added or last changed a team entry (``updated_by``, else its origin)."""
    from coffer.store.provenance import view

    seen = view(entry)
    return str(seen.get("updated_by") or seen["origin"])


def table(scan: TeamScan | None, found: Sequence[Entry], query: str) -> str:
    """The team section of the Memory view: nothing where the project has no team tier."""
    if scan is None:
        return ""
    rows = "".join(
        f'<tr><td><a class="team-entry" href="/team?{urlencode({"name": t.name})}">'
        f"{r(t.name)}</a><div class=desc>{r(t.description)}</div></td>"
        f"<td>{r(t.type or '')}</td><td class=by>{r(by(t))}</td>"
        f"<td class=updated>{r(t.updated_at[:10])}</td><td class=freshness>{freshness(t)}</td>"
        "</tr>"
        for t in found
    )
    said = f"{counted(len(found), query)} in {e(scan.dir)}"
    skipped = "".join(f"<li>{r(p.line())}</li>" for p in scan.problems)
    return (
        f'<section id="team"><h2>Team tier</h2><p class=count>{said}</p>'
        "<table><tr><th>entry</th><th>type</th><th>added or changed by</th><th>updated</th>"
        f"<th>freshness</th></tr>{rows}</table>"
        f"{'<ul class=skipped>' + skipped + '</ul>' if skipped else ''}</section>"
    )


def entry(found: Entry, scan: TeamScan, csrf: str) -> str:
    remove = form(
        "/team/remove",
        csrf,
        {"name": found.name},
        "<button class=danger>Remove from the team tier</button>",
        "Remove it from the team tier? (git keeps its history)",
    )
    about = (
        f"<p>team tier · {e(scan.dir / found.filename)} · by {r(by(found))} · updated "
        f"{r(found.updated_at or 'unknown')} · {freshness(found)}</p>"
        f"<p class=desc>{r(found.description)}</p><pre>{r(found.body)}</pre>"
        "<p>The team's text is changed in the repository, reviewed like code: "
        "promote a personal entry with its page's Share button, or remove this one.</p>"
    )
    return layout(redact(found.name), about + remove)
