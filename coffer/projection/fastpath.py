"""The no-op check for ``coffer project``, which runs at every agent session start.

After a clean projection, coffer.projection.stamp writes a stamp: the values of the
environment variables the adapters read and an ``lstat`` signature of every path whose
change could change the projection. ``unchanged`` replays those checks with nothing but
``os``: when all match there is nothing to do. This module is the whole no-op path's own
code, stdlib only (docs/adr/0049); the stamp's format (``MAGIC``, ``stamp_path``,
``signature``, ``clean``, ``digest``) lives here and the writer imports it. Anything
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
import time
import zlib
from collections.abc import Mapping

from coffer.base import platform
from coffer.base.locations import known_store_root

# 3: signs the vault's handoff directories (docs/adr/0011). 4: a stamp written after a
# merge that left MEMORY.md stale (docs/adr/0013) must not keep the next run on the no-op path;
# one full run after the upgrade also hides blocks written before docs/adr/0015 from git.
# 5: what `--for` prints again is kept with and without the session id (docs/adr/0048).
MAGIC = "coffer-fastpath 5"
MAX_SIGNED_ENTRIES = 2000
ABSENT = "-"
AGENT_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def stamp_path(store: str, root: str) -> str:
    key = f"{zlib.crc32(root.encode('utf-8', 'surrogateescape')):08x}"
    return os.path.join(store, "state", f"project-{key}.stamp")


def signature(path: str) -> str:
    """What ``path`` itself is now (never followed); a link, symlink or junction alike
    (Claude's memory directory on Windows without Developer Mode, docs/adr/0057), is signed
    with its target, so one pointed elsewhere is seen."""
    try:
        st = os.lstat(path)
    except OSError:
        return ABSENT
    sig = f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_mode}"
    if platform.is_link(st):
        try:
            sig += ":" + platform.read_link(path)
        except OSError:
            # A symlink gone between the two calls; a reparse point that points nowhere (a
            # cloud placeholder file) is signed by its lstat alone, as a plain file is.
            if stat.S_ISLNK(st.st_mode):
                return ABSENT
    return sig


def clean(text: str) -> bool:
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
    if agent is not None and not AGENT_RE.fullmatch(agent):
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
    stamp = stamp_path(store, root)
    try:
        with open(stamp, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        return None
    lines = text.split("\n")
    from coffer import __version__

    if lines[:3] != [MAGIC, f"version\t{__version__}", f"root\t{root}"]:
        return None
    for line in lines[3:]:
        if not line:
            continue
        kind, _, rest_line = line.partition("\t")
        name, _, value = rest_line.partition("\t")
        if kind == "env":
            if environ.get(name, ABSENT) != value:
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
    if head != digest(stamp_text) or not size.isdigit():
        return None
    session, n = hook_session_id() if hook else None, int(size)
    return both[:n] if session is None else both[n:].replace(SESSION_PLACEHOLDER, session)


def digest(stamp_text: str) -> str:
    return f"{zlib.crc32(stamp_text.encode('utf-8', 'surrogateescape')):08x}"
