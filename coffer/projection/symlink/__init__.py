"""SYMLINK, one projection kind: an agent's memory directory becomes a link to a tier
directory (docs/adr/0016).

``link`` plans and makes the link; ``merge`` first brings what the directory held into the
tier; ``swap`` exchanges directory and link and recovers a killed swap; ``backups`` keeps what
the directory was, modes included; ``state`` is what `coffer adapter list` reads, and imports
none of the others, so the audit stays cheap.
"""
