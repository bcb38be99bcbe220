"""The projection engine: makes every enabled adapter's targets show the store.

``engine`` dispatches each adapter's targets to its kind in the ``kinds`` table; each kind
has its package: ``symlink`` (a memory directory becomes a link to a tier), ``blocks`` (a
managed block in a file the agent reads, in the ``managed_block`` format), ``team`` (the
committed team block), ``git`` (keeping blocks out of git), with ``journal`` recording every
change so `coffer unproject` puts it back, and ``explain`` saying what each agent loads.

Nothing is imported here: ``fastpath``, the session-start no-op, lives in this package and
must load nothing but itself (docs/adr/0049).
"""
