"""``coffer mcp``: coffer's MCP server, a small JSON-RPC loop on stdio (docs/adr/0028).

No MCP SDK: importing it (and pydantic under it) cost about a second at every start, four
times the budget for start + ``initialize``. The protocol surface a tools-only server needs
is small and written out here: ``initialize`` with version negotiation, ``ping``,
``tools/list``, ``tools/call``, the client's notifications, and one request of its own,
``roots/list``. The tests drive this server with the official SDK's stdio client, so the
SDK still decides whether the wire is right.

Calls are handled one at a time, in arrival order. A call never kills the server: bad
arguments, refused secrets, missing entries and unexpected failures all come back as tool
errors (``isError``). The project a call acts on is the client's first ``file://`` root (MCP
roots, asked once per connection and again after ``notifications/roots/list_changed``),
else the server's working directory, which is where agents start their MCP servers.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from coffer import __version__
from coffer.mcp import wire
from coffer.mcp.about import INSTRUCTIONS, StartupError, harness

if TYPE_CHECKING:
    from typing import Any

    from coffer.mcp.tools import State

# The versions reachable through the initialize handshake (mcp 2.3.0's
# HANDSHAKE_PROTOCOL_VERSIONS). 2026-07-28 is negotiated with server/discover instead, which
# this server does not offer: clients then fall back to initialize. Seen on stdin: Claude
# Code 2.1.332 probes server/discover, then initializes at 2025-11-25 (with roots); Codex
# 0.171.0 initializes at 2025-06-18 (tests/mcp/test_real_agents.py).
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ROOTS_TIMEOUT = 5.0


class RequestError(Exception):
    """Answer the request with this JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _params(params: object, method: str) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise RequestError(wire.INVALID_PARAMS, f"{method}: params must be an object")
    return params


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _root_path(uri: object) -> Path | None:
    if not isinstance(uri, str):
        return None
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(parsed.path))
    return path if path.is_absolute() and path.is_dir() else None


def negotiate(requested: str) -> str:
    """The version to speak: the client's when this server knows it, else the latest
    (the lifecycle rule of every MCP revision since 2024-11-05)."""
    return requested if requested in VERSIONS else VERSIONS[-1]


