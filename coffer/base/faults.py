"""Kill-point and full-disk injection, for the crash tests in ``tests/faults/``.

``COFFER_KILL_AT=N`` makes the process kill itself (SIGKILL: no ``finally``, no atexit,
exactly like a power cut or ``kill -9``; on Windows ``TerminateProcess``, as abrupt) just
before its Nth change to the file system.
Every fs-changing helper in :mod:`coffer.base.fsutil` calls :func:`step` first, so a test can
iterate N over every change a command makes and check what each cut leaves behind.

``COFFER_FAIL=ENOSPC`` (or another errno name) makes every change that needs space (a new
file, directory, link or copy) from the ``COFFER_FAIL_AT``-th change on (default: the first)
raise that ``OSError``, as a full disk or an exhausted quota does.

Unset (always, outside the tests) the switch costs one environment lookup at import and
one integer test per change; this module imports nothing but ``os``.
"""

from __future__ import annotations

import os


def _parse(value: str | None) -> int:
    try:
        return max(0, int(value or 0))
    except ValueError:
        return 0


_KILL_AT = _parse(os.environ.get("COFFER_KILL_AT"))
# ``COFFER_FAULTS_LOG=FILE`` appends one line per change ("<n> <what>"), so a test can list
# a command's kill points and pick the interesting ones.
_LOG = os.environ.get("COFFER_FAULTS_LOG") or None
_FAIL = os.environ.get("COFFER_FAIL") or None
_FAIL_AT = _parse(os.environ.get("COFFER_FAIL_AT")) or 1
_ACTIVE = bool(_KILL_AT or _LOG or _FAIL)
# The changes that allocate space (a rename, an unlink or an exchange does not).
_ALLOCATING = ("tmpfile", "mkdir", "copy", "copytree", "symlink")
# Lets the sweep exercise the portable two-rename swap on a system with an atomic exchange.
NO_EXCHANGE = bool(os.environ.get("COFFER_FAULTS_NO_EXCHANGE"))
_done = 0
# What a process cut at a kill point exits with, as subprocess reports it: killed by SIGKILL,
# or on Windows ended by TerminateProcess with SIGTERM's number as its exit code.
KILLED = 15 if os.name == "nt" else -9


def step(what: str = "") -> None:
    """Called just before one file-system change (``what``: the operation and its path);
    the Nth call dies when asked to."""
    global _done
    if not _ACTIVE:
        return
    _done += 1
    if _LOG:
        _log(_LOG, f"{_done} {what}\n")
    if _KILL_AT and _done >= _KILL_AT:
        import signal

        # Windows has no SIGKILL: there os.kill with SIGTERM is TerminateProcess.
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
    if _FAIL and _done >= _FAIL_AT:
        verb, _, path = what.partition(" ")
        if verb in _ALLOCATING:
            import errno

            code = getattr(errno, _FAIL, errno.ENOSPC)
            raise OSError(code, os.strerror(code), path or None)


def _log(path: str, line: str) -> None:
    # The log may be a fifo a test reads to act between two steps: its reader can close
    # between our open and our write (it saw the end of the last line), which is EPIPE.
    # Opening again waits for the reader's next open, so the line is never lost.
    while True:
        try:
            with open(path, "a", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(line)
            return
        except BrokenPipeError:
            continue
