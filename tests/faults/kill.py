"""Kill-point sweeps: run a coffer command in a sandbox, killed before its Nth change.

A sandbox is a fresh fake home with Claude (an existing auto-memory directory with entries,
``MEMORY.md`` and a hand-written file), Codex (its own memory on, a hooks file) and a
repository with a hand-written ``AGENTS.md``. ``COFFER_KILL_AT=N`` (coffer/base/faults.py) kills
the command with SIGKILL just before its Nth file-system change; ``COFFER_FAULTS_LOG`` lists
those changes, so a sweep knows every kill point a command has.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coffer.base import faults
from coffer.store import Store
from tests.helpers import make_repo
from tests.setup.test_setup_undo import CLAUDE_JSON, CODEX_HOOKS, SETTINGS_JSON

CODEX_CONFIG = b"""# Codex settings (hand written)
model = "o4-mini"   # fast

[features]
memories = true     # on for now
"""
AGENTS_MD = b"# Team rules\r\n\r\nRun the tests before pushing.\r\n"
CLAUDE_FILES = {
    "deploy-notes.md": b"---\nname: deploy-notes\ndescription: how we deploy\ntype: project\n"
    b"---\n\nWe deploy with make release.\n",
    "scratch.md": b"plain notes with no frontmatter\n",
    "MEMORY.md": b"# Memory\n\n- [deploy-notes](deploy-notes.md) - how we deploy\n"
    b"- remember to rotate the staging keys\n",
}
SWAP_SIBLINGS = (".coffer-new", ".coffer-old", ".coffer-restore", ".coffer-link")
_XDG = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")

Files = dict[str, bytes | None]


@dataclass
class Sandbox:
    root: Path
    env: dict[str, str]

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def memory(self) -> Path:
        from coffer_adapters.claude_code import slug

        return self.home / ".claude" / "projects" / slug(str(self.repo)) / "memory"

    def tracked(self) -> Files:
        """Every file outside the store and Claude's memory directory, by a name (and with
        contents) that do not depend on where the sandbox is. coffer's in-flight temporary
        files are left out here; :func:`temp_files` checks they are gone after the next run."""
        out: Files = {}
        for top in (self.home, self.repo):
            for dirpath, dirnames, filenames in os.walk(top):
                here = Path(dirpath)
                dirnames[:] = [
                    d for d in dirnames if d != ".git" and not d.startswith(self.memory.name)
                ]
                for name in filenames:
                    if name.startswith(".coffer-tmp-"):
                        continue
                    p = here / name
                    rel = str(p.relative_to(self.root))
                    data = (
                        p.read_bytes()
                        if not p.is_symlink()
                        else b"-> " + os.fsencode(os.readlink(p))
                    )
                    out[rel] = data.replace(os.fsencode(self.root), b"<root>")
        return out

    def run(
        self, *args: str, kill_at: int = 0, log: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = dict(self.env)
        if kill_at:
            env["COFFER_KILL_AT"] = str(kill_at)
        if log is not None:
            env["COFFER_FAULTS_LOG"] = str(log)
        return subprocess.run(
            [sys.executable, "-m", "coffer", *args],
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )

    def ok(self, *args: str) -> None:
        r = self.run(*args)
        assert r.returncode == 0, (args, r.stdout, r.stderr)


def build(root: Path, *, no_exchange: bool = False) -> Sandbox:
    home = root / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COFFER_", "XDG_", "CLAUDE_", "CODEX_", "GEMINI_"))
    }
    # Agents at their default places (so setup's ~/.claude.json is where Claude reads it).
    env.update(HOME=str(home), COFFER_HOME=str(root / "coffer-home"), PATH=str(root / "bin"))
    env.update({v: str(root / v.lower()) for v in _XDG})
    if no_exchange:
        env["COFFER_FAULTS_NO_EXCHANGE"] = "1"
    sb = Sandbox(root, env)
    (root / "bin").mkdir(parents=True)
    make_repo(sb.repo)
    (sb.repo / "AGENTS.md").write_bytes(AGENTS_MD)
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    (home / ".codex" / "hooks.json").write_text(CODEX_HOOKS)
    (home / ".claude.json").write_text(CLAUDE_JSON)
    sb.memory.mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(SETTINGS_JSON)
    for name, data in CLAUDE_FILES.items():
        (sb.memory / name).write_bytes(data)
    s = Store.from_environ(env)
    s.remember(s.project_tier(sb.repo, create=True), "Use pnpm, not npm.", name="pnpm")
    s.remember(s.global_tier(create=True), "Prefer tabs over spaces.", name="tabs", type="feedback")
    return sb


def memory_reachable(sb: Sandbox) -> None:
    """The memory directory or coffer's link is in place, every original file readable
    through it with its bytes (``MEMORY.md`` is regenerated, so only its hand line)."""
    st = os.lstat(sb.memory)  # raises if neither directory nor link is there
    assert stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)
    for name, data in CLAUDE_FILES.items():
        got = (sb.memory / name).read_bytes()
        if name == "MEMORY.md":
            assert b"remember to rotate the staging keys" in got
        else:
            assert got == data, name


def temp_files(sb: Sandbox) -> list[str]:
    """coffer's temporary files anywhere in the sandbox: the fake home, the repository, the
    store (and every other directory coffer may write in)."""
    return sorted(
        str(Path(dirpath, name).relative_to(sb.root))
        for dirpath, _dirs, filenames in os.walk(sb.root)
        for name in filenames
        if name.startswith(".coffer-tmp-")
    )


# What differs between two saves of the same entry: its id and the second it was saved (its
# provenance records that second too).
_PER_SAVE = re.compile(rb"^  (id|created_at|updated_at|origin_at): .*\n", re.MULTILINE)


def _tier(entry_file: Path) -> str:
    """``global`` or ``project``: the global tier's id is all zeros."""
    return "global" if set(entry_file.parent.parent.name) == {"0"} else "project"


