"""RENDER, one projection kind: a managed block of coffer's memory inside a file an agent
reads (docs/adr/0015). The block's bytes themselves are :mod:`coffer.projection.managed_block`,
shared with git's clean filter and the team block.

``content`` is what a tier's block says; ``render`` writes it, atomically and journaled;
``removal`` takes it out again on undo; ``waiting`` holds the blocks of tiers that have
nothing to show yet (docs/adr/0045); ``imports`` follows a file's ``@path`` imports as the
agent does (docs/adr/0046).
"""
