"""``coffer ui``: a local web page to see and tend the memory (docs/adr/0056, docs/ui.md).

A front end beside the CLI, the watcher and the MCP server: it reads and writes through the
same core objects (:class:`coffer.app.App`'s store and writer, the review resolver, the
explain facts, the journal). Only ``coffer ui`` imports it.
"""
