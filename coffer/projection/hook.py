"""Hook mode (`coffer project --hook`): a session-start hook never breaks a session.

Agents run the hook at every session start and treat a non-zero exit as a failing hook,
shown to the user every time. So in hook mode:

- a known condition coffer already explains (a block edited by hand, malformed markers, a
  link coffer refused to replace...) is said once per change: what was said is kept in
  ``state/hook-<key>.reported`` and said again only when it changes; the run exits 0;
- a failure (an adapter's bug, an unreadable store, a full disk) is said at every start,
  and the run still exits 0: only a bug in coffer itself ends with a traceback
  (docs/adr/0044);
- the run is bounded by a deadline (``COFFER_HOOK_TIMEOUT`` seconds): lock waits end at
  it, the engine stops at the next safe point after it, and a watchdog ends a run stuck
  in one step shortly after; each time it gives up, it says so.

Claude Code, Codex and Gemini CLI all show a hook's message to the user the same way:
``{"systemMessage": "…"}`` on stdout with exit 0 (stderr of a successful hook is not shown;
Gemini accepts nothing but JSON on stdout). See docs/adr/0013-first-merge-and-hook-mode.md.
Stdlib only: this runs at every session start.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from coffer.base.errors import CofferError
from coffer.base.report import Problem

TIMEOUT_ENV = "COFFER_HOOK_TIMEOUT"
DEFAULT_TIMEOUT = 5.0
# After the deadline the engine stops at its next safe point; a step still running this
# much later is cut short by the watchdog, and one that never reaches a safe point (a read
# stuck on a dead network mount) is abandoned after twice as long again.
GRACE = 2.0
# Problems of these states are coffer refusing, on purpose, something it has explained;
# anything else ("error") is a failure nobody planned for.
UNEXPECTED = frozenset({"error"})


class GaveUp(CofferError):
    """The hook's deadline passed; the work stopped at a safe point."""


def timeout(environ: Mapping[str, str]) -> float:
    """The hook's time budget in seconds (``COFFER_HOOK_TIMEOUT``, else 5)."""
    raw = environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


class Deadline:
    """A point in time after which a run stops at the next safe point.

    ``step()`` brackets one change outside the store (a merge and its link, one block):
    it refuses to start after the deadline, and the watchdog never ends the process while
    one is under way, so a run cut short leaves every file either before or after.
    """

    def __init__(self, seconds: float) -> None:
        import threading  # hook runs only: a plain `coffer project` never makes a Deadline

        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self._safe = threading.Lock()
        self._done = False

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def gave_up(self, why: str) -> GaveUp:
        return GaveUp(
            f"gave up after {self.seconds:g}s ({why}); the next session start continues, "
            "and `coffer project` finishes it now"
        )

    @contextmanager
    def step(self) -> Iterator[None]:
        if self.expired():
            raise self.gave_up("the store is slow or large")
        with self._safe:
            yield

    def finish(self) -> None:
        """The run is over: the watchdog must not speak any more."""
        with self._safe:
            self._done = True

    def watch(self, on_expiry: Callable[[], None], exit_: Callable[[int], None] = os._exit) -> None:
        """End the process (exit 0) after ``on_expiry`` if the run outlives the deadline by
        ``GRACE`` seconds; waits for a step under way, but not forever."""

        def run() -> None:
            time.sleep(self.seconds + GRACE)
            got = self._safe.acquire(timeout=2 * GRACE)
            if self._done:
                return
            on_expiry()
            exit_(0)
            if got:  # only reached when ``exit_`` returns (tests)
                self._safe.release()

        import threading

        threading.Thread(target=run, name="coffer-hook-deadline", daemon=True).start()


def unexpected(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.state in UNEXPECTED]


def _state_path(store: Path, key_root: str) -> Path:
    key = f"{zlib.crc32(key_root.encode('utf-8', 'surrogateescape')):08x}"
    return store / "state" / f"hook-{key}.reported"


def news(store: Path, key_root: str, lines: Sequence[str]) -> list[str]:
    """Of ``lines`` (the known conditions now), those not said at the previous hook run
    for this project; remembers ``lines`` as said. A condition that goes away and comes
    back is said again."""
    from coffer.base import fsutil

    path = _state_path(store, key_root)
    try:
        before = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        before = []
    said = set(before) if isinstance(before, list) else set()
    current = sorted(set(lines))
    if current != sorted(said):
        try:
            if current:
                fsutil.ensure_dir(path.parent)
                fsutil.atomic_write_bytes(path, (json.dumps(current, indent=1) + "\n").encode())
            else:
                path.unlink(missing_ok=True)
        except (OSError, CofferError):
            pass  # a full disk: what cannot be remembered as said is said again next time
    return [x for x in lines if x not in said]


def said(store: Path, key_root: str) -> list[str]:
    """What the last session-start hook run for this project told the user (the known
    problems it said once, still current then): `coffer status`'s last problem."""
    try:
        lines = json.loads(_state_path(store, key_root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(x) for x in lines] if isinstance(lines, list) else []


def output(context: str, message: str) -> str:
    """What the hook prints on stdout: the context alone as before when there is nothing
    to tell the user, else one JSON object every agent understands."""
    if not message:
        return context
    data: dict[str, object] = {"systemMessage": message}
    if context.strip():
        data["hookSpecificOutput"] = {
            "hookEventName": "SessionStart",
            "additionalContext": context,
        }
    return json.dumps(data, ensure_ascii=False) + "\n"
