"""Firebase Studio (Google's hosted workspace): the project tier is a block in
``.idx/airules.md``, the rules file Gemini in Firebase reads, which reaches Firebase Studio
only when committed; the global tier is NONE.

Facts, from Firebase's documentation (firebase.google.com/docs/studio/set-up-gemini
"Customize instructions" and "Exclude files", read 2026-12-01; hosted, not run): Gemini in
Firebase, in a workspace's chat and inline help, follows the rules in ``.idx/airules.md``
(templates generate one) and skips files named by ``.aiexclude``; the Gemini CLI in the
workspace's terminal reads ``GEMINI.md`` as Gemini CLI does. A workspace is a cloud VM
built from the repository, so the block reaches it only after
``coffer project --git-block commit`` and a push; nothing on this machine is detected, so
the adapter is off until ``coffer adapter enable firebase-studio``. MCP servers:
``.idx/mcp.json``.

Not wired by ``coffer setup`` (docs/adr/0033): the only MCP file is the workspace's
``.idx/mcp.json``, part of the repository and run in Google's VM, where a ``coffer`` of this
machine is not; there is no user-level file.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render

_DOCS = "firebase.google.com/docs/studio/set-up-gemini"
_HOSTED = (
    "Firebase Studio builds its workspace from the pushed repository: it sees the block only with "
    "`coffer project --git-block commit`"
)

SPEC = AgentSpec(
    name="firebase-studio",
    config=Place("~/.idx"),
    project=Render(("{root}/.idx/airules.md",), note=_HOSTED),
    global_=Nothing("Firebase Studio runs in Google's cloud and reads no file of this machine"),
    facts=AgentFacts(
        title="Firebase Studio",
        loads=(
            Load("{root}/.idx/airules.md", "project", when="as committed and pushed", how="Docs"),
            Load("{root}/GEMINI.md", "project", when="Gemini CLI in its terminal", how="Inferred"),
        ),
        mcp=McpFacts(
            "{root}/.idx/mcp.json",
            "json",
            ("mcpServers",),
            "the workspace's, in the repository and run in the cloud VM: coffer writes none",
        ),
        checked=(Checked("hosted, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),),
        notes=("hosted: only what is pushed reaches it", ".aiexclude hides files from Gemini"),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
