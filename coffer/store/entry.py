"""One memory entry: Claude Code's topic-file format (YAML frontmatter, markdown body).

``name``, ``description`` and ``metadata.type`` are Claude's; coffer's own fields
(``id``, ``created_at``, ``updated_at``, ``origin_session_id``) live under ``metadata`` too,
where Claude itself stamps ``originSessionId``. Parsing is as lenient as Claude's: top-level
keys other than name/description/metadata are folded into metadata (metadata wins), a missing
name falls back to the file stem and a missing description to the first body line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from coffer.base.errors import InvalidInputError
from coffer.base.platform import reserved_name
from coffer.secrets import find_secrets, redact, visible

if TYPE_CHECKING:
    from typing import Any

TYPES = ("user", "feedback", "project", "reference")
COFFER_KEYS = (
    "id",
    "created_at",
    "updated_at",
    "origin_session_id",
    # where the entry came from (coffer.store.provenance, docs/adr/0051)
    "origin",
    "origin_machine",
    "origin_at",
    "updated_by",
    "updated_machine",
    "text_digest",
    "pending",  # an agent's entry waiting for a person (coffer.store.pending)
)
MAX_NAME = 64
MAX_DESCRIPTION = 200
MAX_BODY_BYTES = 32 * 1024  # what `remember` accepts (an entry is a fact, not a document)
# Frontmatter is a few short fields; anything bigger is not an entry Claude wrote. The cap
# bounds what one hostile file can cost every command that reads the tier (docs/adr/0018).
MAX_FRONTMATTER = 64 * 1024
MAX_SHOWN_NAME = 200
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*", re.ASCII)
_FENCE_RUN = re.compile(r"`{3,}|~{3,}")


class EntryParseError(ValueError):
    """The file cannot be read as an entry; it is reported and left untouched."""


@functools.cache
def _loader() -> Any:
    """Safe loader that keeps timestamps as the strings they were written as.

    Built on first use: PyYAML costs ~15 ms to import, and `coffer where` or a read served
    from the search cache never parses an entry (ADR 0023)."""
    import yaml

    base = yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader

    class _Loader(base):  # type: ignore[valid-type,misc]
        pass

    _Loader.yaml_implicit_resolvers = {
        key: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return _Loader


_NO_METADATA: Mapping[str, Any] = MappingProxyType({})


class Entry(NamedTuple):
    """A parsed entry. ``metadata`` holds every key Claude would see under ``metadata``."""

    name: str
    description: str
    body: str
    metadata: Mapping[str, Any] = _NO_METADATA
    filename: str = ""
    # Why the entry may no longer be true (coffer.store.freshness), judged when the tier is
    # read; never written to the file.
    stale: str = ""
    recalled: int = 0  # how often recall returned it (coffer.store.recalls); not in the file

    @property
    def type(self) -> str | None:
        """``metadata.type`` when it is one of :data:`TYPES`, else None: an unknown type is
        never shown, so it cannot carry a token, a fence or a marker into a rendered file."""
        value = self.metadata.get("type")
        return value if isinstance(value, str) and value in TYPES else None

    @property
    def id(self) -> str | None:
        value = self.metadata.get("id")
        return value if isinstance(value, str) else None

    @property
    def updated_at(self) -> str:
        value = self.metadata.get("updated_at") or self.metadata.get("modified") or ""
        return str(value)


class Verdict(NamedTuple):
    """The gate's labels for one entry: in its text (what a rendered body shows), and in its
    text or its file name (what keeps the entry out of every rendered file and message)."""

    content: tuple[str, ...]
    withheld: tuple[str, ...]


# The gate's verdicts on entries, by (file name, name, description, body): a command renders
# each entry up to three times (MEMORY.md twice, the block once) and `doctor` checks each one
# twice, and the search cache hands in the verdict it took when the file last changed, so no
# entry is scanned again unchanged.
_VERDICTS: dict[tuple[str, str, str, str], Verdict] = {}
_MAX_VERDICTS = 20_000  # a long-running watcher or MCP server starts over past this


def verdict(entry: Entry) -> Verdict:
    """The gate's verdict on ``entry``: taken once per text, or handed in by the search cache."""
    key = (entry.filename, entry.name, entry.description, entry.body)
    found = _VERDICTS.get(key)
    if found is None:
        # ``type`` is one of TYPES or nothing, so it holds no secret.
        content = tuple(find_secrets("\n".join(key[1:])))
        named = tuple(x for x in find_secrets(entry.filename) if x not in content)
        found = Verdict(content, content + named)
        known_secrets(entry, found)
    return found