class Session:
    """One stdio connection: the client's capabilities, its roots, and the tool state."""

    def __init__(self, environ: Mapping[str, str], inbox: wire.Inbox, out: wire.Output) -> None:
        self.environ = environ
        self.inbox = inbox
        self.out = out
        self.client_has_roots = False
        self.roots: list[Path] | None = None
        self._state: State | None = None
        self._asked = 0
        self.client = "unknown"  # clientInfo.name: the provenance of what it writes (ADR 0051)

    def serve(self) -> None:
        while (item := self.inbox.next()) is not None:
            self.handle(item)

    def handle(self, item: wire.Item) -> None:
        if item is wire.TOO_LARGE:
            self.out.send(wire.error(None, wire.PARSE_ERROR, "Parse error: message too large"))
        elif item is wire.FAILED:
            self.out.send(wire.error(None, wire.INTERNAL_ERROR, "Reading stdin failed"))
        elif isinstance(item, bytes):
            try:
                message = wire.parse(item)
            except wire.ParseFailure:
                self.out.send(wire.error(None, wire.PARSE_ERROR, "Parse error"))
                return
            self.dispatch(message)

    def dispatch(self, message: object) -> None:
        if isinstance(message, dict) and "method" not in message and "id" in message:
            # A response (even a malformed one) is never answered: a request this server
            # gave up waiting for, or a client's complaint about one of ours.
            return
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or ("id" in message and not _valid_id(message["id"]))
        ):
            self.out.send(wire.error(None, wire.INVALID_REQUEST, "Invalid Request"))
            return
        method = message.get("method")
        if not isinstance(method, str):
            self.out.send(wire.error(None, wire.INVALID_REQUEST, "Invalid Request"))
            return
        if "id" not in message:
            if method == "notifications/roots/list_changed":
                self.roots = None
            return  # initialized, cancelled (calls are short and one at a time), and the rest
        self.out.send(self._answer(message["id"], method, message.get("params")))

    def _answer(self, request_id: object, method: str, params: object) -> dict[str, Any]:
        handler = _METHODS.get(method)
        if handler is None:
            return wire.error(request_id, wire.METHOD_NOT_FOUND, f"Method not found: {method}")
        try:
            return wire.result(request_id, handler(self, _params(params, method)))
        except RequestError as exc:
            return wire.error(request_id, exc.code, exc.message)
        except Exception as exc:  # the server must survive anything a request can provoke
            message = f"Internal error ({type(exc).__name__})"
            return wire.error(request_id, wire.INTERNAL_ERROR, message)

    # ---- methods -------------------------------------------------------------------------

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        capabilities = params.get("capabilities")
        client = params.get("clientInfo")
        if (
            not isinstance(requested, str)
            or not isinstance(capabilities, dict)
            or not isinstance(client, dict)
            or not isinstance(client.get("name"), str)
        ):
            raise RequestError(
                wire.INVALID_PARAMS,
                "initialize needs protocolVersion (a string), capabilities and clientInfo",
            )
        self.client_has_roots = isinstance(capabilities.get("roots"), dict)
        self.roots = None
        name = "".join(c for c in client["name"] if c.isprintable()).strip()[:64]
        self.client = name or "unknown"
        if self._state is not None:
            self._state.store.writer = f"mcp:{self.client}"
        return {
            "protocolVersion": negotiate(requested),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "coffer", "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    def ping(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def list_tools(self, params: dict[str, Any]) -> dict[str, Any]:
        from coffer.mcp.specs import tool_json, tool_specs

        # No pagination: a cursor, if any, is ignored and every tool comes back.
        vault = harness(self.environ) is not None
        return {"tools": [tool_json(spec) for spec in tool_specs(vault)]}

    def call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        arguments = params.get("arguments")
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
            raise RequestError(
                wire.INVALID_PARAMS,
                "tools/call needs name (a string) and arguments (an object)",
            )
        from coffer.mcp import tools, vault_tools

        try:
            outcome = tools.call(self.state(), name, arguments, self.project_dir())
        except Exception as exc:  # belt and braces: tools.call does not raise
            outcome = vault_tools.error("INTERNAL", f"internal error ({type(exc).__name__})")
        payload, text, is_error = tools.render(outcome)
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": payload,
            "isError": is_error,
        }

    # ---- state ---------------------------------------------------------------------------

    def state(self) -> State:
        # Built at the first call: the store and its modules are not needed to start.
        if self._state is None:
            from coffer.mcp.tools import State

            self._state = State.from_environ(self.environ)
            self._state.store.writer = f"mcp:{self.client}"
        return self._state

    def project_dir(self) -> Path:
        if self.roots is None:
            self.roots = self._fetch_roots() if self.client_has_roots else []
        return self.roots[0] if self.roots else Path(os.getcwd())

    def _fetch_roots(self) -> list[Path]:
        """Ask the client for its roots and wait for the answer; the messages that arrive
        meanwhile are handled after it. A client that does not answer in time, or answers
        with an error, gets the working directory."""
        self._asked += 1
        request_id = f"coffer-roots-{self._asked}"
        self.out.send({"jsonrpc": "2.0", "id": request_id, "method": "roots/list"})
        deadline = time.monotonic() + ROOTS_TIMEOUT
        meanwhile: list[wire.Item] = []
        answer: object = None
        while (left := deadline - time.monotonic()) > 0:
            item = self.inbox.next(left)
            if item is None or item is wire.TIMEOUT:
                break
            answer = _response_to(item, request_id)
            if answer is not None:
                break
            meanwhile.append(item)
        self.inbox.put_back(meanwhile)
        roots = answer.get("roots") if isinstance(answer, dict) else None
        if not isinstance(roots, list):
            return []
        paths = (_root_path(root.get("uri")) for root in roots if isinstance(root, dict))
        return [p for p in paths if p is not None]


def _response_to(item: wire.Item, request_id: str) -> dict[str, Any] | None:
    """The ``result`` of ``item`` if it is the answer to ``request_id`` ({} for an error)."""
    if not isinstance(item, bytes):
        return None
    try:
        message = wire.parse(item)
    except wire.ParseFailure:
        return None
    if not isinstance(message, dict) or "method" in message or message.get("id") != request_id:
        return None
    found = message.get("result")
    return found if isinstance(found, dict) else {}


_METHODS: dict[str, Callable[[Session, dict[str, Any]], dict[str, Any]]] = {
    "initialize": Session.initialize,
    "ping": Session.ping,
    "tools/list": Session.list_tools,
    "tools/call": Session.call_tool,
}


def run(environ: Mapping[str, str]) -> int:
    """Serve MCP on stdin/stdout until the client closes stdin; the exit status."""
    try:
        harness(environ)  # a wrong identity stops the server before it reads anything
    except StartupError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    inbox = wire.Inbox(sys.stdin.fileno()).start()
    return wire.guarded(Session(environ, inbox, wire.Output(sys.stdout.buffer)).serve)
