"""Goose: the project tier is the shared block in ``AGENTS.md``, the global tier a block in
``~/.config/goose/.goosehints``.

Facts, from Goose's source (block/goose ``crates/goose/src/hints/load_hints.rs`` and
``get_context_filenames``, read 2026-12-01): the context file names are
``CONTEXT_FILE_NAMES`` from the config, default ``[".goosehints", "AGENTS.md"]``; for each
name the global copy in Goose's config directory loads first, then every copy from the git
root down to the start directory (only the start directory outside git), with ``@file``
imports inside the git root. ``GOOSE_PATH_ROOT`` moves the config directory under
``<root>/config`` (not followed by coffer). No memory of its own is loaded at start.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Place, Render
from coffer.adapter.templates import BySystem
from coffer.adapter.wiring import McpServer, Wire

_CODE = "block/goose crates/goose/src/hints/load_hints.rs (main at 0086ae65)"

SPEC = AgentSpec(
    name="goose",
    # etcetera's choose_app_strategy (crates/goose/src/config/paths.rs): the XDG rule on
    # Linux and macOS, %APPDATA%\Block\goose\config on Windows (Goose's documentation,
    # guides/config-files: "Windows: %APPDATA%\Block\goose\config\config.yaml")
    config=Place(BySystem("$XDG_CONFIG_HOME/goose", win32="$APPDATA/Block/goose/config")),
    executables=("goose",),
    project=Render(
        ("{root}/AGENTS.md",),
        note="Goose releases before AGENTS.md joined its default names read only .goosehints",
    ),
    global_=Render(("{config}/.goosehints",)),
    setup=Wire(
        mcp=McpServer(
            "{config}/config.yaml",
            "yaml",
            ("extensions",),
            command_key="cmd",
            env_key="envs",
            extra={
                "name": "coffer",
                "type": "stdio",
                "enabled": True,
                "timeout": 300,
                "description": "coffer: the memory every agent on this machine shares",
            },
        ),
        no_hook="no session-start hook: Goose has none",
    ),
    facts=AgentFacts(
        title="Goose",
        loads=(
            Load("{config}/.goosehints", "global", how="Code"),
            Load("{config}/AGENTS.md", "global", how="Code"),
            Load("{cwd}/.goosehints", "project", "root-down-to-cwd", how="Code"),
            Load("{cwd}/AGENTS.md", "project", "root-down-to-cwd", how="Code"),
        ),
        mcp=McpFacts(
            "{config}/config.yaml", "yaml", ("extensions",), "MCP servers are Goose extensions"
        ),
        checked=(Checked("main at 0086ae65", ("Code",), _CODE, "2026-12-01"),),
        notes=("CONTEXT_FILE_NAMES in config.yaml or the environment replaces both names",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
