"""The team block: a project's committed ``.coffer/memory/`` rendered into the files its
agents read (docs/adr/0036). ``block`` renders it; ``kind`` is its journal kind, what
`coffer unproject` does with a ``team`` record.
"""
