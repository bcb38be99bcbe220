"""Which files an agent's FACTS name for one session, in the agent's order, and whether each
is read: templates resolved, walks expanded, globs listed, conditions and shadowing applied.

Read-only and agent-neutral: every agent-specific fact arrives in the adapter's
``AgentFacts`` (docs/adr/0029). Only files that exist are returned; a file the facts name
that is not there is nothing the agent loads and nothing to explain.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Context, Mode, Target
from coffer.adapter.facts import TEMPLATE_ROOTS, AgentFacts, Cap, Imports, Load, Setting, Walk
from coffer.adapter.helpers import read_json, read_toml
from coffer.adapter.spec import SpecError, resolve

if TYPE_CHECKING:
    from typing import Any

_WALKED = ("{cwd}", "{root}")
_ROOTS = frozenset(TEMPLATE_ROOTS)


class Session(NamedTuple):
    """The session being explained: where it starts and what the adapter resolved."""

    cwd: Path
    root: Path | None  # the repository root the agents see (nearest .git), else coffer's
    ctx: Context
    config: Path | None  # what ``{config}`` means for this adapter
    targets: dict[str, list[Target]]  # the adapter's targets, by tier


class Found(NamedTuple):
    """One existing file a Load names, and why the agent skips it (``state``)."""

    path: Path
    load: Load
    state: str  # "loaded", "shadowed" or "off"
    by: Path | None = None  # the file that hides it
    why: str = ""  # why it is off
    caps: tuple[Cap, ...] = ()  # the Load's caps, with the user's limits, for a loaded file
    via: Path | None = None  # the file whose ``@`` import brought this one in


def walk_dirs(walk: Walk, cwd: Path, root: Path | None) -> list[Path]:
    """The directories of ``walk``, in the order the agent visits them."""
    up = [cwd, *cwd.parents]
    inside = up[: up.index(root) + 1] if root is not None and root in up else [cwd]
    outermost = inside[-1]
    if walk == "root":
        return [outermost]
    if walk == "cwd":
        return [cwd]
    if walk == "cwd-up-past-root":
        return [*inside, outermost.parent] if outermost.parent != outermost else inside
    if walk == "above-root-down-to-cwd":
        above = [outermost.parent] if outermost.parent != outermost else []
        return above + inside[::-1]
    if walk in ("root-down-to-cwd", "trusted-down-to-cwd"):
        return inside[::-1]
    if walk == "fs-root-down-to-cwd":
        return up[::-1]
    return inside  # cwd-up-to-root, cwd-up-to-trusted: nearest first


def memory_link(session: Session, scope: str) -> Target | None:
    """The adapter's link target of ``scope``: the memory directory ``{memory}`` names."""
    return next((t for t in session.targets.get(scope, []) if t.mode is Mode.SYMLINK), None)


def _walked(load: Load) -> bool:
    return load.scope == "project" and load.path.partition("/")[0] in _WALKED


def path_of(
    template: str, session: Session, scope: str, directory: Path | None = None
) -> Path | None:
    """The path ``template`` names; ``directory`` stands for a walked ``{cwd}``/``{root}``.
    None when it does not apply (an unset variable, no target of that scope)."""
    head, _, rest = template.partition("/")
    base: Path | None
    if head in _WALKED and directory is not None:
        base = directory
    elif head == "{cwd}":
        base = session.cwd
    elif head == "{root}":
        base = session.root or session.cwd
    elif head == "{memory}":
        link = memory_link(session, scope)
        base = link.path if link is not None else None
    else:
        try:
            return resolve(template, session.ctx, session.config)
        except SpecError:
            return None  # {config} of an adapter that does not say where its config is
    if base is None:
        return None
    return base / rest if rest else base


def _expand(path: Path) -> list[Path]:
    if "*" not in str(path):
        return [path] if path.is_file() else []
    import glob  # only for the Loads that name a glob

    return [Path(p) for p in sorted(glob.glob(str(path), recursive=True)) if Path(p).is_file()]


def _groups(facts: AgentFacts) -> list[list[Load]]:
    """The Loads, with consecutive walked ones of one walk merged when the agent reads
    directory by directory."""
    out: list[list[Load]] = []
    for load in facts.loads:
        last = out[-1][-1] if out else None
        if (
            facts.order == "by-directory"
            and last is not None
            and _walked(load)
            and _walked(last)
            and last.walk == load.walk
        ):
            out[-1].append(load)
        else:
            out.append([load])
    return out


def _named(group: Sequence[Load], session: Session) -> Iterator[tuple[Load, Path]]:
    if not _walked(group[0]):
        for load in group:
            path = path_of(load.path, session, load.scope)
            yield from ((load, p) for p in (_expand(path) if path is not None else []))
        return
    dirs = walk_dirs(group[0].walk, session.cwd, session.root)
    if len(group) == 1:  # by file: each Load's whole walk before the next Load
        order = [(group[0], d) for d in dirs]
    else:
        order = [(load, d) for d in dirs for load in group]
    for load, d in order:
        path = path_of(load.path, session, load.scope, d)
        yield from ((load, p) for p in (_expand(path) if path is not None else []))