def known_secrets(entry: Entry, found: Verdict) -> None:
    """Record the gate's verdict on ``entry``, taken earlier (the search cache's)."""
    if len(_VERDICTS) >= _MAX_VERDICTS:
        _VERDICTS.clear()
    _VERDICTS[(entry.filename, entry.name, entry.description, entry.body)] = found


def content_secrets(entry: Entry) -> list[str]:
    """Secret labels in the text of ``entry`` that reaches a rendered file (name,
    description, body)."""
    return list(verdict(entry).content)


def withheld(entry: Entry) -> list[str]:
    """Secret labels found in any part of ``entry`` that can reach a rendered file (name,
    description, type, body) or a message (its file name); empty when it may be shown."""
    return list(verdict(entry).withheld)


def slugify(text: str, limit: int = MAX_NAME) -> str:
    """Kebab-case ``text``: lowercase ASCII letters and digits joined by single dashes."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower(), flags=re.ASCII).strip("-")
    if len(out) > limit:
        out = out[:limit].rstrip("-")
    return out


# Words a name must not end on: `the-api-uses-port-7070-in` reads as cut mid-phrase.
_STOP_WORDS = (
    "a an the and or but nor of to in on at by for from with into onto as is are was were be "
    "that which who this these those its our your their than then so if"
)
_TRAILING_STOP_WORDS = frozenset(_STOP_WORDS.split())


def derived_name(text: str) -> str:
    """The name ``coffer remember`` gives ``text`` when none is passed."""
    # Short names make readable file names and index lines: the first six words at most,
    # cut where a phrase can end (never on "in", "of", "the" ...).
    words = slugify(text, limit=200).split("-")[:6]
    while len(words) > 1 and words[-1] in _TRAILING_STOP_WORDS:
        words.pop()
    name = slugify("-".join(words), limit=48)
    if len(name) < len("-".join(words)):
        # Cut by the length limit: end on a whole word, and again not on a stop word.
        kept = name.split("-")
        if len(kept) > 1 and not "-".join(words).startswith(name + "-"):
            kept.pop()  # the last word was cut in the middle
        while len(kept) > 1 and kept[-1] in _TRAILING_STOP_WORDS:
            kept.pop()
        name = "-".join(kept)
    return name


def _is_slug(name: str) -> bool:
    """Lowercase ASCII words joined by single hyphens."""
    return _SLUG.fullmatch(name) is not None


def check_name(name: str) -> str:
    """Return ``name`` if it is a valid entry name, else raise a clear error."""
    if not name or len(name) > MAX_NAME or not _is_slug(name):
        # The rejected name is echoed, so a token pasted as a name is redacted first.
        shown = redact(name)
        example = slugify(name) if shown == name else ""
        raise InvalidInputError(
            f"invalid entry name {shown!r}: use lowercase letters, digits and single dashes "
            f"(at most {MAX_NAME} characters), e.g. {example or 'release-process'!r}"
        )
    check_not_reserved(name)
    return name


def check_not_reserved(name: str) -> None:
    """Refuse a name Windows reserves for a device (``con``, ``nul``, ``com1``…) on every
    system, so a store made anywhere syncs to a Windows machine."""
    if reserved_name(name):
        raise InvalidInputError(
            f"invalid entry name {name!r}: Windows reserves it for a device; e.g. {name}-notes"
        )


def unreserved(name: str) -> str:
    """A derived ``name``, or where Windows reserves it, the variant ``<name>-notes``."""
    return f"{name}-notes" if reserved_name(name) else name


def check_type(value: str | None) -> str | None:
    if value is not None and value not in TYPES:
        raise InvalidInputError(f"invalid type {value!r}: choose one of {', '.join(TYPES)}")
    return value


def one_line(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """Collapse whitespace to single spaces and cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def same_text_key(body: str) -> str:
    """What two bodies must share to be the same memory: the words, whatever the spacing."""
    return " ".join(body.split())


def first_line(body: str) -> str:
    for line in body.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped:
            return one_line(stripped)
    return ""


def shown_field(value: object, limit: int) -> str:
    """A frontmatter value made safe to show on one line of a rendered file.

    Characters nobody sees are dropped, whitespace (line breaks included) collapses to single
    spaces, ``<!--`` becomes ``&lt;!--`` and runs of three backticks or tildes are escaped,
    so the value can neither forge a marker or an index line nor open a code fence.
    """
    text = one_line(visible(str(value)), limit).replace("<!--", "&lt;!--")
    if "```" not in text and "~~~" not in text:
        return text
    return _FENCE_RUN.sub(lambda m: "\\" + "\\".join(m[0]), text)


