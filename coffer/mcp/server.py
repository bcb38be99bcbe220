"""``coffer mcp``: a stdio MCP server on the official ``mcp`` SDK (the only module importing it).

It lists the tools of :mod:`coffer.mcp.tools` and :mod:`coffer.mcp.vault_tools` with their
annotations, and runs each call in a worker thread, one at a time, so a slow lock never
stalls the protocol. A call never kills the server: bad arguments, refused secrets, missing
entries and unexpected failures all come back as tool errors (``isError``).

The project a call acts on is the client's first ``file://`` root (MCP roots, asked once per
connection and again after ``notifications/roots/list_changed``), else the server's working
directory, which is where agents start their MCP servers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from coffer import __version__
from coffer.mcp import tools as mcp_tools
from coffer.mcp import vault_tools

ROOTS_TIMEOUT = 5.0


def _root_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(parsed.path))
    return path if path.is_absolute() and path.is_dir() else None


class _Roots:
    """The client's roots, fetched lazily and forgotten when the client says they changed."""

    def __init__(self) -> None:
        self.known: list[Path] | None = None

    async def project_dir(self, ctx: ServerRequestContext[Any]) -> Path:
        if self.known is None:
            self.known = await self._fetch(ctx)
        return self.known[0] if self.known else Path(os.getcwd())

    async def _fetch(self, ctx: ServerRequestContext[Any]) -> list[Path]:
        caps = ctx.session.client_capabilities
        if caps is None or caps.roots is None:
            return []
        try:
            # send_request rather than the deprecated list_roots(): the same request,
            # without a deprecation warning on stderr at every call.
            result = await ctx.session.send_request(
                types.ListRootsRequest(),
                types.ListRootsResult,
                request_read_timeout_seconds=ROOTS_TIMEOUT,
            )
        except Exception:
            return []  # a client that cannot answer gets the working directory
        paths = (_root_path(str(root.uri)) for root in result.roots)
        return [p for p in paths if p is not None]


def _tool(spec: mcp_tools.ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def build(state: mcp_tools.State) -> Server[Any]:
    """The server for one process (one stdio connection)."""
    roots = _Roots()
    busy = anyio.Lock()
    tools = [_tool(spec) for spec in state.tools()]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            cwd = await roots.project_dir(ctx)
            async with busy:
                outcome = await anyio.to_thread.run_sync(
                    mcp_tools.call, state, params.name, params.arguments, cwd
                )
        except Exception as exc:  # belt and braces: mcp_tools.call does not raise
            outcome = vault_tools.error("INTERNAL", f"internal error ({type(exc).__name__})")
        payload, text, is_error = mcp_tools.render(outcome)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=payload,
            is_error=is_error,
        )

    async def roots_changed(
        ctx: ServerRequestContext[Any], params: types.NotificationParams
    ) -> None:
        roots.known = None

    server: Server[Any] = Server(
        "coffer",
        version=__version__,
        instructions=mcp_tools.INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, roots_changed
    )
    return server


def _rejection(exc: Exception) -> SessionMessage:
    """The JSON-RPC error answering a line the SDK could not turn into a message.

    JSON-RPC 2.0 §5.1: invalid JSON gets -32700 (parse error), valid JSON that is not a
    request, notification or response gets -32600; the id cannot be known, so it is null.
    """
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if any(e.get("type") == "json_invalid" for e in errors):
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error")
    else:
        error = types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


async def _serve(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        # The SDK's stdio transport hands a line it cannot parse to the server as an
        # exception item, and the server only logs it (mcp 2.3: no server-side hook), so the
        # client waits for an answer forever. Answer such lines here; pass the rest through.
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def answer_bad_lines() -> None:
            async with send:
                async for item in read:
                    if isinstance(item, Exception):
                        await write.send(_rejection(item))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_bad_lines)
            await server.run(receive, write, server.create_initialization_options())


def run(environ: Mapping[str, str]) -> int:
    """Serve MCP on stdin/stdout until the client closes stdin; the exit status."""
    try:
        state = mcp_tools.State.from_environ(environ)
    except vault_tools.StartupError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    anyio.run(_serve, build(state))
    return 0
