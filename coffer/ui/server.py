"""The HTTP server of ``coffer ui``: stdlib ``ThreadingHTTPServer`` on 127.0.0.1, every
request past :mod:`coffer.ui.guard`, GET reads and POST writes (docs/adr/0056)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import parse_qs, urlencode, urlsplit

from coffer.base.errors import CofferError, InvalidInputError
from coffer.ui import guard, pages, panels, teamview
from coffer.ui.site import PAGE, Site

if TYPE_CHECKING:
    from coffer.app import App

_STATIC = {"/static/ui.css": "text/css", "/static/ui.js": "text/javascript"}
_MAX_FORM = 1 << 20  # an entry is text a person typed; a megabyte is plenty
_HEADERS = {
    # Nothing from another origin, no framing (clickjacking), no address leaked to another
    # site. Not "no-referrer": with it Chromium sends `Origin: null` on the page's own forms.
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


class UIServer(ThreadingHTTPServer):
    """One run of ``coffer ui``: its site, its keys, its port."""

    daemon_threads = True  # an open keep-alive connection never holds up Ctrl-C

    def __init__(self, site: Site, port: int = 0, keys: guard.Keys | None = None) -> None:
        self.site = site
        self.keys = keys or guard.Keys.fresh()
        # Threads so one idle browser connection cannot stall the page; the lock so the
        # core sees one request at a time, as it sees one CLI command (App builds its parts
        # lazily and is not meant to be shared between threads).
        self.one_at_a_time = threading.Lock()
        super().__init__(("127.0.0.1", port), Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.keys.token}"


class Handler(BaseHTTPRequestHandler):
    server: UIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # the terminal shows the address and errors, not every request

    def _send(self, status: int, body: str | bytes, kind: str = "text/html; charset=utf-8",
              extra: dict[str, str] | None = None) -> None:  # fmt: skip
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for key, value in {**_HEADERS, "Content-Type": kind, **(extra or {})}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _admitted(self) -> bool:
        verdict = guard.check(self.server.keys, self.server.port, self.path, self.headers)
        if verdict.status:
            self._send(verdict.status, pages.refused(verdict.status, verdict.why))
            return False
        if verdict.token_in_url:  # the cookie from now on, and an address without the token
            cookie = guard.set_cookie(self.server.keys, self.server.port)
            self._send(303, b"", extra={"Location": urlsplit(self.path).path, "Set-Cookie": cookie})
            return False
        return True

    def do_GET(self) -> None:
        if not self._admitted():
            return
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path in _STATIC:
            data = files("coffer.ui").joinpath("static", url.path.rsplit("/", 1)[1]).read_bytes()
            self._send(200, data, _STATIC[url.path])
            return
        with self.server.one_at_a_time:
            self._answer(lambda: self._read(url.path, query))

    def do_POST(self) -> None:
        if not self._admitted():
            return
        said = (self.headers.get("Content-Length") or "0").strip()
        if not (said.isascii() and said.isdigit()):
            self._refuse_body(400, "Content-Length is not a number of bytes")
            return
        length = int(said)
        if length > _MAX_FORM:
            self._refuse_body(413, "too large")
            return
        raw = parse_qs(self.rfile.read(length).decode("utf-8", "replace"), keep_blank_values=True)
        if not guard.write_allowed(self.server.keys, raw):
            self._send(403, pages.refused(403, "a write without this page's form token"))
            return
        # A browser sends a textarea's line ends as CRLF (HTML's form encoding); the store,
        # like every other writer, gets LF.
        form = {k: v[0].replace("\r\n", "\n").replace("\r", "\n") for k, v in raw.items()}
        path = urlsplit(self.path).path
        with self.server.one_at_a_time:
            self._answer(lambda: self._write(path, form))

    def _refuse_body(self, status: int, why: str) -> None:
        # The body is not read, so the connection cannot carry another request.
        self.close_connection = True
        self._send(status, pages.refused(status, why), extra={"Connection": "close"})

    def _answer(self, make: Callable[[], str | None]) -> None:
        try:
            page = make()
        except CofferError as exc:  # refused by the core (a secret, a bad name): say why
            self._send(400, pages.refused(400, str(exc)))
            return
        if page is None:
            self._send(404, pages.refused(404, "no such page"))
        else:
            self._send(200, page)

    def _read(self, path: str, query: dict[str, str]) -> str | None:
        site, csrf = self.server.site, self.server.keys.csrf
        if path == "/":
            q, number = query.get("q", ""), query.get("page", "1")
            shown = pages.Shown.of(site.entries(q), int(number) if number.isdigit() else 1, PAGE)
            team = teamview.table(site.team(), site.team_entries(q), q)
            return pages.memory(site.project, q, shown, team)
        if path == "/entry":
            scope, name = query.get("scope", "project"), query.get("name", "")
            history = site.history(scope, name)
            try:
                found = site.found(scope, name)
            except CofferError:
                return pages.gone(scope, name, history, csrf)
            said = site.provenance(found)
            return pages.entry(found, history, csrf, said, site.team() is not None)
        if path == "/team":
            shared = site.team_entry(query.get("name", ""))
            return teamview.entry(shared[1], shared[0], csrf) if shared is not None else None
        if path == "/review":
            return panels.review(site.queue(), csrf)
        if path == "/agents":
            return panels.agents(site.agents())
        if path == "/state":
            return panels.state(site.state(), csrf)
        return None

    def _write(self, path: str, form: dict[str, str]) -> str | None:
        site = self.server.site
        scope, name = form.get("scope", "project"), form.get("name", "")
        back = f"/entry?{urlencode({'scope': scope, 'name': name})}"
        if path == "/update":
            updated = site.update(scope, name, form)
            if updated is None:
                return pages.done(f"{name} is unchanged", [], back, ["the form changed nothing"])
            return pages.done(f"saved {name}", updated, back)
        if path == "/forget":
            return pages.done(f"forgot {name}", site.forget(scope, name), back)
        if path == "/restore":
            version = form.get("version")
            if version is not None and not version.isdigit():
                raise InvalidInputError("a version is a number")
            number = int(version) if version else None
            return pages.done(f"restored {name}", site.restore(scope, name, number), back)
        if path == "/resolve":
            item, action = form.get("id", ""), form.get("action", "")
            updated = site.resolve(item, action, form.get("merged"), form.get("description"))
            return pages.done(f"resolved: {form.get('action')}", updated, "/review")
        if path == "/undo":
            report = site.undo(form.get("key", ""))
            changed = list(dict.fromkeys(c.path for c in report.changes))
            said = [c.line() for c in report.changes]
            said += [p.line() for p in report.problems] + list(report.notices)
            # A refusal (a block edited by hand, a link someone replaced) changes nothing
            # and keeps the record: the title must not say it was undone.
            title = "undone" if report.ok else "not undone"
            return pages.done(title, changed, "/state", said)
        if path == "/team/add":
            return pages.done(f"shared {name} with the team", site.team_add(scope, name), back)
        if path == "/team/remove":
            return pages.done(f"removed {name} from the team", site.team_remove(name), "/#team")
        return None


def serve(app: App, project: Path, port: int = 0, open_browser: bool = True,
          out: TextIO = sys.stdout) -> None:  # fmt: skip
    """Run the page until Ctrl-C (which goes up as KeyboardInterrupt: exit 130)."""
    server = UIServer(Site(app, project), port)
    with server:
        print(f"coffer ui: {server.url}", file=out, flush=True)
        print("stop it with Ctrl-C", file=out, flush=True)
        if open_browser:
            import webbrowser

            webbrowser.open(server.url)
        server.serve_forever()