def _refuse_aliases(front: str) -> None:
    """Raise if the frontmatter uses a YAML alias.

    An alias makes the loader share one node many times over, so nine levels of anchors
    ("billion laughs") expand into billions of nodes once anything walks the result. Claude's
    format never needs them; the event stream is read without building anything, so this
    costs one cheap pass, and only for frontmatter that holds a ``*`` at all.
    """
    if "*" not in front:
        return
    import yaml

    for event in yaml.parse(front, Loader=_loader()):
        if isinstance(event, yaml.AliasEvent):
            mark = event.start_mark
            where = f" (frontmatter line {mark.line + 2})" if mark is not None else ""
            raise EntryParseError(f"frontmatter uses a YAML alias{where}; coffer refuses them")


def _split(text: str) -> tuple[str | None, str]:
    """(frontmatter text or None, body)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return None, text
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    raise EntryParseError("frontmatter starts with '---' but has no closing '---' line")


def _yaml_front(front: str) -> dict[str, Any]:
    """Frontmatter beyond the simple shape (coffer.store.frontmatter), through PyYAML."""
    import yaml

    try:
        _refuse_aliases(front)
        loaded = yaml.load(front, Loader=_loader())  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (frontmatter line {mark.line + 2})" if mark is not None else ""
        raise EntryParseError(f"frontmatter is not valid YAML{where}") from None
    except EntryParseError:
        raise
    except (RecursionError, MemoryError, OverflowError, ValueError) as exc:
        # Deep nesting and absurd scalars fail inside the loader, not as YAMLError.
        raise EntryParseError(f"frontmatter cannot be loaded ({type(exc).__name__})") from None
    if loaded is not None and not isinstance(loaded, dict):
        raise EntryParseError("frontmatter is not a mapping of keys to values")
    return {str(k): v for k, v in (loaded or {}).items()}


def parse(text: str, filename: str) -> Entry:
    """Parse an entry file's text. Raises EntryParseError for files that cannot be entries."""
    stem = filename[:-3] if filename.endswith(".md") else filename
    front, body = _split(text)
    data: dict[str, Any] = {}
    if front is not None and len(front) > MAX_FRONTMATTER:
        raise EntryParseError(
            f"frontmatter is {len(front)} characters; entries allow at most {MAX_FRONTMATTER}"
        )
    if front is not None and front.strip():
        from coffer.store.frontmatter import simple

        data = simple(front) or _yaml_front(front)
    # Renderers drop NULs and lone surrogates; dropping them here means the secret gate
    # sees exactly the text that can reach a rendered file.
    body = body.lstrip("\r\n").replace("\x00", "")
    body = body.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")
    meta_raw = data.get("metadata")
    if meta_raw is not None and not isinstance(meta_raw, dict):
        raise EntryParseError("'metadata' is not a mapping")
    metadata: dict[str, Any] = {
        k: v for k, v in data.items() if k not in {"name", "description", "metadata"}
    }
    metadata.update({str(k): v for k, v in (meta_raw or {}).items()})
    name = data.get("name")
    name = shown_field(name, MAX_SHOWN_NAME) if name not in (None, "") else ""
    name = name or shown_field(stem, MAX_SHOWN_NAME)
    description = data.get("description")
    description = shown_field(description, MAX_DESCRIPTION) if description not in (None, "") else ""
    description = description or shown_field(first_line(body), MAX_DESCRIPTION)
    return Entry(
        name=name, description=description, body=body, metadata=metadata, filename=filename
    )


def serialize(entry: Entry) -> str:
    """The file text for ``entry``: name, description, metadata (known keys first), body."""
    meta = dict(entry.metadata)
    ordered: dict[str, Any] = {}
    for key in ("type", *COFFER_KEYS):
        if meta.get(key) not in (None, ""):
            ordered[key] = meta.pop(key)
    ordered.update(meta)
    front: dict[str, Any] = {"name": entry.name, "description": entry.description}
    if ordered:
        front["metadata"] = ordered
    from coffer.store.frontmatter import dumped as simply_dumped

    # Without PyYAML where the text is sure (a write saves its import, docs/adr/0049).
    dumped = simply_dumped(front)
    if dumped is None:
        import yaml

        dumped = yaml.safe_dump(
            front, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
        )
    body = entry.body.strip("\n")
    return f"---\n{dumped}---\n\n{body}\n" if body else f"---\n{dumped}---\n"
