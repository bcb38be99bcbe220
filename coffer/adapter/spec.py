"""One shape for the simple adapters: a managed block in a file the agent reads, maybe a
global file, nothing of its own to switch off (issue 12 §3, docs/adr/0027).

Such an adapter is a few lines of data::

    SPEC = AgentSpec(
        name="vibe",
        config=Place("~/.vibe", env="VIBE_HOME"),
        executables=("vibe",),
        project=Render(("{root}/AGENTS.md",)),
        global_=Render(("{config}/AGENTS.md",)),
        facts=AgentFacts(title="Mistral Vibe", ...),
    )
    NAME, detect, targets, inputs, native_memory = SPEC.members()
    FACTS = SPEC.facts

and the module is an adapter like any other, found through the ``coffer.adapters``
entry-point group. Paths are templates (coffer.adapter.facts.TEMPLATE_ROOTS). Everything the
spec plans is read-only and comes from the Context, and ``inputs`` is derived from the
spec (every environment variable and every file that decides a target), so it cannot be
forgotten. Names no agent; building a spec does no I/O.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from coffer.adapter import ConfigEdit, Context, Launch, Mode, NativeMemory, Target, TierName
from coffer.adapter.facts import AgentFacts
from coffer.adapter.helpers import env_dir, on_path, xdg_config
from coffer.adapter.templates import BySystem, Template
from coffer.adapter.wiring import Wire, edits

# Where Windows keeps a user's roaming and local application data, as the agents find them:
# the variable, else its usual place under the profile (VS Code's userDataPath.js and
# Crush's config loader fall back the same way).
_APPDATA = {
    "$APPDATA": ("APPDATA", "AppData/Roaming"),
    "$LOCALAPPDATA": ("LOCALAPPDATA", "AppData/Local"),
}


class Place(NamedTuple):
    """The agent's config directory: ``default`` (a template) unless ``env`` names one."""

    default: Template
    env: str = ""
    expand: bool = True  # whether ``~`` in the variable's value is expanded


class Candidate(NamedTuple):
    """A file the agent reads, unless one of ``unless`` is set in the environment."""

    path: str
    unless: tuple[str, ...] = ()


class Render(NamedTuple):
    """A tier rendered as a managed block: into the first of ``files`` that exists (the
    agent reads that one), else into ``create`` (default: the first of ``files``)."""

    files: tuple[str | Candidate, ...]
    create: str = ""
    max_bytes: int | None = None  # the most bytes the file may hold for the agent to read it all
    note: str = ""
    # names in the same directory the agent stops reading once the chosen file exists
    # (OpenCode reads AGENTS.md instead of CLAUDE.md): said in a note before coffer creates it
    displaces: tuple[str, ...] = ()
    # environment variables that stop the agent reading the file: the target is inactive
    off_env: tuple[str, ...] = ()


class Nothing(NamedTuple):
    """A tier coffer does not project into (NONE), with the reason shown to the user.
    ``path`` names what the user would look at (a config file, the config directory)."""

    note: str
    path: str = "{config}"


class Presence(NamedTuple):
    """What says a spec's agent is installed: its config directory, other paths, its
    executables. Plain strings, so the registry can keep them and detect an agent that is
    not installed without importing its module (coffer.adapter.deferred, docs/adr/0037)."""

    name: str
    config: Place
    installed: tuple[str, ...] = ()
    executables: tuple[str, ...] = ()

    def detect(self, ctx: Context) -> bool:
        """Installed: the config directory exists, or an ``installed`` path does, or one of
        the executables is on PATH (the stats first: they cost least)."""
        config = self.config_dir(ctx)
        if config.is_dir():
            return True
        for template in self.installed:
            path = resolve(template, ctx, config)
            if path is not None and _exists(path):
                return True
        return any(on_path(ctx, exe) for exe in self.executables)

    def config_dir(self, ctx: Context) -> Path:
        value = ctx.environ.get(self.config.env, "").strip() if self.config.env else ""
        if value:
            return Path(value).expanduser() if self.config.expand else Path(value)
        path = resolve(self.config.default, ctx, None)
        if path is None:
            raise SpecError(f"{self.name}: config default {self.config.default!r} is unresolvable")
        return path

    def watched(self, ctx: Context) -> list[Path]:
        """The paths whose appearing makes ``detect`` true (a glob's directory): what a
        no-op stamp watches for the agent being installed later. PATH is not among them."""
        config = self.config_dir(ctx)
        out = [config]
        for template in self.installed:
            path = resolve(template, ctx, config)
            if path is not None:
                out.append(path.parent if "*" in path.name else path)
        return out