def store_entries(sb: Sandbox) -> Files:
    """Every entry file in the store (``MEMORY.md`` apart), by tier and name, with the
    fields that differ from one save of the same text to the next taken out."""
    out: Files = {}
    for p in sorted((sb.root / "coffer-home" / "projects").glob("*/memory/*.md")):
        if p.name != "MEMORY.md" and not p.name.startswith(".coffer-tmp-"):
            out[f"{_tier(p)}/{p.name}"] = _PER_SAVE.sub(b"", p.read_bytes())
    return out


def memory_indexes(sb: Sandbox) -> dict[str, bytes]:
    """Each tier's ``MEMORY.md`` in the store."""
    return {
        _tier(p): p.read_bytes()
        for p in (sb.root / "coffer-home" / "projects").glob("*/memory/MEMORY.md")
    }


def leftovers(sb: Sandbox) -> list[str]:
    parent = sb.memory.parent
    return [p.name for p in parent.iterdir() if p.name.endswith(SWAP_SIBLINGS)]


def edit_block(sb: Sandbox) -> None:
    """A hand edit inside coffer's block, and a new entry the block should show."""
    path = sb.repo / "AGENTS.md"
    path.write_bytes(path.read_bytes().replace(b"Use pnpm, not npm.", b"Use yarn."))
    s = Store.from_environ(sb.env)
    # Its own type: within one type the block orders by the second an entry was saved,
    # which would differ between the reference run and a sandbox.
    s.remember(s.project_tier(sb.repo), "Release on Tuesdays.", name="release-day", type="user")


