"""The sync repository's layout and its objects, read and written in batches.

``global/<file>.md`` holds the global tier, ``projects/<key>/<file>.md`` a project's
(``<key>`` may hold ``/``: ``github.com/owner/repo``). Nothing else belongs there: no
``MEMORY.md`` (each machine regenerates it), no journal, state, cache or backup. The
repository is bare; trees are built in a scratch index, so no file of it is ever checked
out and no symlink or hook in it can act on this machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from coffer.store.incoming import MAX_FILE as MAX_FILE
from coffer.store.incoming import entry_name_ok
from coffer.sync.gitcmd import Git
from coffer.sync.keys import GLOBAL_KEY, valid_key

BLOB_MODE = "100644"
entry_file_ok = entry_name_ok  # the checks live with the store's (coffer/store/incoming.py)
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class Item(NamedTuple):
    mode: str
    sha: str
    size: int


Obj = tuple[str, str]  # (mode, blob id): what a merge compares


def objs(items: Mapping[str, Item]) -> dict[str, Obj]:
    return {path: (item.mode, item.sha) for path, item in items.items()}


def prefix(key: str) -> str:
    return "global/" if key == GLOBAL_KEY else f"projects/{key}/"


def split(path: str) -> tuple[str, str] | None:
    """``(key, file name)`` for a path this layout allows, else None."""
    head, _, name = path.rpartition("/")
    if not entry_file_ok(name):
        return None
    if head == "global":
        return GLOBAL_KEY, name
    if head.startswith("projects/") and valid_key(head[len("projects/") :]):
        return head[len("projects/") :], name
    return None


def indexable(path: str) -> bool:
    """Whether git lets ``path`` into an index. A hostile tree can hold ``..``, ``.git`` or
    empty components, which no index takes: such a path is dropped from the next commit
    rather than stopping every round."""
    parts = path.split("/")
    return all(p not in {"", ".", ".."} and p.lower() != ".git" for p in parts) and (
        "\0" not in path
    )


def blob_id(data: bytes) -> str:
    """git's object id for a blob holding ``data`` (what ``hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def ls_tree(git: Git, commit: str | None) -> dict[str, Item]:
    """Every file of ``commit``'s tree (empty for None)."""
    if commit is None:
        return {}
    out: dict[str, Item] = {}
    raw = git.run("ls-tree", "-r", "-z", "-l", "--full-tree", commit).stdout
    for record in raw.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, _kind, sha, size = meta.decode("ascii").split(None, 3)
        out[path.decode("utf-8", "surrogateescape")] = Item(
            mode, sha, int(size) if size.strip().isdigit() else -1
        )
    return out


def cat_blobs(git: Git, shas: Iterable[str]) -> dict[str, bytes]:
    """The contents of the blobs ``shas``, through one ``cat-file --batch``."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    raw = git.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode()).stdout
    out: dict[str, bytes] = {}
    at = 0
    for sha in wanted:
        end = raw.index(b"\n", at)
        header = raw[at:end].split()
        at = end + 1
        if len(header) < 3:
            continue  # "<sha> missing"
        size = int(header[2])
        out[sha] = raw[at : at + size]
        at += size + 1
    return out


def write_blobs(git: Git, contents: Iterable[bytes]) -> None:
    """Store blobs in the repository (their ids are :func:`blob_id`), one process."""
    payload = list(contents)
    if not payload:
        return
    # fast-import would take them in one stream too; hash-object --stdin-paths needs files,
    # so the blobs go through a small fast-import stream of `blob` commands.
    stream = bytearray()
    for data in payload:
        stream += b"blob\ndata %d\n" % len(data) + data + b"\n"
    git.run("fast-import", "--quiet", "--done", stdin=bytes(stream) + b"done\n")


def write_tree(git: Git, files: Mapping[str, Obj]) -> str:
    """The tree holding ``files`` (path -> mode and blob id), built in the scratch index:
    one ``update-index`` and one ``write-tree``. A pulled file's mode is kept as it came,
    so a refused link travels on unchanged rather than becoming a file here."""
    kept = {path: obj for path, obj in files.items() if indexable(path)}
    if not kept:
        return _EMPTY_TREE
    git.run("read-tree", "--empty")
    lines = "".join(f"{mode} {sha}\t{path}\0" for path, (mode, sha) in sorted(kept.items()))
    git.run("update-index", "-z", "--index-info", stdin=lines.encode("utf-8", "surrogateescape"))
    return git.text("write-tree")


def commit(git: Git, tree: str, parents: Iterable[str], message: str) -> str:
    args = ["commit-tree", tree]
    for parent in parents:
        args += ["-p", parent]
    return git.text(*args, "-m", message)
