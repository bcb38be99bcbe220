"""Whether an entry is still true: what it is about (``anchors``: paths in the repository,
optionally a symbol, with the blob id each had when the entry was written or verified) and
when a person should look at it again (``review_after``), under the entry's ``metadata``
(docs/adr/0053).

Deterministic and local: a path's blob id is git's (``sha1("blob <size>\\0" + bytes)``),
computed from the working tree without running git, so a repository that is not one, or a
file git does not track, is judged the same way. A file is read only when its stat data
differs from what this process saw last.
"""

from __future__ import annotations

import datetime
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from coffer.base.errors import InvalidInputError
from coffer.secrets import find_secrets, redact
from coffer.store.entry import Entry

MAX_ANCHORS = 20  # an entry is about a few files; more is a list, not an anchor
MAX_ANCHOR_BYTES = 8 * 1024 * 1024  # a larger file is anchored by path only (no blob id)
KEYS = ("anchors", "review_after", "review_every", "verified_at")

# A path quoted in an entry's text (`src/app.py`, docs/deploy.md, scripts/release): a file
# name with an extension, or anything with a slash. Only tokens that exist as regular files
# in the repository become anchors, so a URL or a version number never does.
_PATH_TOKEN = re.compile(
    r"""(?<![\w/.~:-])(
        (?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,10}  # name.ext, in folders or not
      | (?:[\w.-]+/)+[\w.-]+                       # folder/name
      | (?:Makefile|Dockerfile|Justfile|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile)
    )(?![\w/.-])""",
    re.VERBOSE,
)
_AGE = re.compile(r"([1-9][0-9]{0,3})([dwmy])")
_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}


class Anchor(NamedTuple):
    """One thing an entry is about: a path relative to the project root, and the symbol in it."""

    path: str
    symbol: str | None = None
    blob: str | None = None  # git's blob id of the file when the entry was written/verified

    def as_json(self) -> dict[str, str]:
        out = {"path": self.path}
        if self.symbol:
            out["symbol"] = self.symbol
        if self.blob:
            out["blob"] = self.blob
        return out


class Stale(NamedTuple):
    """Why an entry may no longer be true: one reason per anchor or date."""

    reasons: tuple[str, ...]

    def summary(self) -> str:
        return "; ".join(self.reasons)


# ---- reading what an entry says -------------------------------------------------------


def anchors_of(metadata: Mapping[str, Any]) -> list[Anchor]:
    """The anchors in ``metadata``; malformed items (a hand edit) are skipped, not fatal."""
    raw = metadata.get("anchors")
    if not isinstance(raw, list):
        return []
    out: list[Anchor] = []
    for item in raw[:MAX_ANCHORS]:
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        symbol, blob = item.get("symbol"), item.get("blob")
        out.append(
            Anchor(
                item["path"],
                symbol if isinstance(symbol, str) and symbol else None,
                blob if isinstance(blob, str) and blob else None,
            )
        )
    return out


def _date(value: object) -> datetime.date | None:
    if isinstance(value, datetime.date):
        return value
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.date.fromisoformat(value[:10])
    except ValueError:
        return None


# ---- what a write records --------------------------------------------------------------


def parse_anchor(text: str) -> Anchor:
    """``PATH`` or ``PATH#SYMBOL`` as the command line and the MCP tools take it."""
    path, _, symbol = text.partition("#")
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    parts = path.split("/")
    if not path or path.startswith("/") or ".." in parts or "" in parts:
        raise InvalidInputError(
            f"invalid anchor {text!r}: give a path inside the repository, relative to its "
            "root, optionally with #symbol (e.g. src/deploy.py#release)"
        )
    if find_secrets(text):
        raise InvalidInputError("refusing an anchor that looks like a secret")
    return Anchor(path, symbol.strip() or None)


def review_date(value: str, today: datetime.date | None = None) -> tuple[str, str | None]:
    """(``review_after`` date, ``review_every`` age) for ``--review-after``: a date
    (2027-03-01) or an age from today (90d, 12w, 6m, 1y), which ``verify`` starts again."""
    today = today or datetime.date.today()
    value = value.strip()
    age = _AGE.fullmatch(value)
    if age is not None:
        days = int(age.group(1)) * _DAYS[age.group(2)]
        return (today + datetime.timedelta(days=days)).isoformat(), value
    day = _date(value) if len(value) == 10 else None
    if day is None:
        raise InvalidInputError(
            f"invalid --review-after {value!r}: give a date (2027-03-01) or an age "
            "(90d, 12w, 6m, 1y)"
        )
    return day.isoformat(), None


def inferred(text: str, root: Path) -> list[Anchor]:
    """Paths quoted in ``text`` that exist as regular files under ``root``."""
    seen: dict[str, Anchor] = {}
    for match in _PATH_TOKEN.finditer(text):
        token = match.group(1).rstrip(".")
        if token in seen or len(seen) >= MAX_ANCHORS:
            continue
        try:
            anchor = parse_anchor(token)
        except InvalidInputError:
            continue
        if _regular_file(root, anchor.path):
            seen[token] = anchor
    return list(seen.values())


def _regular_file(root: Path, rel: str) -> bool:
    try:
        st = os.lstat(root / rel)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode)


