"""Aider: loads no instruction file by itself, so coffer writes nothing for it (NONE).

Facts, as observed with Aider (``aider-chat``) 0.86.2: with every candidate file planted
(AGENTS.md, CLAUDE.md, CONVENTIONS.md, …) none reached the request. A file reaches Aider only
through ``--read FILE`` or ``read: [FILE]`` in ``.aider.conf.yml`` (home, git root, start
directory; a later file replaces an earlier one's ``read:``, lists are not merged). To give
Aider the project memory, add ``read: AGENTS.md`` to the repository's ``.aider.conf.yml``:
the block the other agents share is then in every Aider session. Aider has no memory, MCP or
hooks.
"""

from __future__ import annotations

from coffer.adapter.facts import AgentFacts, Checked, Load
from coffer.adapter.spec import AgentSpec, Nothing, Place
from coffer_adapters import suite_run

_RUN = "capture run of aider-chat (PyPI): one offline request to a local recording server"

SPEC = AgentSpec(
    name="aider",
    config=Place("~/.aider"),
    executables=("aider",),
    installed=("~/.aider.conf.yml",),
    project=Nothing(
        "Aider loads no file by itself: add `read: AGENTS.md` to this file to give it the "
        "block the other agents share",
        path="{root}/.aider.conf.yml",
    ),
    global_=Nothing(
        "Aider has no global instruction file; a `read:` here is replaced by a project's",
        path="~/.aider.conf.yml",
    ),
    facts=AgentFacts(
        title="Aider",
        loads=(
            Load(
                "{cwd}/<read: in .aider.conf.yml>",
                "project",
                "cwd",
                when="only files named by --read or read: in .aider.conf.yml",
            ),
        ),
        checked=(
            Checked("0.86.2", ("Run", "Code"), _RUN, "2026-11"),
            suite_run("0.86.2"),
        ),
        notes=("a repository's .aider.conf.yml read: replaces the home one's",),
    ),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
