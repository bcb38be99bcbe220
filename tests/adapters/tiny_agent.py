"""Tiny: a new agent that reads one known file, TINY.md, in the project and in ~/.tiny."""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts
from coffer.adapter.spec import AgentSpec, Place, Render

SPEC = AgentSpec(
    name="tiny",
    config=Place("~/.tiny"),
    executables=("tiny",),
    project=Render(("{root}/TINY.md",)),
    global_=Render(("{config}/TINY.md",)),
    facts=AgentFacts(title="Tiny"),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
