"""coffer's built-in agent adapters, one module per agent.

Reached only through the ``coffer.adapters`` entry-point group, exactly like a third-party
adapter, so coffer's core never imports them (docs/adr/0003-adapter-contract.md).
"""

from __future__ import annotations
