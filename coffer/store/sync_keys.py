"""Which project is which on every machine: a key that does not depend on where a clone
lives or on this machine's project id (docs/adr/0034). In the store layer, not sync's: the
store computes it too, when a project is first registered (entries sync keeps waiting for
its key move in then), and the layers let sync import the store, never the reverse.

A project's key is its ``origin`` URL normalised (``github.com/owner/repo``: the ssh,
scp-like and https forms of one URL are equal), else ``root-<sha>`` from its root commit,
else none: such a project stays on this machine until ``coffer sync link`` names a key.
"""

from __future__ import annotations

import re

GLOBAL_KEY = "global"
_SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.-]*)://", re.IGNORECASE)
# scp-like syntax, as git reads it: a colon before any slash, and not a drive letter.
_SCP_RE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.*)$")
_NETWORK_SCHEMES = frozenset({"ssh", "git+ssh", "ssh+git", "https", "http", "git"})
_SEGMENT_RE = re.compile(r"[a-z0-9_][a-z0-9._-]{0,99}", re.ASCII)
_ROOT_RE = re.compile(r"root-(?:[0-9a-f]{40}|[0-9a-f]{64})", re.ASCII)
MAX_SEGMENTS = 8


def normalise_remote(url: str | None) -> str | None:
    """``host/path`` for a network remote URL (lowercase, no user, port, ``.git`` or
    trailing slash), or None for a local path or anything not a network URL: a path names a
    place on one machine, so it cannot say which project a clone elsewhere is."""
    if not url:
        return None
    text = url.strip()
    scheme = _SCHEME_RE.match(text)
    if scheme is not None:
        if scheme.group(1).lower() not in _NETWORK_SCHEMES:
            return None  # file:// and the like
        rest = text[scheme.end() :]
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2]
        host = host[1:].partition("]")[0] if host.startswith("[") else host.partition(":")[0]
    else:
        scp = _SCP_RE.match(text)
        if scp is None or len(scp.group(1)) < 2:  # "C:\\repo" is a Windows path
            return None
        host, path = scp.group(1), scp.group(2)
    return _joined(host, path)


def _joined(host: str, path: str) -> str | None:
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if parts and parts[0].startswith("~"):
        parts[0] = parts[0][1:]  # ssh://host/~user/repo: the user's directory
    if parts:
        parts[-1] = parts[-1].removesuffix(".git")
    key = "/".join([host.lower(), *(p.lower() for p in parts if p)])
    return key if valid_key(key) and "/" in key else None


def valid_key(key: str) -> bool:
    """Whether ``key`` may name a project directory in the sync repository: lowercase
    segments of letters, digits, ``._-`` joined by ``/``, none hidden, none ``..``."""
    if not key or key == GLOBAL_KEY:
        return False
    parts = key.split("/")
    return len(parts) <= MAX_SEGMENTS and all(
        _SEGMENT_RE.fullmatch(p) and p not in {".", ".."} for p in parts
    )


def root_key(root_commit: str | None) -> str | None:
    """``root-<sha>`` from a repository's root commit(s) (the first, sorted), or None."""
    commits = sorted((root_commit or "").split())
    if not commits:
        return None
    key = f"root-{commits[0].lower()}"
    return key if _ROOT_RE.fullmatch(key) else None


def project_key(remote: str | None, root_commit: str | None) -> str | None:
    """The key of a project with this ``origin`` URL and root commit, or None."""
    return normalise_remote(remote) or root_key(root_commit)