@dataclass
class Scenario:
    """``command`` run after ``prepare``; ``undo`` (if any) must give back the original."""

    command: Sequence[str]
    prepare: Sequence[Sequence[str] | Callable[[Sandbox], None]] = ()
    undo: Sequence[str] = ()
    touches_memory: bool = True  # the Claude memory directory/link is part of its work
    # What "the next run" is: the command again, then (for a store write, whose retry may
    # find the entry already saved) the session hook's ``project``.
    next_runs: Sequence[Sequence[str]] = ()
    writes_store: bool = False  # check the store's entries and MEMORY.md after each kill
    sample: Callable[[list[str], Sandbox], list[int]] = field(
        default=lambda log, sb: [max(1, len(log) // 2)]
    )
    checked: Callable[[Sandbox], None] | None = None  # after the next run, more to check

    def ready(self, sb: Sandbox) -> None:
        for step in self.prepare:
            if callable(step):
                step(sb)
            else:
                sb.ok(*step)


def swap_point(log: list[str], sb: Sandbox) -> list[int]:
    """The kill inside the directory/link swap (the exchange, or the second rename)."""
    hits = [
        i + 1
        for i, line in enumerate(log)
        if line.split()[1] in ("exchange", "rename") and line.endswith(f" {sb.memory}")
    ]
    return hits[-1:]


def last_point(log: list[str], sb: Sandbox) -> list[int]:
    """The last change (the journal record): a retry that finds the files written writes no
    record, so only a sweep of the journal removes the temp record this kill leaves."""
    return [len(log)]


# Its own type (see edit_block): two sandboxes save it in different seconds.
REMEMBER = ["remember", "Ship on Fridays.", "--name", "ship", "--type", "user"]


def history_points(log: list[str], sb: Sandbox) -> list[int]:
    """Every change to the kept versions (docs/adr/0052), and the entry's own write."""
    return [i + 1 for i, line in enumerate(log) if "state/history" in line or "ship.md" in line]


def hand_rm(sb: Sandbox) -> None:
    (tier,) = (sb.root / "coffer-home" / "projects").glob("*/memory/ship.md")
    tier.unlink()


def ship_kept(sb: Sandbox) -> None:
    """The deleted entry's version is in its history exactly once, whatever the cut."""
    r = sb.run("history", "ship", "--json")
    assert r.returncode == 0, r.stderr
    assert [v["event"] for v in json.loads(r.stdout)] == ["deleted"], r.stdout


SCENARIOS: dict[str, Scenario] = {
    "project": Scenario(["project"], undo=["unproject", "--all"], sample=swap_point),
    "project --replace-edited": Scenario(
        ["project", "--replace-edited"], [["project"], edit_block], ["unproject", "--all"]
    ),
    "unproject": Scenario(["unproject", "--all"], [["project"]], sample=swap_point),
    "remember": Scenario(
        REMEMBER,
        [["project"]],
        ["unproject", "--all"],
        touches_memory=False,
        next_runs=[REMEMBER, ["project"]],
        writes_store=True,
        sample=last_point,
    ),
    "project after a hand rm": Scenario(
        ["project"],
        [["project"], REMEMBER, hand_rm],
        ["unproject", "--all"],
        touches_memory=False,
        sample=history_points,
        checked=ship_kept,
    ),
    "restore": Scenario(
        ["restore", "ship", "--version", "1"],
        [["project"], REMEMBER, hand_rm, ["project"]],
        ["unproject", "--all"],
        touches_memory=False,
        next_runs=[["restore", "ship", "--version", "1"], ["project"]],
        writes_store=True,
        sample=history_points,
        checked=ship_kept,
    ),
    "setup": Scenario(
        ["setup", "--yes", "--agent", "claude", "--agent", "codex"],
        undo=["setup", "--undo"],
        touches_memory=False,
        sample=last_point,
    ),
    "setup --undo": Scenario(
        ["setup", "--undo"],
        [["setup", "--yes", "--agent", "claude", "--agent", "codex"]],
        touches_memory=False,
    ),
}


def sweep(tmp_path: Path, name: str, *, full: bool, no_exchange: bool = False) -> tuple[int, int]:
    """Kill ``name``'s command before each chosen change; check what every cut leaves.
    Returns (kill points covered, kill points the command has)."""
    sc = SCENARIOS[name]
    ref = build(tmp_path / "ref", no_exchange=no_exchange)
    original = ref.tracked()
    sc.ready(ref)
    before = ref.tracked()
    log_file = ref.root / "faults.log"
    r = ref.run(*sc.command, log=log_file)
    assert r.returncode == 0, (r.stdout, r.stderr)
    log = log_file.read_text().splitlines()
    for args in sc.next_runs[1:]:
        ref.ok(*args)  # an uncut run followed by the rest of "the next run"
    after = ref.tracked()
    assert after != before
    entries_after, indexes_after = store_entries(ref), memory_indexes(ref)
    points = list(range(1, len(log) + 1)) if full else sc.sample(log, ref)
    for n in points:
        sb = build(tmp_path / f"k{n}", no_exchange=no_exchange)
        sc.ready(sb)
        entries_before = store_entries(sb)
        cut = sb.run(*sc.command, kill_at=n)
        where = f"{name}: killed before change {log[n - 1]!r}"
        assert cut.returncode == faults.KILLED, (where, cut.stdout, cut.stderr)
        # Every file holds its old or its new bytes (None: absent).
        now = sb.tracked()
        for f in set(now) | set(before) | set(after):
            assert now.get(f) in (before.get(f), after.get(f)), (where, f)
        if os.path.lexists(sb.memory):
            memory_reachable(sb)
        else:
            # Only the portable two-rename swap has this window, cut between its renames:
            # the link waits beside the directory and the next run finishes the swap.
            assert no_exchange, where
            sibling = {p.name: p for p in sb.memory.parent.iterdir()}
            links = [n for n in ("memory.coffer-new", "memory.coffer-link") if n in sibling]
            dirs = [n for n in ("memory.coffer-old", "memory.coffer-restore") if n in sibling]
            assert len(links) == 1 and sibling[links[0]].is_symlink(), where
            assert len(dirs) == 1 and sibling[dirs[0]].is_dir(), where
        if sc.writes_store:
            # Each entry file holds its old bytes or the whole new entry; none is torn.
            for f, data in store_entries(sb).items():
                assert data in (entries_before.get(f), entries_after.get(f)), (where, f)
        # The next run converges on what an uncut run makes.
        for args in sc.next_runs or [sc.command]:
            again = sb.run(*args)
            assert again.returncode == 0, (where, args, again.stdout, again.stderr)
        assert sb.tracked() == after, where
        if sc.checked is not None:
            sc.checked(sb)
        if sc.writes_store:
            # The retry saved the entry once: no entry lost, none twice, and each
            # MEMORY.md lists exactly what an uncut run lists.
            assert store_entries(sb) == entries_after, where
            assert memory_indexes(sb) == indexes_after, where
        assert leftovers(sb) == [], where
        assert temp_files(sb) == [], (where, temp_files(sb))
        memory_reachable(sb)
        # And undo gives back every byte.
        if sc.undo:
            sb.ok(*sc.undo)
        final = sb.tracked()
        assert final == original, (
            where,
            {f for f in final.keys() | original.keys() if final.get(f) != original.get(f)},
        )
        if sc.touches_memory:
            assert not sb.memory.is_symlink(), where
        memory_reachable(sb)
        assert leftovers(sb) == [], where
        assert temp_files(sb) == [], (where, temp_files(sb))
        shutil.rmtree(sb.root)
    return len(points), len(log)
