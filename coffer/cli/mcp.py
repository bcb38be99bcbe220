"""``coffer mcp``: serve coffer's memory tools over MCP on stdio (for agents, not people)."""

from __future__ import annotations

import os

import typer

from coffer.cli.typer_app import app


@app.command()
def mcp() -> None:
    """Run the MCP server on stdin/stdout (agents start it; `coffer setup` registers it).

    ECC_MEMORY_HARNESS names the agent for the vault tools; ECC_MEMORY_ALLOW_USER_SCOPE=1
    allows the vault's user scope.
    """
    # `coffer mcp` alone never gets here (coffer.main starts the server without typer);
    # this is the same server for a run through typer's own entry (`coffer mcp --`).
    from coffer.mcp import server

    raise typer.Exit(server.run(os.environ))
