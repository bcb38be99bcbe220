"""System git, driven with a fixed environment (docs/adr/0034).

Every call runs ``git`` on coffer's own bare repository with no user hooks, templates,
pagers, signing or prompts: ``GIT_TERMINAL_PROMPT=0`` and ssh in batch mode, so a remote
that wants a password fails at once instead of waiting for a terminal nobody watches, and a
timeout bounds a remote that hangs. The user's global config still applies (credential
helpers and ``url.*.insteadOf`` live there); the system's does not.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from coffer.sync.errors import RemoteUnreachable, SyncError

LOCAL_TIMEOUT = 60.0
REMOTE_TIMEOUT = 120.0
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


def git_environ(environ: Mapping[str, str], git_dir: Path, index: Path) -> dict[str, str]:
    # No GIT_* variable of the caller's (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS …)
    # may point git at another repository, index or config than ours.
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_") and "ASKPASS" not in k}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_INDEX_FILE=str(index),
        GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_SSH_COMMAND=environ.get("GIT_SSH_COMMAND", "ssh") + " -o BatchMode=yes",
        LC_ALL="C",
        LANGUAGE="C",
    )
    return env


class Git:
    """One bare repository, its scratch index, and the identity its commits carry."""

    def __init__(self, git_dir: Path, environ: Mapping[str, str], host: str) -> None:
        exe = shutil.which("git", path=environ.get("PATH"))
        if exe is None:
            raise SyncError("coffer sync needs git on PATH; install git and run it again")
        self.exe = exe
        self.git_dir = git_dir
        self.env = git_environ(environ, git_dir, git_dir / "coffer-index")
        name = f"coffer ({host})"
        email = f"coffer@{host}"
        self.env.update(
            GIT_AUTHOR_NAME=name,
            GIT_AUTHOR_EMAIL=email,
            GIT_COMMITTER_NAME=name,
            GIT_COMMITTER_EMAIL=email,
        )

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        check: bool = True,
        timeout: float = LOCAL_TIMEOUT,
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            done = subprocess.run(
                [self.exe, *_FIXED, *args],
                input=stdin,
                capture_output=True,
                env=self.env,
                timeout=timeout,
                check=False,
                cwd=self.git_dir,
            )
        except subprocess.TimeoutExpired as exc:
            raise SyncError(f"git {args[0]} took more than {timeout:.0f}s") from exc
        except OSError as exc:
            raise SyncError(f"cannot run git: {exc}") from exc
        if check and done.returncode != 0:
            raise SyncError(f"git {args[0]} failed: {first_line(done.stderr)}")
        return done

    def text(self, *args: str) -> str:
        return self.run(*args).stdout.decode("utf-8", "surrogateescape").strip()

    def rev(self, ref: str) -> str | None:
        """The commit ``ref`` names, or None when it does not exist (yet)."""
        done = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return done.stdout.decode("ascii").strip() if done.returncode == 0 else None

    def remote_call(self, *args: str, remote: str) -> subprocess.CompletedProcess[bytes]:
        """A call that talks to the remote: failures to reach it are RemoteUnreachable."""
        try:
            done = self.run(*args, check=False, timeout=REMOTE_TIMEOUT)
        except SyncError as exc:
            raise RemoteUnreachable(f"cannot reach {shown(remote)}: {exc}") from exc
        if done.returncode != 0 and not rejected(done.stderr):
            raise RemoteUnreachable(
                f"cannot reach {shown(remote)}: {first_line(done.stderr)}; nothing is lost "
                "(local changes are committed locally), run `coffer sync` again later"
            )
        return done


def rejected(stderr: bytes) -> bool:
    """Whether a failed push was reached and refused as not a fast-forward (a race)."""
    text = stderr.decode("utf-8", "replace")
    return "[rejected]" in text or "non-fast-forward" in text or "fetch first" in text


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
