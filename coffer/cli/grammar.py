"""The options of the commands that also run before typer loads, each declared once.

typer declares every command (coffer.cli.typer_app); the commands people and agents run
most also have a typer-free quick path (coffer.cli.quick), because importing typer costs
about four times a bare ``python -c pass`` (docs/adr/0050). Both read the options below:
coffer.cli._common builds typer's ``Option`` from each, and the quick path parses with
them. A quick command's runner names the options it takes by its parameters (a parameter
named here is that option; any other is a positional argument, in order), so a command's
options are listed once more only in its typer signature, which tests/cli/test_quick.py
holds to the runner's.

Standard library only: this is read on the quick path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from coffer.base.errors import InvalidInputError
from coffer.store.entry import TYPES, check_name
from coffer.store.tier import SCOPES
from coffer.store.watch_state import EXIT_NOT_RUNNING

GIT_BLOCK = ("hide", "commit")
SCOPE_METAVAR = "[" + "|".join(SCOPES) + "]"
# What converts to an int without a doubt: no sign, no leading zero, no digits beyond ASCII.
_WHOLE_NUMBER = re.compile(r"[1-9][0-9]{0,17}", re.ASCII)


class Option(NamedTuple):
    """One option: its names (``--resume/--no-resume`` for a flag with an off switch),
    its help, and for one taking a value its placeholder, type and accepted values."""

    names: tuple[str, ...]
    help: str
    metavar: str | None = None  # None: a flag
    convert: Callable[[str], object] = str
    choices: tuple[str, ...] = ()  # anything else is a usage error (exit 2)
    minimum: int | None = None  # a whole number at least this
    default: object = None
    # A core validator (raises InvalidInputError): typer's callback, and the quick path's
    # doubt (a refused value goes to typer, which says why as a usage error).
    check: Callable[[str], str] | None = None
    multiple: bool = False  # may be given again; the runner takes the list of values

    @property
    def flag(self) -> bool:
        return self.metavar is None

    def words(self) -> dict[str, object]:
        """Each word that sets this option, and the value it sets (flags only)."""
        on, _, off = self.names[0].partition("/")
        found: dict[str, object] = {on: True, **dict.fromkeys(self.names[1:], True)}
        if off:
            found[off] = False
        return found

    def accepts(self, value: str) -> bool:
        """Whether typer takes ``value`` without a doubt (else typer decides, and says)."""
        if not value or value.startswith("-"):
            return False
        if self.choices:
            return value in self.choices
        if self.minimum is not None:
            return _WHOLE_NUMBER.fullmatch(value) is not None and int(value) >= self.minimum
        if self.check is not None:
            try:
                self.check(value)
            except InvalidInputError:
                return False
        return True


_SCOPE_HELP = "Only this tier (default: both)."
_FOR_HELP = (
    "Session-start hook mode: also print, as AGENT reads hook output, the session's id (the "
    "session_id of the hook's JSON input, with --hook), the vault handoffs waiting for it "
    "and any memory this run put in place after AGENT had loaded its files."
)
_HOOK_HELP = (
    "Run as an agent's session-start hook: implies --quiet; a known problem is told once (as "
    "a hook message) and exits 0; stops after $COFFER_HOOK_TIMEOUT s."
)
_GIT_BLOCK_HELP = (
    "Whether git sees this project's block: hide (the default) keeps it out of `git status` "
    "and commits; commit lets teammates and cloud agents read it."
)
_REBUILD_HELP = "Rebuild projects.json from projects/*/project.json (keeps the old file)."
_SESSION_HELP = "The agent session this fact comes from (its session-start hook names it)."
_ANCHOR_HELP = "A file in the repository the entry is about (repeatable); quoted paths count too."
_REVIEW_HELP = "When to look at the entry again: a date (2027-03-01) or an age (90d, 6m)."
_STATUS_HELP = (
    "Say whether the daemon runs, since when, what it did and whether it is installed as a "
    f"service; exit 0 if it runs, {EXIT_NOT_RUNNING} if not."
)

# By the parameter name a runner takes it as.
OPTIONS: dict[str, Option] = {
    "project": Option(
        ("--project",), "Act on the project containing PATH instead of the cwd.", "PATH", Path
    ),
    "as_json": Option(("--json",), "Print JSON instead of text.", default=False),
    "scope_value": Option(("--scope",), _SCOPE_HELP, SCOPE_METAVAR, choices=SCOPES),
    "limit": Option(("--limit",), "At most this many results.", "N", int, minimum=1, default=10),
    "every": Option(("--all",), "Also list agents neither installed nor enabled.", default=False),
    "status": Option(("--status",), _STATUS_HELP, default=False),
    "quiet": Option(("--quiet", "-q"), "Print nothing but problems.", default=False),
    "dry_run": Option(("--dry-run",), "Show the changes as a diff; write nothing.", default=False),
    "replace_edited": Option(
        ("--replace-edited",), "Regenerate blocks edited by hand (backed up first).", default=False
    ),
    "resume": Option(
        ("--resume/--no-resume",), "Project again after `coffer unproject`.", default=False
    ),
    "for_agent": Option(("--for",), _FOR_HELP, "AGENT"),
    "hook": Option(("--hook",), _HOOK_HELP, default=False),
    "git_block": Option(("--git-block",), _GIT_BLOCK_HELP, "[hide|commit]", choices=GIT_BLOCK),
    # explain
    "agent": Option(("--agent",), "Only this agent.", "NAME"),
    # doctor
    "every_project": Option(("--all",), "Check every project.", default=False),
    "rebuild_projects": Option(
        # --rebuild-registry: the name before 0.2, kept so scripts keep working
        ("--rebuild-projects", "--rebuild-registry"),
        _REBUILD_HELP,
        default=False,
    ),
    # remember (and the other commands that write an entry, through typer)
    "entry_name": Option(("--name",), "Entry name (kebab-case).", "NAME", check=check_name),
    "description": Option(("--description",), "One-line description.", "DESCRIPTION"),
    "entry_type": Option(("--type",), f"Entry type: {', '.join(TYPES)}.", "TYPE", choices=TYPES),
    "write_scope": Option(
        ("--scope",), "The tier to change.", SCOPE_METAVAR, choices=SCOPES, default="project"
    ),
    "replace": Option(
        ("--replace/--no-replace",),
        "Overwrite an existing entry with the same --name.",
        default=False,
    ),
    "origin_session_id": Option(("--origin-session-id",), _SESSION_HELP, "ID"),
    "anchors": Option(("--anchor",), _ANCHOR_HELP, "PATH[#SYMBOL]", multiple=True),
    "review_after": Option(("--review-after",), _REVIEW_HELP, "DATE|AGE"),
}