def stamped(
    metadata: Mapping[str, Any],
    root: Path | None,
    *,
    anchors: Sequence[Anchor] = (),
    text: str | None = None,
    review_after: str | None = None,
    verified: bool = False,
) -> dict[str, Any]:
    """``metadata`` with anchors recorded (given ones, then those quoted in ``text``), their
    blob ids taken now, and the review date; ``verified`` marks the entry checked now."""
    meta = dict(metadata)
    if root is not None:
        # Every write takes the blob ids again: "changed" means changed since the entry was
        # last written or verified, as a person reading it would count.
        merged = {(a.path, a.symbol): a for a in anchors_of(meta)}
        for anchor in [*anchors, *(inferred(text, root) if text is not None else [])]:
            merged.setdefault((anchor.path, anchor.symbol), anchor)
        chosen = [a._replace(blob=blob_id(root / a.path)) for a in merged.values()]
        if chosen:
            meta["anchors"] = [a.as_json() for a in chosen[:MAX_ANCHORS]]
    elif anchors:
        raise InvalidInputError("anchors name paths in a repository: the global tier has none")
    if review_after is not None:
        date, every = review_date(review_after)
        meta["review_after"] = date
        if every:
            meta["review_every"] = every
        else:
            meta.pop("review_every", None)
    if verified:
        now = datetime.datetime.now(datetime.UTC)
        meta["verified_at"] = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        every = meta.get("review_every")
        if isinstance(every, str) and _AGE.fullmatch(every):
            meta["review_after"] = review_date(every)[0]
        else:
            due = _date(meta.get("review_after"))
            if due is not None and now.date() >= due:
                # A fixed date asked for one review, and this is it: without an age there
                # is no next one, and keeping the date would leave the entry stale for ever.
                del meta["review_after"]
    return meta


# ---- judging ---------------------------------------------------------------------------

# git's blob id of each anchored file, by path, while its size, mtime and inode hold: a
# command judges every entry anchored to a file against it.
_BLOBS: dict[str, tuple[tuple[int, int, int], str | None]] = {}
_MAX_BLOBS = 4096  # a long-running watcher or MCP server starts over past this


def blob_id(path: Path) -> str | None:
    """git's blob id of the regular file at ``path`` (None: absent, not a file, too big)."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ANCHOR_BYTES:
        return None
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    cached = _BLOBS.get(str(path))
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        data = path.read_bytes()
    except OSError:
        return None
    import hashlib  # here: OpenSSL's _hashlib is a third of a bare start, and most readers
    # (recall, list) judge no anchor whose file changed

    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    if len(_BLOBS) >= _MAX_BLOBS:
        _BLOBS.clear()
    _BLOBS[str(path)] = (key, digest.hexdigest())
    return digest.hexdigest()


def _symbol_in(path: Path, symbol: str) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(rf"(?<![\w]){re.escape(symbol)}(?![\w])", text) is not None


def _since(metadata: Mapping[str, Any]) -> str:
    when = metadata.get("verified_at") or metadata.get("updated_at") or ""
    day = _date(when)
    return f" since {day.isoformat()}" if day else ""


def judge(
    metadata: Mapping[str, Any],
    root: Path | None,
    today: datetime.date | None = None,
    blobs: dict[str, str | None] | None = None,
) -> Stale | None:
    """Why the entry with ``metadata`` may be stale, or None when nothing says so
    (``blobs``: the blob ids already taken in this pass, by path; many entries share one)."""
    if "anchors" not in metadata and "review_after" not in metadata:
        return None  # most entries: a dict lookup, nothing read
    reasons: list[str] = []
    if root is not None:
        since = _since(metadata)
        blobs = {} if blobs is None else blobs
        for anchor in anchors_of(metadata):
            path = os.path.join(root, anchor.path)
            if path not in blobs:
                blobs[path] = blob_id(Path(path))
            blob = blobs[path]
            if blob is None and not os.path.lexists(path):
                reasons.append(f"{anchor.path} is gone")
            elif anchor.symbol and not _symbol_in(Path(path), anchor.symbol):
                reasons.append(f"{anchor.symbol} is no longer in {anchor.path}")
            elif anchor.blob and blob != anchor.blob:
                reasons.append(f"{anchor.path} changed{since}")
    due = _date(metadata.get("review_after"))
    if due is not None and (today or datetime.date.today()) >= due:
        reasons.append(f"review was due {due.isoformat()}")
    return Stale(tuple(reasons)) if reasons else None


def anchored_paths(entries: Iterable[Entry], root: Path | None) -> set[str]:
    """The files ``entries`` are anchored to, as absolute paths (what the session-start
    check looks at, so an edit to one refreshes what agents load)."""
    if root is None:
        return set()
    return {str(root / a.path) for e in entries for a in anchors_of(e.metadata)}


def marked(entries: Sequence[Entry], root: Path | None) -> tuple[Entry, ...]:
    """``entries``, each stale one carrying why (``Entry.stale``), as every reader shows it."""
    if not any("anchors" in e.metadata or "review_after" in e.metadata for e in entries):
        return tuple(entries)
    today = datetime.date.today()
    out = []
    blobs: dict[str, str | None] = {}
    for entry in entries:
        found = judge(entry.metadata, root, today, blobs)
        # An anchor's path came from a hand-editable file: shown redacted, like any text.
        out.append(entry._replace(stale=redact(found.summary())) if found else entry)
    return tuple(out)


def next_review(entries: Iterable[Entry]) -> str | None:
    """The earliest review date after today among ``entries`` (ISO), if any: the day what
    agents load changes without any file changing."""
    today = datetime.date.today()
    dates = [_date(e.metadata.get("review_after")) for e in entries]
    due = [d for d in dates if d is not None and d > today]
    return min(due).isoformat() if due else None
