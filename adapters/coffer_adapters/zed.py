"""Zed (its own agent): the project tier is a block in the one rules file Zed reads per
worktree; Zed's global rules live in its Rules Library, not a file, so the global tier is NONE.

Facts, from Zed's source (zed-industries/zed ``RULES_FILE_NAMES``, crates/agent, read
2026-12-01): the first file that exists of ``.rules``, ``.cursorrules``, ``.windsurfrules``,
``.clinerules``, ``.github/copilot-instructions.md``, ``AGENT.md``, ``AGENTS.md`` (then
``CLAUDE.md``, ``GEMINI.md``) at the worktree root is included whole, nothing else; releases
differ on whether ``CLAUDE.md`` comes before ``AGENT.md``. coffer renders into the file Zed
already reads, else the shared ``AGENTS.md``.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.templates import BySystem
from coffer.adapter.wiring import McpServer, Wire

_CODE = "zed-industries/zed crates/agent RULES_FILE_NAMES (main, two orders seen)"
_FIRST = (".rules", ".cursorrules", ".windsurfrules", ".clinerules",
          ".github/copilot-instructions.md", "AGENT.md", "AGENTS.md")  # fmt: skip

SPEC = AgentSpec(
    name="zed",
    # paths::config_dir (crates/paths/src/paths.rs): dirs::config_dir()/zed on Linux (the
    # XDG rule; FLATPAK_XDG_CONFIG_HOME in a Flatpak, not followed), ~/.config/zed on macOS
    # whatever XDG_CONFIG_HOME says, and the roaming AppData folder's Zed on Windows
    config=Place(BySystem("$XDG_CONFIG_HOME/zed", darwin="~/.config/zed", win32="$APPDATA/Zed")),
    executables=("zed", "zeditor"),
    project=Render(
        tuple(f"{{root}}/{n}" for n in _FIRST),
        create="{root}/AGENTS.md",
        displaces=("CLAUDE.md", "GEMINI.md"),
    ),
    global_=Nothing("Zed keeps default rules in its Rules Library, not in a file"),
    setup=Wire(mcp=McpServer("{config}/settings.json", "jsonc", ("context_servers",))),
    facts=AgentFacts(
        title="Zed",
        loads=tuple(
            Load(f"{{root}}/{n}", "project", shadowed_by=_FIRST[:i], how="Code")
            for i, n in enumerate((*_FIRST, "CLAUDE.md", "GEMINI.md"))
        ),
        checked=(Checked("main, read 2026-12-01", ("Code",), _CODE, "2026-12-01"),),
        notes=("only the first rules file of a worktree is read; it hides all the others",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
