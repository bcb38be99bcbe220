"""coffer's built-in agent adapters, one module per agent.

Reached only through the ``coffer.adapters`` entry-point group, exactly like a third-party
adapter, so coffer's core never imports them (docs/adr/0003-adapter-contract.md).
"""

from __future__ import annotations

from coffer.adapter.facts import Checked

# What tests/agents/test_every_agent.py proves of each agent it runs (tests/agents/run.sh):
# the projected tiers reach the recorded request, and nothing of coffer's after unproject.
_SUITE = "tests/agents/test_every_agent.py: projected tiers sent, nothing after unproject"


def suite_run(version: str, date: str = "2026-12-01") -> Checked:
    """The real-agent suite's check of ``version`` of an agent."""
    return Checked(version, ("Run",), _SUITE, date)
