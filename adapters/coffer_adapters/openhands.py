"""OpenHands (CLI, local GUI and OpenHands Cloud): the project tier is the shared block in
``AGENTS.md``; OpenHands has no user-level instruction file, so the global tier is NONE.

Facts, from OpenHands' documentation (docs.openhands.dev "Skills overview" and
"Organization and user skills", read 2026-12-01; no client was run): the root ``AGENTS.md``
is always-on context, injected into the system prompt at conversation start; ``CLAUDE.md``
and ``GEMINI.md`` are read as model-specific variants; legacy skills without triggers in
``.openhands/microagents/`` (``repo.md``) or ``.agents/skills/`` load in full, the others on
demand. User skills in ``~/.agents/skills/`` are read by the CLI and headless modes only
(not a docker run), and that folder is shared with every Agent Skills client, so coffer
does not write there. OpenHands Cloud reads the repository as pushed: it sees the block
only with ``coffer project --git-block commit``.
"""

from __future__ import annotations

from coffer.agent_facts import AgentFacts, Checked, Load
from coffer.agent_spec import AgentSpec, Nothing, Place, Render

_DOCS = "docs.openhands.dev/overview/skills, /overview/skills/org"

SPEC = AgentSpec(
    name="openhands",
    config=Place("~/.openhands"),
    executables=("openhands",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="OpenHands Cloud sees the block only with `coffer project --git-block commit`",
    ),
    global_=Nothing(
        "OpenHands reads user skills (~/.agents/skills, CLI only), not an instruction file"
    ),
    facts=AgentFacts(
        title="OpenHands",
        loads=(
            Load("{root}/AGENTS.md", "project", how="Docs"),
            Load("{root}/CLAUDE.md", "project", when="Claude models", how="Docs"),
            Load("{root}/GEMINI.md", "project", when="Gemini models", how="Docs"),
            Load("{root}/.openhands/microagents/*.md", "project", when="no triggers", how="Docs"),
            Load("{root}/.agents/skills/*", "project", when="on demand or triggers", how="Docs"),
            Load("~/.agents/skills/*", "global", when="CLI and headless", how="Docs"),
        ),
        checked=(Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),),
        notes=("OpenHands Cloud: only what is pushed reaches it",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
