"""A command resolves its project once (docs/adr/0026).

Each run is the real console entry in a fresh interpreter, with the resolver
(``coffer.base.identity.root_of``: the walk up to the git root) wrapped to count its
calls before any of coffer is imported. Calls from ``kinds.commits`` are not counted: that
asks which repository holds each rendered target file (``~/.claude/CLAUDE.md`` too), a
question about the file, not about where the command runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo, python_code

_COUNTING = """
import sys
from coffer.base import identity
calls = []
real = identity.root_of
def counted(start):
    if sys._getframe(1).f_code.co_name != "commits":
        calls.append(start)
    return real(start)
identity.root_of = counted
sys.argv = ['coffer', *{argv!r}]
from coffer.main import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print(repr((code, len(calls))), file=sys.stderr)
"""


def resolutions(argv: list[str], cwd: Path) -> tuple[object, int]:
    """(exit code, how many times the project root was resolved) for ``coffer *argv``."""
    out = python_code(_COUNTING.format(argv=argv), cwd)
    result: tuple[object, int] = ast.literal_eval(out.stderr.strip().splitlines()[-1])
    return result


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    assert (
        coffer("remember", "We deploy with make release.", "--name", "deploy", cwd=r).returncode
        == 0
    )
    return r


def test_project_for_an_agent_resolves_the_project_once(repo: Path) -> None:
    # The full path (nothing projected yet, so no stamp): one walk in the fast path's
    # probe, which runs before the CLI is even imported, and one for the whole command
    # (it was eight: engine, session context, stamp and hook output each resolved again).
    assert resolutions(["project", "--for", "claude"], repo) == (0, 2)
    # A changed entry takes the full path again, hook mode included.
    (repo / "notes").mkdir()
    assert coffer("remember", "Tabs, not spaces.", "--name", "tabs", cwd=repo).returncode == 0
    assert resolutions(["project", "--hook", "--for", "claude"], repo) == (0, 2)
    # Nothing changed: the probe alone answers.
    assert resolutions(["project", "--for", "claude"], repo) == (0, 1)


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["remember", "Run make lint before pushing.", "--name", "lint"], 0),
        (["recall", "deploy"], 0),
        (["list"], 0),
        (["where"], 0),
        (["adapter", "list"], 0),  # nothing is projected yet: a note, not an error
    ],
)
def test_commands_resolve_the_project_once(repo: Path, argv: list[str], code: int) -> None:
    # Each used to resolve it two or three times (Store.resolve_root, then project_tier).
    assert resolutions(argv, repo) == (code, 1)


def test_the_composition_root_builds_only_what_is_asked_for(repo: Path) -> None:
    # A store and a resolved place without the engine, the adapters or the vault
    # (coffer.app is lazy: `coffer where` must not pay for the projection).
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from coffer.app import App\n"
        "app = App(os.environ)\n"
        "assert app.here(Path.cwd()).project == Path.cwd()\n"
        "heavy = ('coffer.projection', 'coffer.adapter.registry', 'coffer_adapters',"
        " 'coffer.vault')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
        "app.engine()\n"
        "print('coffer.projection.engine' in sys.modules, app.adapters() is app.adapters())\n"
    )
    out = python_code(code, repo, check=True)
    assert out.stdout.splitlines() == ["[]", "True True"]
