"""System git, driven with a fixed environment (docs/adr/0034, 0043).

Every call runs ``git`` on coffer's own bare repository with no user hooks, templates,
pagers, signing or prompts: ``GIT_TERMINAL_PROMPT=0`` and, when coffer chooses the ssh
command, ssh in batch mode, so a remote that wants a password fails at once instead of
waiting for a terminal nobody watches. The user's global config still applies (credential
helpers, ``url.*.insteadOf`` and ``core.sshCommand`` live there); the system's does not.

Each git runs in a session of its own, with no controlling terminal (so not even the ssh
the user chose can prompt), and is killed with its whole process group (the ssh it started
included) at its deadline or when coffer stops waiting for it: a remote that never answers
costs a round at most its budget (``COFFER_SYNC_TIMEOUT``) and leaves nothing running.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from coffer.sync.errors import RemoteUnreachable, SyncError

LOCAL_TIMEOUT = 60.0
REMOTE_TIMEOUT = 60.0  # a round's whole time on the network, unless COFFER_SYNC_TIMEOUT says
TIMEOUT_ENV = "COFFER_SYNC_TIMEOUT"
# coffer's own ssh options: no prompt, and an answer (or a failure) within bounded time even
# for a git a kill of coffer itself left behind.
SSH_OPTIONS = "-o BatchMode=yes -o ConnectTimeout=20 -o ServerAliveInterval=15"
LATER = "nothing is lost (local changes are committed locally), run `coffer sync` again later"
_FIXED = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.pager=cat",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "gc.autoDetach=false",
    "-c",
    "credential.interactive=never",
    "-c",
    "protocol.ext.allow=never",
)

# The process groups of the gits running now, so that a stopping watcher can end a round's
# git that its thread still waits on (see :func:`stop_all`).
_running: set[int] = set()
_running_lock = threading.Lock()


def remote_budget(environ: Mapping[str, str]) -> float:
    """Seconds a round may spend on the network (``COFFER_SYNC_TIMEOUT``, else 60)."""
    raw = environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else REMOTE_TIMEOUT
    except ValueError:
        return REMOTE_TIMEOUT
    return min(max(value, 0.5), 3600.0) if value == value else REMOTE_TIMEOUT  # NaN: default


def ssh_command(environ: Mapping[str, str], user_config: str | None) -> dict[str, str]:
    """The ssh variables git gets. The user's own choice wins: ``GIT_SSH_COMMAND``, else
    ``GIT_SSH``, else ``core.sshCommand`` (``user_config``) run as they wrote it, with
    coffer's options added only when it is a plain ``ssh`` (a wrapper may not take ``-o``)."""
    chosen = environ.get("GIT_SSH_COMMAND") or None
    if chosen is None and environ.get("GIT_SSH"):
        return {"GIT_SSH": environ["GIT_SSH"]}
    chosen = chosen or user_config
    if chosen is None:
        return {"GIT_SSH_COMMAND": f"ssh {SSH_OPTIONS}"}
    try:
        program = shlex.split(chosen)[0] if chosen.strip() else ""
    except ValueError:
        program = ""
    if os.path.basename(program) == "ssh":
        return {"GIT_SSH_COMMAND": f"{chosen} {SSH_OPTIONS}"}
    return {"GIT_SSH_COMMAND": chosen}


def git_environ(
    environ: Mapping[str, str], git_dir: Path, index: Path, user_ssh: str | None = None
) -> dict[str, str]:
    # No GIT_* variable of the caller's (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS …)
    # may point git at another repository, index or config than ours.
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_") and "ASKPASS" not in k}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_INDEX_FILE=str(index),
        GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_NOSYSTEM="1",
        LC_ALL="C",
        LANGUAGE="C",
    )
    env.update(ssh_command(environ, user_ssh))
    return env


