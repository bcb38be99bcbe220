"""Every entry version coffer last saw, so no deletion or rewrite loses a memory (docs/adr/0052).

Agents delete and consolidate files in the folders coffer links to the store, people ``rm``
them, sync pulls deletions: none of that goes through coffer. So coffer keeps, per tier,
outside the ``memory/`` directory agents read::

    <store>/state/history/<tier-id>/objects/<sha256>   each version's bytes, once
    <store>/state/history/<tier-id>/seen.json          filename -> digest, size, mtime_ns, ino, name
    <store>/state/history/<tier-id>/versions.jsonl     one line per version replaced or deleted

:meth:`History.check` compares the tier's listing with ``seen.json`` by ``stat`` alone and
reads a file only when its size or mtime changed; a file that vanished or changed leaves its
previous version in the log. coffer's own writes call :meth:`History.wrote` instead (event
``written``). Versions older than :data:`RETENTION_DAYS` are pruned on writes, once a day.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from coffer.base import faults, fsutil, platform
from coffer.base.tmpfiles import create_tmp, fsync_dir, is_tmp_name, sweep_stale_tmp

if TYPE_CHECKING:
    from coffer.store.tier import Tier

RETENTION_DAYS = 30
_PRUNE_EVERY = 86_400.0  # prune at most once a day: a write must stay cheap
_INDEX = "MEMORY.md"


class Version(NamedTuple):
    """One kept version of an entry file: what it held, and what happened to it when."""

    number: int  # 1 = the oldest kept
    name: str
    filename: str
    digest: str  # the kept bytes (objects/<digest>)
    when: str
    event: str  # changed / deleted (not by coffer) or written (by coffer)
    replaced_by: str | None  # the digest that replaced it; None when the file went


def history_dir(store_root: Path, tier: Tier) -> Path:
    return store_root / "state" / "history" / tier.info.id


def digest_of(data: bytes) -> str:
    import hashlib  # only when a file changed: OpenSSL stays off the quiet runs (ADR 0038)

    return hashlib.sha256(data).hexdigest()


def _flush(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _name_in(data: bytes, filename: str) -> str:
    from coffer.store.entry import EntryParseError, parse

    try:
        return parse(data.decode("utf-8", "surrogateescape"), filename).name
    except (EntryParseError, ValueError):
        return filename.removesuffix(".md")


class History:
    """The kept versions of one tier."""

    def __init__(self, store_root: Path, tier: Tier) -> None:
        self.dir = history_dir(store_root, tier)
        self.tier_dir = tier.dir
        self.fresh: list[Path] = []  # objects written and not flushed yet
        # The manifest as this object last read or wrote it: :meth:`wrote` follows a
        # :meth:`check` under the tier's lock, so it need not parse the file again (at 300
        # entries, ~0.3 ms of every write).
        self.known: dict[str, dict[str, Any]] | None = None

    # ---- the manifest ------------------------------------------------------------------

    def _listing(self) -> dict[str, os.stat_result]:
        found: dict[str, os.stat_result] = {}
        try:
            it = os.scandir(self.tier_dir)
        except OSError:
            return found
        with it:
            for de in it:
                name = de.name
                if not name.endswith(".md") or name == _INDEX or is_tmp_name(name):
                    continue
                with contextlib.suppress(OSError):
                    st = de.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        found[name] = st
        return found

    def _seen(self) -> dict[str, dict[str, Any]]:
        try:
            loaded = json.loads((self.dir / "seen.json").read_bytes())
        except (OSError, ValueError):
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def _save_seen(self, seen: dict[str, dict[str, Any]]) -> None:
        if self.fresh:  # the objects reach the disk before the manifest that names them
            if len(self.fresh) > 16 and hasattr(os, "sync"):
                os.sync()  # one flush for a first look's thousands of objects
            else:
                for path in self.fresh:
                    _flush(path)
            fsync_dir(self.dir / "objects")
            self.fresh = []
        data = json.dumps(seen, sort_keys=True, separators=(",", ":")).encode()
        fsutil.atomic_write_bytes(self.dir / "seen.json", data)

    def _keep(self, digest: str, data: bytes) -> bool:
        """``data`` in objects/ (whether it was new). No flush per object: a first look at
        10,000 entries would pay 10,000 of them; :meth:`check` flushes once for all."""
        path = self.dir / "objects" / digest
        if path.exists():
            return False
        fsutil.ensure_dir(path.parent)
        if not self.fresh:  # what a killed look left (once per look: a sweep lists objects/)
            sweep_stale_tmp(path.parent)
        faults.step(f"tmpfile {path}")
        fd, tmp = create_tmp(path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            faults.step(f"replace {path}")
            platform.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return True

    def _log(self, records: list[dict[str, Any]]) -> None:
        """Append ``records``; a line cut by a crash is skipped by the reader."""
        path = self.dir / "versions.jsonl"
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
        faults.step(f"append {path}")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | platform.BINARY, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "surrogateescape"))
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.dir)

    def _seen_now(self, filename: str, data: bytes, st: os.stat_result) -> dict[str, Any]:
        digest = digest_of(data)
        if self._keep(digest, data):
            self.fresh.append(self.dir / "objects" / digest)
        return {
            "digest": digest,
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "ino": st.st_ino,  # an atomic rewrite in the same tick still gets a new inode
            "name": _name_in(data, filename),
        }

    @staticmethod
    def _record(filename: str, old: dict[str, Any], new: str | None, event: str) -> dict[str, Any]:
        from coffer.store.projects import now_iso

        name = old.get("name") or filename.removesuffix(".md")
        prev = old.get("digest")
        return {"name": name, "filename": filename, "digest": new, "previous": prev,
                "when": now_iso(), "event": event}  # fmt: skip

    # ---- changes -----------------------------------------------------------------------

    def checked(self) -> History:
        self.check()
        return self

    def check(self) -> list[dict[str, Any]]:
        """Record every change to the tier since the last look; the records written."""
        seen, now = self._seen(), self._listing()
        if not seen and not now:
            self.known = seen
            return []
        records: list[dict[str, Any]] = []
        touched = False
        for filename, st in now.items():
            old = seen.get(filename)
            stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
            if old and (old.get("size"), old.get("mtime_ns"), old.get("ino")) == stamp:
                continue  # the common case: stat alone
            try:
                data = (self.tier_dir / filename).read_bytes()
            except OSError:
                continue
            if not touched:
                fsutil.ensure_dir(self.dir)
                touched = True
            seen[filename] = self._seen_now(filename, data, st)
            if old and old.get("digest") != seen[filename]["digest"]:
                records.append(self._record(filename, old, seen[filename]["digest"], "changed"))
        for filename in sorted(set(seen) - set(now)):
            records.append(self._record(filename, seen.pop(filename), None, "deleted"))
            touched = True
        if touched:
            fsutil.ensure_dir(self.dir)
            if records:
                self._log(records)
            self._save_seen(seen)
        self.known = seen
        return records

    def wrote(self, filename: str, *, replaced: bool = True) -> None:
        """coffer just wrote or removed ``filename``; call after :meth:`check` under the
        tier's lock, so the manifest still holds the version replaced. ``replaced=False``:
        coffer only added its own keys (provenance) to the same text, no version to keep."""
        fsutil.ensure_dir(self.dir)
        seen = self.known if self.known is not None else self._seen()
        self.known = None  # until the manifest changed below is saved
        old = seen.pop(filename, None)
        new = None
        with contextlib.suppress(FileNotFoundError):
            path = self.tier_dir / filename
            st = os.stat(path)
            seen[filename] = self._seen_now(filename, path.read_bytes(), st)
            new = seen[filename]["digest"]
        if replaced and old and old.get("digest") != new:
            self._log([self._record(filename, old, new, "written")])
        self._save_seen(seen)
        self.known = seen
        self.prune()

    # ---- reading -----------------------------------------------------------------------

    def records(self) -> list[dict[str, Any]]:
        try:
            lines = (self.dir / "versions.jsonl").read_bytes().splitlines()
        except OSError:
            return []
        out: list[dict[str, Any]] = []
        for line in lines:
            with contextlib.suppress(ValueError):
                rec = json.loads(line)
                if isinstance(rec, dict) and isinstance(rec.get("previous"), str):
                    out.append(rec)
        return out

    def versions(self, name: str) -> list[Version]:
        """The kept versions of the entry ``name`` (or file ``name[.md]``), oldest first."""
        mine = [r for r in self.records() if name in (r.get("name"), r.get("filename"))]
        mine = mine or [r for r in self.records() if r.get("filename") == f"{name}.md"]
        out: list[Version] = []
        last: tuple[object, ...] | None = None
        for r in mine:
            key = (r.get("filename"), r["previous"], r.get("digest"))
            if key == last or not (self.dir / "objects" / r["previous"]).is_file():
                continue  # a line logged twice by a cut run, or a version pruned since
            last = key
            out.append(Version(len(out) + 1, str(r.get("name")), str(r.get("filename")),
                               r["previous"], str(r.get("when")), str(r.get("event")),
                               r.get("digest")))  # fmt: skip
        return out

    def blob(self, digest: str) -> bytes:
        data = (self.dir / "objects" / digest).read_bytes()
        if digest_of(data) != digest:
            from coffer.base.errors import StoreError

            raise StoreError(f"the kept version {digest[:12]} is damaged (cut by a crash?)")
        return data

    # ---- retention ---------------------------------------------------------------------

    def prune(self, now: float | None = None) -> int:
        """Drop versions replaced more than RETENTION_DAYS ago (not a current file's
        bytes); at most once a day. Returns how many objects went."""
        now = time.time() if now is None else now
        stamp = self.dir / "pruned"
        with contextlib.suppress(OSError):
            if now - stamp.stat().st_mtime < _PRUNE_EVERY:
                return 0
        from datetime import datetime

        cutoff = now - RETENTION_DAYS * 86_400
        kept: list[dict[str, Any]] = []
        for r in self.records():
            with contextlib.suppress(ValueError, TypeError):
                if datetime.fromisoformat(str(r.get("when"))).timestamp() >= cutoff:
                    kept.append(r)
        live = {r["previous"] for r in kept} | {v.get("digest") for v in self._seen().values()}
        gone = 0
        with contextlib.suppress(OSError), os.scandir(self.dir / "objects") as it:
            for de in list(it):
                if de.name not in live and not is_tmp_name(de.name):
                    fsutil.unlink(Path(de.path))
                    gone += 1
        if len(kept) != len(self.records()):
            text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept)
            fsutil.atomic_write_bytes(self.dir / "versions.jsonl", text.encode())
        fsutil.atomic_write_bytes(stamp, b"")
        os.utime(stamp, (now, now))
        return gone


def chosen(versions: list[Version], current: bytes | None, number: int | None) -> Version:
    """Version ``number``, or by default the latest one that differs from ``current`` (the
    file now; None once deleted)."""
    from coffer.base.errors import EntryNotFoundError, InvalidInputError

    if not versions:
        raise EntryNotFoundError("no kept version of it (`coffer history NAME` lists them)")
    if number is not None:
        if not 1 <= number <= len(versions):
            raise InvalidInputError(f"--version must be between 1 and {len(versions)}")
        return versions[number - 1]
    now = digest_of(current) if current is not None else None
    for version in reversed(versions):
        if version.digest != now:
            return version
    raise InvalidInputError("every kept version holds what the file holds now")


def about(kept: History, version: Version) -> dict[str, Any]:
    """``version`` as `coffer history` shows it: size, description, where it came from."""
    from coffer.store.entry import EntryParseError, parse

    data = kept.blob(version.digest)
    description, origin = "", "unknown"
    with contextlib.suppress(EntryParseError, ValueError):
        entry = parse(data.decode("utf-8", "surrogateescape"), version.filename)
        description = entry.description
        found = entry.metadata.get("origin")  # provenance, where the entry records it
        origin = str(found) if isinstance(found, str) and found else origin
    return {"number": version.number, "name": version.name, "filename": version.filename,
            "when": version.when, "event": version.event, "size": len(data),
            "description": description, "origin": origin, "digest": version.digest}  # fmt: skip
