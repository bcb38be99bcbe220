"""Amazon Q Developer (CLI and IDE plugins): the project tier is the shared block in
``AGENTS.md``, which the CLI's default agent loads; the global tier is NONE, because Q loads
user-level context only through an agent's ``resources``.

Facts, from Amazon Q Developer CLI's source (aws/amazon-q-developer-cli ``paths`` module:
``DEFAULT_AGENT_RESOURCES`` and ``RULES_PATTERN``) and AWS's documentation ("Context
management", docs.aws.amazon.com/amazonq, read 2026-12-01): the default agent's resources
are ``AmazonQ.md``, ``AGENTS.md``, ``README.md`` and ``.amazonq/rules/**/*.md`` of the
working directory; a custom agent (``~/.aws/amazonq/cli-agents/*.json`` or the project's
``.amazonq/cli-agents/``) lists its own, and its ``agentSpawn`` hooks add their output to
the context. The IDE plugins load ``.amazonq/rules/**/*.md``. The Q CLI is now Kiro CLI
(the ``kiro`` adapter). MCP: ``~/.aws/amazonq/mcp.json`` and ``.amazonq/mcp.json``.
Detection: ``~/.aws/amazonq``, ``qchat`` or the VS Code extension (``q`` alone names other
tools too).

Setup (docs/adr/0033): the built-in default agent sets ``useLegacyMcpJson: true``, so it
starts the servers of ``~/.aws/amazonq/mcp.json`` (``mcpServers``, keyed by name;
aws/amazon-q-developer-cli ``docs/default-agent-behavior.md``); coffer's server goes there.
No hook: ``agentSpawn`` hooks belong to an agent file, the built-in default agent has none,
and a ``q_cli_default.json`` would replace that agent whole (its resources and tools).
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, HookFacts, Load, McpFacts
from coffer.adapter.spec import AgentSpec, Nothing, Place, Render
from coffer.adapter.wiring import McpServer, Wire

_CODE = "aws/amazon-q-developer-cli paths::workspace DEFAULT_AGENT_RESOURCES, RULES_PATTERN"
_DOCS = "docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/command-line-context.html"
_MCP = "aws/amazon-q-developer-cli docs/default-agent-behavior.md (useLegacyMcpJson)"

SPEC = AgentSpec(
    name="amazonq",
    config=Place("~/.aws/amazonq"),
    executables=("qchat",),  # not `q`: another common tool has that name
    installed=("~/.vscode/extensions/amazonwebservices.amazon-q-vscode-*",),
    project=Render(("{root}/AGENTS.md",), note="loaded by the CLI's default agent"),
    global_=Nothing(
        "Amazon Q loads user-level context only as an agent's resources "
        "(~/.aws/amazonq/cli-agents/*.json), not from a file of its own"
    ),
    setup=Wire(
        mcp=McpServer("{config}/mcp.json", "json", ("mcpServers",)),
        no_hook="no session-start hook: Amazon Q runs agentSpawn hooks only from an agent "
        "file, and its built-in default agent has none",
    ),
    facts=AgentFacts(
        title="Amazon Q Developer",
        loads=(
            Load("{cwd}/AmazonQ.md", "project", "cwd", when="default agent", how="Code"),
            Load("{cwd}/AGENTS.md", "project", "cwd", when="default agent", how="Code"),
            Load("{cwd}/README.md", "project", "cwd", when="default agent", how="Code"),
            Load("{cwd}/.amazonq/rules/**/*.md", "project", "cwd", how="Code"),
        ),
        mcp=McpFacts(
            "{config}/mcp.json",
            "json",
            ("mcpServers",),
            "read by the built-in default agent (useLegacyMcpJson); also .amazonq/mcp.json",
        ),
        hook=HookFacts(
            "{config}/cli-agents/*.json", "agentSpawn", True, "per agent; output joins context"
        ),
        checked=(
            Checked("main (paths module)", ("Code",), _CODE, "2026-12-01"),
            Checked("documentation, 2026-12-01", ("Docs",), _DOCS, "2026-12-01"),
            Checked("main (default agent, MCP)", ("Code",), _MCP, "2026-12-01"),
        ),
        notes=("only the start directory's files load: a session in a subdirectory misses them",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
wiring = SPEC.wiring
