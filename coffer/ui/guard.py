"""Who may talk to the page: the per-run token, the ``Host`` and ``Origin`` checks and the
CSRF token of every write (docs/adr/0056). Pure functions over the request's headers, so
the rules are tested without a socket."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from http.cookies import CookieError, SimpleCookie
from typing import NamedTuple, Protocol
from urllib.parse import parse_qs, urlsplit


class Headers(Protocol):
    """What is read of a request's headers (a mapping, or http.server's message)."""

    def get(self, name: str, /) -> str | None: ...


class Keys(NamedTuple):
    """The secrets of one run: the token that opens the page and the one that signs writes."""

    token: str
    csrf: str

    @classmethod
    def fresh(cls) -> Keys:
        return cls(secrets.token_urlsafe(24), secrets.token_urlsafe(24))


class Verdict(NamedTuple):
    """What to do with a request: serve it (``status`` 0), or refuse it with ``status``."""

    status: int = 0
    why: str = ""
    token_in_url: bool = False  # answer with the cookie and a redirect that drops it


def _first(values: Mapping[str, list[str]], key: str) -> str | None:
    found = values.get(key)
    return found[0] if found else None


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def hosts(port: int) -> frozenset[str]:
    """The only ``Host`` values served: a DNS-rebinding page names its own host."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def cookie_name(port: int) -> str:
    """The cookie of the run on ``port``. A browser keeps one cookie per name and host,
    whatever the port (RFC 6265 §8.5): under one name, opening a second run would replace
    the first run's cookie and lock it out."""
    return f"coffer_ui_{port}"


def _cookie(header: str | None, port: int) -> str | None:
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return None
    morsel = jar.get(cookie_name(port))
    return morsel.value if morsel is not None else None


def check(keys: Keys, port: int, target: str, headers: Headers) -> Verdict:
    """The verdict on a request for ``target`` (path and query) with ``headers``."""
    if headers.get("Host") not in hosts(port):
        return Verdict(421, "this page answers only to 127.0.0.1 or localhost")
    origin = headers.get("Origin")
    if origin is not None and origin not in {f"http://{h}" for h in hosts(port)}:
        return Verdict(403, "a request from another origin")
    if _same(_cookie(headers.get("Cookie"), port), keys.token):
        return Verdict()
    query = parse_qs(urlsplit(target).query)
    if _same(_first(query, "token"), keys.token):
        return Verdict(token_in_url=True)
    return Verdict(403, "open the address `coffer ui` printed (it carries this run's token)")


def write_allowed(keys: Keys, form: Mapping[str, list[str]]) -> bool:
    """A write carries the run's CSRF token in its form (another site cannot read it)."""
    return _same(_first(form, "csrf"), keys.csrf)


def set_cookie(keys: Keys, port: int) -> str:
    return f"{cookie_name(port)}={keys.token}; HttpOnly; SameSite=Strict; Path=/"