class Git:
    """One bare repository, its scratch index, and the identity its commits carry."""

    def __init__(self, git_dir: Path, environ: Mapping[str, str], host: str) -> None:
        exe = shutil.which("git", path=environ.get("PATH"))
        if exe is None:
            raise SyncError("coffer sync needs git on PATH; install git and run it again")
        self.exe = exe
        self.git_dir = git_dir
        self.budget = remote_budget(environ)
        self.deadline: float | None = None  # the round's end on the network (monotonic)
        self.env = git_environ(environ, git_dir, git_dir / "coffer-index")
        if "GIT_SSH_COMMAND" not in environ and "GIT_SSH" not in environ:
            # core.sshCommand only matters when no variable overrides it (git's own order).
            user = self._user_ssh()
            if user is not None:
                self.env.update(ssh_command(environ, user))
        name = f"coffer ({host})"
        email = f"coffer@{host}"
        self.env.update(
            GIT_AUTHOR_NAME=name,
            GIT_AUTHOR_EMAIL=email,
            GIT_COMMITTER_NAME=name,
            GIT_COMMITTER_EMAIL=email,
        )

    def _user_ssh(self) -> str | None:
        """``core.sshCommand`` from the user's global config, or None. Asked outside our
        repository (it may not exist yet); its own config never sets it."""
        env = {k: v for k, v in self.env.items() if k not in {"GIT_DIR", "GIT_INDEX_FILE"}}
        try:
            done = subprocess.run(
                [self.exe, "config", "--global", "--get", "core.sshCommand"],
                capture_output=True,
                env=env,
                timeout=LOCAL_TIMEOUT,
                check=False,
                cwd="/",
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        value = done.stdout.decode("utf-8", "surrogateescape").strip()
        return value if done.returncode == 0 and value else None

    def start_round(self) -> None:
        """From now, every call to the remote shares one budget (:func:`remote_budget`)."""
        self.deadline = time.monotonic() + self.budget

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        check: bool = True,
        timeout: float = LOCAL_TIMEOUT,
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            done = _run_group([self.exe, *_FIXED, *args], stdin, self.env, timeout, self.git_dir)
        except subprocess.TimeoutExpired as exc:
            raise SyncError(f"git {args[0]} took more than {timeout:.0f}s") from exc
        except OSError as exc:
            raise SyncError(f"cannot run git: {exc}") from exc
        if check and done.returncode != 0:
            why = first_line(done.stderr)
            if ".lock': File exists" in why:
                # A lock seconds old is not taken away (its git may be starting): say when
                # it will be (coffer.sync.gitlocks).
                from coffer.sync.gitlocks import STALE_AFTER

                why += (
                    " (a sync round running now, or one killed moments ago: `coffer sync` "
                    f"removes the lock once no git uses it for {STALE_AFTER:g} s)"
                )
            raise SyncError(f"git {args[0]} failed: {why}")
        return done

    def text(self, *args: str) -> str:
        return self.run(*args).stdout.decode("utf-8", "surrogateescape").strip()

    def rev(self, ref: str) -> str | None:
        """The commit ``ref`` names, or None when it does not exist (yet)."""
        done = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return done.stdout.decode("ascii").strip() if done.returncode == 0 else None

    def remote_call(
        self, *args: str, remote: str, later: str = LATER
    ) -> subprocess.CompletedProcess[bytes]:
        """A call that talks to the remote: failures to reach it are RemoteUnreachable,
        their message ending in ``later`` (what to do). It gets what is left of the round's
        budget (all of it outside a round)."""
        left = self.budget if self.deadline is None else self.deadline - time.monotonic()
        if left <= 0:
            raise RemoteUnreachable(
                f"cannot reach {shown(remote)}: the round used its {self.budget:g} s "
                f"({TIMEOUT_ENV}) before git {args[0]}; {later}"
            )
        try:
            done = _run_group([self.exe, *_FIXED, *args], None, self.env, left, self.git_dir)
        except subprocess.TimeoutExpired:
            raise RemoteUnreachable(
                f"cannot reach {shown(remote)}: no answer within {self.budget:g} s "
                f"({TIMEOUT_ENV}); git {args[0]} and its ssh were stopped; {later}"
            ) from None
        except OSError as exc:
            raise RemoteUnreachable(f"cannot reach {shown(remote)}: cannot run git: {exc}") from exc
        if done.returncode != 0 and not rejected(done.stderr):
            why = first_line(done.stderr)
            raise RemoteUnreachable(f"cannot reach {shown(remote)}: {why}; {later}")
        return done


def _run_group(
    argv: list[str], stdin: bytes | None, env: dict[str, str], timeout: float, cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    """``argv`` in a new session; at the timeout, or whatever stops the wait (a signal, a
    stopping watcher), its whole process group is killed before this returns or raises."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    with _running_lock:
        _running.add(proc.pid)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except BaseException:
        _kill_group(proc.pid)
        proc.kill()
        # The pipes close once the group is gone; a process that left the group and kept
        # them open is not waited for.
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=5.0)
        raise
    finally:
        with _running_lock:
            _running.discard(proc.pid)
    # git is done; an ssh it left behind in its group goes too.
    _kill_group(proc.pid)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _kill_group(pgid: int) -> None:
    killpg = getattr(os, "killpg", None)  # POSIX; elsewhere the caller's kill() is all
    if killpg is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left in it
            killpg(pgid, signal.SIGKILL)


def stop_all() -> int:
    """Kill every git coffer is running now, with its process group (a watcher that stops
    while a round waits on the network); how many there were. The round then fails as a
    remote that did not answer, which loses nothing."""
    with _running_lock:
        groups = list(_running)
    for pgid in groups:
        _kill_group(pgid)
    return len(groups)


def rejected(stderr: bytes) -> bool:
    """Whether a failed push was reached and lost a race: refused as not a fast-forward, or
    the ref moved between the remote's check and its update (``[remote rejected] … failed
    to update ref``, ``cannot lock ref``)."""
    text = stderr.decode("utf-8", "replace")
    return lost_race(text) or "[remote rejected]" in text


def lost_race(text: str) -> bool:
    """Whether ``text`` (a push's error output) says another push got there first."""
    marks = ("[rejected]", "non-fast-forward", "fetch first", "failed to update ref")
    return any(m in text for m in marks) or "cannot lock ref" in text


def refusal(stderr: bytes) -> str:
    """Why the remote refused a push: its ``[remote rejected]`` line, with what its hook
    said (``remote: …`` lines), else the first error."""
    lines = [x.strip() for x in stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    said = [x.removeprefix("remote:").strip() for x in lines if x.startswith("remote:")]
    why = [x.partition("[remote rejected]")[2].strip() for x in lines if "[remote rejected]" in x]
    if not why:
        return first_line(stderr)
    return why[0] + (f" (the remote said: {' / '.join(said[:3])})" if said else "")


def first_line(stderr: bytes) -> str:
    lines = [x.strip() for x in stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    fatal = [x for x in lines if x.startswith(("fatal:", "error:", "ssh:"))]
    return (fatal or lines or ["no message"])[0]


def shown(remote: str) -> str:
    """A remote URL without any password it carries (``https://user:pw@host``)."""
    scheme, sep, rest = remote.partition("://")
    if not sep or "@" not in rest.partition("/")[0]:
        return remote
    authority, slash, path = rest.partition("/")
    user = authority.rpartition("@")[0].partition(":")[0]
    return f"{scheme}://{user}@{authority.rpartition('@')[2]}{slash}{path}"
