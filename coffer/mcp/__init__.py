"""`coffer mcp` and `ecc-memory-mcp`: the MCP servers and their tools, on a JSON-RPC loop of
their own (no `mcp` SDK, docs/adr/0028)."""
