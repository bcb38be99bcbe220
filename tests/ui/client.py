"""A small HTTP client for the ui tests: every header under the test's control (``Host``
and ``Origin`` included), redirects not followed, the cookie kept by hand."""

from __future__ import annotations

import http.client
import re
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

from coffer.store import Store
from coffer.ui.guard import cookie_name
from coffer.ui.server import UIServer


class Reply(NamedTuple):
    status: int
    headers: dict[str, str]
    body: str


def call(server: UIServer, path: str, *, form: dict[str, str] | None = None,
         headers: dict[str, str] | None = None, cookie: bool = True) -> Reply:  # fmt: skip
    sent = {"Host": f"127.0.0.1:{server.port}"}
    if cookie:
        sent["Cookie"] = f"{cookie_name(server.port)}={server.keys.token}"
    body = None
    if form is not None:
        body = urlencode(form)
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    sent |= headers or {}
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("POST" if form is not None else "GET", path, body, sent)
        got = conn.getresponse()
        return Reply(got.status, dict(got.getheaders()), got.read().decode())
    finally:
        conn.close()


def post(server: UIServer, path: str, **fields: str) -> Reply:
    return call(server, path, form={"csrf": server.keys.csrf, **fields})


def updated(reply: Reply) -> list[str]:
    """The files a write's answer says it updated."""
    return re.findall(r"<li>updated ([^<]+)</li>", reply.body)


def conflict_copy(store: Store, repo: Path, name: str = "deploy-conflict-laptop") -> Path:
    """What `coffer sync` leaves when another machine changed ``deploy`` at the same time
    (``name``: sync itself names it ``deploy.conflict-laptop``)."""
    tier = store.project_tier(repo)
    assert tier is not None
    path = tier.dir / f"{name}.md"
    path.write_text(
        f"---\nname: {name}\n"
        "description: 'Conflict copy from laptop: Deploys use make ship.'\n"
        "metadata:\n  type: project\n  conflict_of: deploy.md\n  conflict_from: laptop\n"
        "  conflict_at: '2026-12-01T10:00:00+00:00'\n---\n\nDeploys use make ship.\n"
    )
    return path
