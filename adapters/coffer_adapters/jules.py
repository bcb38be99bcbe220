"""Jules (Google's hosted coding agent): the project tier is the shared block in
``AGENTS.md``, which reaches Jules only when committed; nothing of the user's machine
reaches it, so the global tier is NONE.

Facts, inferred: the AGENTS.md project lists Jules among the agents that read the file, and
Jules' documentation (jules.google/docs, read 2026-12-01) says it clones the repository at
the chosen branch into a cloud VM; the root ``AGENTS.md`` it reads is the one found there.
coffer hides its block from git by default, so Jules sees it only after
``coffer project --git-block commit`` and a push. Jules keeps its own memory of a
repository's preferences (hosted, not reachable from here).
The ``jules`` CLI (Jules Tools) only starts and lists remote sessions; coffer detects Jules
by it. No MCP configuration of this machine reaches Jules, so ``coffer setup`` writes none
(docs/adr/0033).
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, NativeFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render

_DOCS = "jules.google/docs; agents.md (supporting agents)"
_HOSTED = (
    "Jules reads the pushed repository: it sees the block only with "
    "`coffer project --git-block commit`"
)

SPEC = AgentSpec(
    name="jules",
    config=Place("~/.jules"),
    executables=("jules",),
    project=Render(("{root}/AGENTS.md",), note=_HOSTED),
    global_=Nothing("Jules runs in Google's cloud and reads no file of this machine"),
    facts=AgentFacts(
        title="Jules",
        loads=(
            Load("{root}/AGENTS.md", "project", when="as committed and pushed", how="Inferred"),
        ),
        native=NativeFacts(
            where=("{config}",),
            format="hosted memory of a repository's preferences, kept by Jules",
            loaded="at the start of a task in that repository",
            switch="",
            on_by_default=True,
            coffer="out of reach: hosted",
        ),
        checked=(Checked("hosted, 2026-12-01", ("Inferred",), _DOCS, "2026-12-01"),),
        notes=(
            "hosted: only what is pushed reaches it",
            "no MCP configuration of this machine reaches it: coffer setup writes none",
        ),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