class Members(NamedTuple):
    """The required members of the adapter contract, built from a spec."""

    NAME: str
    detect: Callable[[Context], bool]
    targets: Callable[[Context], Sequence[Target]]
    inputs: Callable[[Context], tuple[Sequence[str], Sequence[Path]]]
    native_memory: Callable[[Context], NativeMemory | None]


class SpecError(ValueError):
    """A spec whose templates cannot be resolved (a programming error in the adapter)."""


class AgentSpec(NamedTuple):
    """An adapter of the simple shape, as data."""

    name: str
    config: Place
    facts: AgentFacts
    executables: tuple[str, ...] = ()
    # other templates whose existence means the agent is installed (an editor extension's
    # directory; ``*`` allowed in the last component)
    installed: tuple[str, ...] = ()
    project: Render | Nothing | None = None  # None: no project target at all
    global_: Render | Nothing | None = None
    # what `coffer setup` adds to the agent's config (its MCP server, its session-start
    # hook); a module exposes it as ``wiring = SPEC.wiring`` (docs/adr/0033)
    setup: Wire | None = None

    @property
    def env_names(self) -> tuple[str, ...]:
        """Every environment variable the spec's paths depend on (a few list steps; a
        NamedTuple has nowhere to keep them, and a dataclass costs more at import)."""
        return _env_names(self)

    # ---- the contract ----------------------------------------------------------------

    def members(self) -> Members:
        return Members(self.name, self.detect, self.targets, self.inputs, _no_native)

    @property
    def presence(self) -> Presence:
        """What ``detect`` reads, apart from the rest of the spec."""
        return Presence(self.name, self.config, self.installed, self.executables)

    def detect(self, ctx: Context) -> bool:
        return self.presence.detect(ctx)

    def targets(self, ctx: Context) -> Sequence[Target]:
        out: list[Target] = []
        if self.project is not None and ctx.project is not None:
            out.append(self._target(ctx, "project", self.project))
        if self.global_ is not None:
            out.append(self._target(ctx, "global", self.global_))
        return out

    def inputs(self, ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
        """Every environment variable the targets depend on, and every candidate file
        whose appearing or going away changes which file gets the block."""
        files: list[Path] = []
        for tier in (self.project, self.global_):
            if isinstance(tier, Render) and len(tier.files) > 1:
                files += self._existing_choices(ctx, tier)
        return self.env_names, files

    def wiring(self, ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
        """The optional ``wiring`` member, from ``setup`` (nothing without it)."""
        if self.setup is None:
            return ()
        config = self.config_dir(ctx)
        return edits(self.setup, self.name, ctx, launch, lambda t: resolve(t, ctx, config))

    # ---- resolution ------------------------------------------------------------------

    def config_dir(self, ctx: Context) -> Path:
        return self.presence.config_dir(ctx)

    def _existing_choices(self, ctx: Context, render: Render) -> list[Path]:
        config = self.config_dir(ctx)
        out = []
        for item in render.files:
            if isinstance(item, Candidate) and any(ctx.environ.get(v) for v in item.unless):
                continue
            path = resolve(_path(item), ctx, config)
            if path is not None:
                out.append(path)
        return out

    def _target(self, ctx: Context, tier: TierName, how: Render | Nothing) -> Target:
        config = self.config_dir(ctx)
        if isinstance(how, Nothing):
            return Target(
                tier, Mode.NONE, _must(resolve(how.path, ctx, config), how.path), note=how.note
            )
        choices = self._existing_choices(ctx, how)
        # ``create`` counts only while it applies (not switched off by an ``unless``)
        create = resolve(how.create, ctx, config) if how.create else None
        create = create if create in choices else None
        # a file, not a directory of the same name (Cline's .clinerules can be either)
        chosen = next((p for p in choices if p.is_file()), None)
        path = chosen or create or (choices[0] if choices else None)
        path = _must(path, str(how.files))
        off = [v for v in how.off_env if ctx.environ.get(v)]
        notes = [how.note] if how.note else []
        if off:
            notes.append(f"{' and '.join(off)} set: {self.facts.title} does not read it")
        default = create or (choices[0] if choices else path)
        if chosen is not None and chosen != default:
            notes.append(
                f"{chosen.name} exists, so {self.facts.title} reads it instead of {default.name}"
            )
        notes += self._displaced(path, how)
        return Target(
            tier, Mode.RENDER, path, max_bytes=how.max_bytes, note="; ".join(notes), active=not off
        )

    def _displaced(self, path: Path, how: Render) -> list[str]:
        if path.exists():
            return []
        hidden = [n for n in how.displaces if (path.parent / n).exists()]
        if not hidden:
            return []
        return [
            f"once {path.name} exists {self.facts.title} reads it instead of "
            f"{' and '.join(hidden)} here; move shared instructions into {path.name}"
        ]


def resolve(template: Template, ctx: Context, config: Path | None) -> Path | None:
    """The path a template names for ``ctx``; None when it names an unset environment
    variable (that path does not apply) or a project path outside a project. A
    :class:`BySystem` names the first of its templates for ``ctx.system`` that resolves."""
    if isinstance(template, BySystem):
        found = (resolve(t, ctx, config) for t in template.now(ctx.system))
        return next((p for p in found if p is not None), None)
    head, _, rest = template.partition("/")
    base: Path | None
    if head == "~":
        base = ctx.home
    elif head == "{config}":
        base = config
    elif head == "$XDG_CONFIG_HOME":
        base = xdg_config(ctx)
    elif head in _APPDATA:
        name, usual = _APPDATA[head]
        base = env_dir(ctx, name, ctx.home / usual, expand=False)
    elif head in ("{root}", "{cwd}"):
        base = ctx.project  # coffer renders at the project root, where a session starts
    elif head.startswith("${") and head.endswith("}"):
        value = ctx.environ.get(head[2:-1], "").strip()
        base = Path(value).expanduser() if value else None
    else:
        raise SpecError(
            f"path template {template!r} does not start with one of ~, {{config}}, "
            "$XDG_CONFIG_HOME, $APPDATA, $LOCALAPPDATA, {root}, {cwd} or ${NAME}"
        )
    if base is None:
        return None
    return base / rest if rest else base


def _env_names(spec: AgentSpec) -> tuple[str, ...]:
    """Every environment variable the spec's paths depend on, in a stable order."""
    names = [spec.config.env] if spec.config.env else []
    default = spec.config.default
    templates = [*(default.every() if isinstance(default, BySystem) else (default,))]
    templates += spec.installed
    for tier in (spec.project, spec.global_):
        if isinstance(tier, Render):
            names += [
                *tier.off_env,
                *(v for f in tier.files if isinstance(f, Candidate) for v in f.unless),
            ]
            templates += [_path(f) for f in tier.files]
    for template in templates:
        head = template.partition("/")[0]
        if head == "$XDG_CONFIG_HOME":
            names.append("XDG_CONFIG_HOME")
        elif head in _APPDATA:
            names.append(_APPDATA[head][0])
        elif head.startswith("${"):
            names.append(head[2:-1])
    return tuple(dict.fromkeys(names))


def _exists(path: Path) -> bool:
    if "*" not in path.name:
        return path.exists()
    return _matches(path)


def _matches(path: Path) -> bool:
    """Whether the parent holds a name ``path.name`` matches, as ``glob.glob`` would find it
    (hidden names only for a pattern that starts with a dot). An editor extension's
    directory, ``publisher.name-*``, is a prefix test: neither glob's import nor one regex
    per pattern, for a check made at every audit of an agent that is not installed."""
    try:
        names = os.listdir(path.parent)
    except OSError:
        return False
    pattern = path.name
    if not pattern.startswith("."):
        names = [n for n in names if not n.startswith(".")]
    head, _, tail = pattern.partition("*")
    if "*" not in tail and "?" not in pattern and "[" not in pattern:
        least = len(head) + len(tail)
        return any(len(n) >= least and n.startswith(head) and n.endswith(tail) for n in names)
    from fnmatch import fnmatchcase

    return any(fnmatchcase(n, pattern) for n in names)


def _path(item: str | Candidate) -> str:
    return item.path if isinstance(item, Candidate) else item


def _must(path: Path | None, what: str) -> Path:
    if path is None:
        raise SpecError(f"no path applies for {what}")
    return path


def _no_native(ctx: Context) -> NativeMemory | None:
    # Spec adapters describe an agent's own memory in FACTS only; an agent whose memory
    # coffer imports or switches off has a hand-written adapter (codex, claude_code).
    return None
