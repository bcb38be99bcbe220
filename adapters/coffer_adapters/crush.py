"""Crush: the project tier is the shared block in ``AGENTS.md``; Crush loads no global
instruction file by default, so the global tier is NONE.

Facts, from Crush's source (charmbracelet/crush ``internal/config/config.go``, read
2026-12-01): every existing file of ``defaultContextPaths`` in the working directory is
loaded, with ``options.context_paths`` from crush.json added: ``.github/copilot-
instructions.md``, ``.cursorrules``, ``.cursor/rules/``, ``CLAUDE.md``, ``CLAUDE.local.md``,
``GEMINI.md``, ``CRUSH.md`` (and case variants), ``AGENTS.md`` (and case variants); none
hides another. ``crush init`` writes ``AGENTS.md``. Its npm package downloads the binary
in an install script, so it was not run.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.templates import BySystem
from coffer.adapter.wiring import McpServer, Wire

_CODE = "charmbracelet/crush internal/config/config.go defaultContextPaths (main at 003f5dbf)"
_NAMES = (
    ".github/copilot-instructions.md", ".cursorrules", ".cursor/rules/", "CLAUDE.md",
    "CLAUDE.local.md", "GEMINI.md", "CRUSH.md", "CRUSH.local.md", "AGENTS.md",
)  # fmt: skip

SPEC = AgentSpec(
    name="crush",
    # globalConfig (internal/config/load.go): $XDG_CONFIG_HOME/crush on every system when it
    # is set; else %LOCALAPPDATA%\crush on Windows (%USERPROFILE%\AppData\Local without
    # it) and ~/.config/crush elsewhere
    config=Place(
        BySystem(
            "$XDG_CONFIG_HOME/crush", win32=("${XDG_CONFIG_HOME}/crush", "$LOCALAPPDATA/crush")
        )
    ),
    executables=("crush",),
    project=Render(("{root}/AGENTS.md",), note="Crush reads the directory it starts in"),
    global_=Nothing(
        "Crush loads no global file unless options.context_paths in crush.json names one"
    ),
    setup=Wire(mcp=McpServer("{config}/crush.json", "json", ("mcp",), extra={"type": "stdio"})),
    facts=AgentFacts(
        title="Crush",
        loads=tuple(Load(f"{{cwd}}/{n}", "project", "cwd", how="Code") for n in _NAMES),
        mcp=McpFacts("{config}/crush.json", "json", ("mcp",), "also .crush.json / crush.json"),
        checked=(Checked("main at 003f5dbf", ("Code",), _CODE, "2026-12-01"),),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