def found(facts: AgentFacts, session: Session) -> list[Found]:
    """Every existing file the facts name, in load order, each once (a global file a walk
    meets again, ``~/.claude/CLAUDE.md`` from a session under ``~``, stays global)."""
    groups = _groups(facts)
    own = {p for g in groups if not _walked(g[0]) for _, p in _named(g, session)}
    seen: set[tuple[int, int]] = set()
    out: list[Found] = []
    for group in groups:
        for load, path in _named(group, session):
            key = _identity(path)
            if key in seen:
                continue
            seen.add(key)
            judged = _judge(load, path, session, own)
            out.append(judged)
            if facts.imports is not None and judged.state == "loaded":
                out += _imported(facts.imports, judged, session, seen, 1)
    return out


def _imported(
    imports: Imports, by: Found, session: Session, seen: set[tuple[int, int]], depth: int
) -> list[Found]:
    """The files ``by`` imports, each right after the file importing it (and its own
    imports after it), as far down as the agent follows them. A file already loaded is not
    loaded again; one the agent refuses (outside the start directory, unapproved) is
    listed ``off`` with the reason."""
    from coffer.projection.blocks import imports as parse

    if depth >= imports.depth:
        return []
    try:
        text = by.path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return []
    out: list[Found] = []
    for token in parse.tokens(text):
        path = parse.resolve(token, by.path, session.ctx.home)
        if not path.is_file() or _identity(path) in seen:
            continue
        seen.add(_identity(path))
        load = Load(f"@{token}", by.load.scope, how=by.load.how)
        refused = by.load.scope == "project" and not _within(path, session.cwd)
        if refused and not any(_holds(s, session) for s in imports.outside_cwd_unless):
            out.append(Found(path, load, "off", why=imports.outside_cwd_note, via=by.path))
            continue
        found = Found(path, load, "loaded", via=by.path)
        out += [found, *_imported(imports, found, session, seen, depth + 1)]
    return out


def _within(path: Path, directory: Path) -> bool:
    try:
        return path.resolve().is_relative_to(directory.resolve())
    except OSError:
        return False


def _judge(load: Load, path: Path, session: Session, own: set[Path]) -> Found:
    env = [v for v in load.unless_env if session.ctx.environ.get(v, "").strip()]
    if env:
        return Found(path, load, "off", why=f"{' and '.join(env)} set")
    if load.if_setting is not None and not _holds(load.if_setting, session):
        s = load.if_setting
        where = path_of(s.file, session, "global") or s.file
        why = f"read only when {where} sets {'.'.join(s.key)} to {json.dumps(s.has)}"
        return Found(path, load, "off", why=why)
    link = memory_link(session, load.scope) if load.path.startswith("{memory}") else None
    if link is not None and not link.active:
        return Found(path, load, "off", why=link.note or "switched off")
    lifted = load.unshadowed_if is not None and _holds(load.unshadowed_if, session)
    by = None if lifted else _shadow(load, path, session, own)
    if by is not None:
        return Found(path, load, "shadowed", by)
    return Found(path, load, "loaded", caps=_caps(load, session))


def _shadow(load: Load, path: Path, session: Session, own: set[Path]) -> Path | None:
    """The file that hides ``path``; a file the agent reads as a global one never hides a
    project file (Claude's ``~/.claude/CLAUDE.md`` does not hide a project's AGENTS.md)."""
    for name in load.shadowed_by:
        if name.partition("/")[0] in _ROOTS or name.startswith("${"):
            hit = path_of(name, session, load.scope)
            places = [hit] if hit is not None else []
        elif load.shadow_walk is not None:
            places = [d / name for d in walk_dirs(load.shadow_walk, session.cwd, session.root)]
        else:
            places = [path.parent / name]
        for place in places:
            if place in (path, *own) and load.scope == "project":
                continue
            if "*" in str(place) and _expand(place):
                return place
            if place.exists() and _identity(place) != _identity(path):
                return place
    return None


def _value(file: str, key: tuple[str, ...], session: Session) -> Any:
    """The value at ``key`` in the user's JSON or TOML file ``file`` (a template), or None."""
    path = path_of(file, session, "global")
    if path is None:
        return None
    data: Any = read_toml(path) if path.suffix == ".toml" else read_json(path)
    places = {"{cwd}": str(session.cwd), "{root}": str(session.root or session.cwd)}
    for name in key:
        name = places.get(name, name)  # a key naming the session's directory (Claude's projects)
        data = data.get(name) if isinstance(data, dict) else None
    return data


def _identity(path: Path) -> tuple[int, int]:
    """The file itself: on a case-insensitive disk ``agents.md`` and ``AGENTS.md`` are one
    file, which neither repeats nor hides itself."""
    try:
        st = path.stat()
    except OSError:
        return (-1, hash(path))
    return (st.st_dev, st.st_ino)


def _holds(setting: Setting, session: Session) -> bool:
    data = _value(setting.file, setting.key, session)
    return data == setting.has or (isinstance(data, list) and setting.has in data)


def _caps(load: Load, session: Session) -> tuple[Cap, ...]:
    """The Load's caps, each with the limit the user's setting gives it, if any."""
    out = []
    for cap in load.caps:
        value = _value(cap.limit_file, cap.limit_key, session) if cap.limit_key else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            cap = cap._replace(limit=value)
        out.append(cap)
    return tuple(out)
