"""`coffer mcp`: the MCP server and its tools (the only package importing the `mcp` SDK)."""

from __future__ import annotations
