"""``coffer sync``: the store's entries travel between machines through a git repository
the user names (docs/adr/0034). System git does the transport; coffer decides every merge
itself, one entry file at a time, so no entry ever holds conflict markers."""
