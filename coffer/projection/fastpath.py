"""The no-op check for ``coffer project``, which runs at every agent session start.

After a clean projection, ``record`` writes a stamp: the values of the environment
variables the adapters read and an ``lstat`` signature of every path whose change could
change the projection (targets, adapter inputs, the tiers and their entries, coffer's
settings and journal, the import path where plugins get installed). ``unchanged`` replays
those checks with nothing but ``os``: when all match there is nothing to do. Anything
unusual (no ``$COFFER_HOME`` to find the store by, an unreadable stamp) just means the full
path runs.

Entry files are signed one by one up to ``MAX_SIGNED_ENTRIES`` per tier; a larger tier is
signed by its directory only, so an in-place edit to one of its files is picked up by
``coffer watch`` rather than here (docs/adr/0004-no-op-fast-path.md).
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
import zlib
from collections.abc import Iterable, Mapping

from coffer.base import platform
from coffer.base.locations import known_store_root

# Not `from typing import TYPE_CHECKING`: importing typing is ~3 ms of the no-op path,
# a sixth of a bare interpreter start. mypy and ruff take the name as true when checking.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from coffer.adapter import Adapter, Context
    from coffer.projection.engine import Engine
    from coffer.store import Here, Tier

# 3: signs the vault's handoff directories (docs/adr/0011). 4: a stamp written after a
# merge that left MEMORY.md stale (docs/adr/0013) must not keep the next run on the no-op path;
# one full run after the upgrade also hides blocks written before docs/adr/0015 from git.
# 5: what `--for` prints again is kept with and without the session id (docs/adr/0048).
_MAGIC = "coffer-fastpath 5"
MAX_SIGNED_ENTRIES = 2000
_ABSENT = "-"
_AGENT_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def _stamp_path(store: str, root: str) -> str:
    key = f"{zlib.crc32(root.encode('utf-8', 'surrogateescape')):08x}"
    return os.path.join(store, "state", f"project-{key}.stamp")


def signature(path: str) -> str:
    """What ``path`` itself is now (never followed); a link, symlink or junction alike
    (Claude's memory directory on Windows without Developer Mode, docs/adr/0057), is signed
    with its target, so one pointed elsewhere is seen."""
    try:
        st = os.lstat(path)
    except OSError:
        return _ABSENT
    sig = f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_mode}"
    if platform.is_link(st):
        try:
            sig += ":" + platform.read_link(path)
        except OSError:
            # A symlink gone between the two calls; a reparse point that points nowhere (a
            # cloud placeholder file) is signed by its lstat alone, as a plain file is.
            if stat.S_ISLNK(st.st_mode):
                return _ABSENT
    return sig


def _clean(text: str) -> bool:
    return "\t" not in text and "\n" not in text and "\r" not in text


# The `coffer project` options a no-op may carry, plain forms only. typer declares them;
# tests/projection/test_fastpath.py holds these to that declaration (docs/adr/0050).
NOOP_FLAGS, NOOP_VALUES = ("--quiet", "-q", "--hook"), ("--project", "--for")


def _parse_argv(argv: list[str], cwd: str) -> tuple[str, str | None, bool] | None:
    """(target directory, agent for --for, --hook given) when argv is a plain `project`
    call, else None."""
    if argv[:1] != ["project"]:
        return None
    values: dict[str, str] = {}
    hook, rest = False, argv[1:]
    while rest:
        if rest[0] in NOOP_FLAGS:
            hook, rest = hook or rest[0] == "--hook", rest[1:]
        elif rest[0] in NOOP_VALUES and len(rest) >= 2:
            values[rest[0]], rest = rest[1], rest[2:]
        else:
            return None
    agent = values.get("--for")
    if agent is not None and not _AGENT_RE.fullmatch(agent):
        return None
    return values.get("--project", cwd), agent, hook


# Where a session id goes in what `--for` prints again; JSON- and markdown-safe, as the ids.
SESSION_PLACEHOLDER = "{{coffer-session-id}}"
_hook_session: list[str | None] = []  # read once per process: the full path reuses it


def hook_session_id(fd: int = 0) -> str | None:
    """The ``session_id`` in the JSON an agent writes to its hook's stdin (issue 28 §3), or
    None; read once per process, never from a terminal, never waiting. No json, no regex
    (their cost is the no-op's): the store's check holds the value to ``[A-Za-z0-9._:-]``."""
    if not _hook_session:
        from coffer.base.identity import is_session_id

        found = _string_field(_read_ready(fd), "session_id")
        _hook_session.append(found if is_session_id(found) else None)
    return _hook_session[0]


def _string_field(text: str, name: str) -> str | None:  # the string after `"name":`, if any
    _, key, rest = text.partition(f'"{name}"')
    rest = rest.lstrip(" \t\r\n")
    value = rest[1:].lstrip(" \t\r\n")
    found, closed, _ = value[1:].partition('"')
    return found if key and rest[:1] == ":" and value[:1] == '"' and closed else None


def _read_ready(fd: int) -> str:
    # Non-blocking, and the descriptor (maybe shared with the agent) is left as found.
    try:
        if os.isatty(fd):
            return ""
        was_blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)
    except (OSError, AttributeError):  # no stdin at all; no such call (Windows before 3.12)
        return ""
    data = b""
    try:
        while len(data) < 256 * 1024:  # an agent's hook input is a few hundred bytes
            chunk = os.read(fd, 65536)  # BlockingIOError: the pipe is open, nothing more yet
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    finally:
        os.set_blocking(fd, was_blocking)
    return data.decode("utf-8", "replace")


def unchanged(argv: list[str], environ: Mapping[str, str], cwd: str) -> str | None:
    """What ``coffer project`` with ``argv`` prints when it provably has nothing to do
    (usually ""), or None when the full path must run."""
    parsed = _parse_argv(argv, cwd)
    store = known_store_root(environ)
    if parsed is None or store is None:
        return None
    target, agent, hook = parsed
    from coffer.base.identity import root_of

    root = root_of(os.path.abspath(target))
    stamp = _stamp_path(store, root)
    try:
        with open(stamp, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        return None
    lines = text.split("\n")
    from coffer import __version__

    if lines[:3] != [_MAGIC, f"version\t{__version__}", f"root\t{root}"]:
        return None
    for line in lines[3:]:
        if not line:
            continue
        kind, _, rest_line = line.partition("\t")
        name, _, value = rest_line.partition("\t")
        if kind == "env":
            if environ.get(name, _ABSENT) != value:
                return None
        elif kind == "file":
            if signature(value) != name:
                return None
        elif kind == "until":  # an entry's review date: what agents load changes that day
            if time.strftime("%Y-%m-%d") >= name:
                return None
        else:
            return None
    return "" if agent is None else _replay(f"{stamp}.for-{agent}", text, hook)


def _replay(path: str, stamp_text: str, hook: bool) -> str | None:
    """What --for prints again (for this exact stamp), with the hook's session id if any."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            head, _, rest = fh.read().partition("\n")
    except OSError:
        return None
    size, _, both = rest.partition("\n")
    if head != _digest(stamp_text) or not size.isdigit():
        return None
    session, n = hook_session_id() if hook else None, int(size)
    return both[:n] if session is None else both[n:].replace(SESSION_PLACEHOLDER, session)


def _digest(stamp_text: str) -> str:
    return f"{zlib.crc32(stamp_text.encode('utf-8', 'surrogateescape')):08x}"


def _team(root: Path | None) -> set[str]:
    """The team tier (docs/adr/0036): one stat. A file added, removed or replaced (as `git
    pull` and `coffer team` do) changes the directory; an in-place hand edit is picked up
    by the next full run."""
    return set() if root is None else {os.path.join(root, ".coffer", "memory")}


def _tiers(engine: Engine, root: Path | None) -> list[Tier]:
    """The global tier and the project's, if it has one: as the run read them, else now."""
    read = engine.scanned.get(root)
    if read is not None:
        return [tier for tier, _ in read]
    tiers = [engine.store.global_tier(), engine.store.tier_at(root) if root is not None else None]
    return [tier for tier in tiers if tier is not None]


def _paths(engine: Engine, root: Path | None) -> tuple[set[str], set[str]]:

    store = engine.store
    env = {"COFFER_HOME", "HOME", "XDG_DATA_HOME", "PATH"}
    paths: set[str] = {str(store.root / n) for n in ("projects.json", "config.json", "journal")}
    paths |= {p for p in sys.path if p and os.path.isdir(p)}
    paths |= _team(root)
    for tier in _tiers(engine, root):
        paths |= {str(tier.dir), str(tier.dir / "MEMORY.md")}
        # How often each entry was recalled orders what agents load (docs/adr/0055).
        paths.add(str(tier.base / "recalls.json"))
        names = os.listdir(tier.dir) if tier.dir.is_dir() else []
        if len(names) <= MAX_SIGNED_ENTRIES:
            paths |= {str(tier.dir / n) for n in names}
    more_env, more_paths = _adapter_paths(engine, root)
    env |= more_env
    paths |= more_paths
    if engine.handoffs is not None and root is not None:
        # Vault handoffs shown in blocks: a new handoff file changes only its kind
        # directory, and one retired by hand (status edited, docs/vault-format.md §1.1) only its own
        # file, so both are signed, for the project and team scopes (docs/adr/0011).
        env.add("ECC_MEMORY_PROJECT_ROOT")
        vault = root / ".ecc" / "memory"
        paths |= {str(root / ".ecc"), str(vault)}
        if not engine.environ.get("ECC_MEMORY_PROJECT_ROOT") and not vault.is_dir():
            # No vault (the handoff source's own test): the two signatures above change
            # when one is made, and the vault package (~30 ms of imports) is not loaded.
            return env, paths
        try:
            from coffer.vault.handoffs import watched_paths

            paths |= watched_paths(str(root), engine.environ, MAX_SIGNED_ENTRIES)
        except Exception:
            # What would change the list cannot be named (e.g. an invalid override): no
            # stamp, so every run takes the full path and renders the block afresh.
            raise _Unsignable from None
    return env, paths


def _adapter_paths(engine: Engine, root: Path | None) -> tuple[set[str], set[str]]:
    """What the adapters read: the targets and inputs of those projected for, and the
    directory each other agent's global file would appear in (it being installed later)."""
    from coffer.base.report import Report

    ctx = engine.context(root)
    env: set[str] = set()
    paths: set[str] = set()
    # What the run just projected for, and the targets it planned (detecting all the
    # agents again costs as much again).
    planned = engine.projected.get(root)
    if planned is None:
        planned = {n: a.targets(ctx) for n, a in engine.enabled(ctx, Report()).items()}
    for name, adapter in engine.loaded.adapters.items():
        if name not in planned:
            paths |= _installed_later(adapter, ctx)
            continue
        paths |= {str(t.path) for t in planned[name]}
        env_names, files = adapter.inputs(ctx)
        env |= set(env_names)
        paths |= {str(f) for f in files}
    return env, paths


def _installed_later(adapter: Adapter, ctx: Context) -> set[str]:
    """What changes when an agent not projected for is installed: for a spec's ``detect``
    the paths it looks at (without importing a deferred adapter's module), otherwise the
    directory its global file would appear in."""
    from coffer.adapter.deferred import presence

    found = presence(adapter)
    if found is not None:
        return {str(p) for p in found.watched(ctx)}
    return {str(t.path.parent) for t in adapter.targets(ctx) if t.tier == "global"}


def _freshness(engine: Engine, root: Path | None) -> tuple[set[str], str | None]:
    """The files the project's entries are anchored to (an edit to one can make an entry
    stale, which the blocks show), and the first review date still to come: of the entries
    the run read (what its blocks show), scanned again only when it read none."""
    from coffer.store.freshness import anchored_paths, next_review

    scans = engine.scanned.get(root)
    if scans is None:
        scans = [(t, engine.store.scan(t).entries) for t in _tiers(engine, root)]
    paths = {p for t, entries in scans for p in anchored_paths(entries, t.root)}
    return paths, next_review(e for _, entries in scans for e in entries)


class _Unsignable(Exception):
    """The projection's inputs cannot all be signed; record no stamp."""


def record(engine: Engine, here: Here) -> None:
    """Write the stamp for the project at ``here`` (after a clean run)."""
    from coffer import __version__
    from coffer.base import fsutil

    # Keyed by where `unchanged` will look: the git-or-directory root of the path, which
    # for the home directory (global tier only) is not a project root.
    key_root = here.key
    root = here.project
    try:
        env, paths = _paths(engine, root)
    except _Unsignable:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(_stamp_path(str(engine.store.root), key_root))
        return
    lines = [_MAGIC, f"version\t{__version__}", f"root\t{key_root}"]
    if not _clean(key_root):
        return
    for name in sorted(env):
        value = engine.environ.get(name, _ABSENT)
        if not _clean(value):
            return
        lines.append(f"env\t{name}\t{value}")
    anchored, until = _freshness(engine, root)
    lines += [f"file\t{signature(p)}\t{p}" for p in _sorted_clean(paths | anchored)]
    if until is not None:
        lines.append(f"until\t{until}\t")
    stamp = _stamp_path(str(engine.store.root), key_root)
    fsutil.ensure_dir(engine.store.root / "state")
    from pathlib import Path as _Path

    fsutil.write_if_changed(
        _Path(stamp), ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    )


def record_output(engine: Engine, here: Here, agent: str, output: str, template: str) -> None:
    """Keep what `coffer project --for AGENT` prints again on a no-op, for the current stamp:
    ``output`` when no session id is given, else ``template`` with the id put in."""
    from pathlib import Path as _Path

    from coffer.base import fsutil

    if not _AGENT_RE.fullmatch(agent):
        return
    stamp = _stamp_path(str(engine.store.root), here.key)
    try:
        with open(stamp, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        return
    data = f"{_digest(text)}\n{len(output)}\n{output}{template}".encode("utf-8", "surrogateescape")
    fsutil.write_if_changed(_Path(f"{stamp}.for-{agent}"), data)


def _sorted_clean(paths: Iterable[str]) -> list[str]:
    return sorted(p for p in paths if _clean(p))
