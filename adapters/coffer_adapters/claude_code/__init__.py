"""Claude Code: the project tier *is* Claude's auto-memory directory (a symlink to the
tier directory); the global tier is a managed block in the user's ``CLAUDE.md``.

Facts, as observed with Claude Code 2.1.197 and 2.1.332: the memory
directory is ``<base>/projects/<slug>/memory`` keyed by the canonical git root; the slug is
computed over UTF-16 code units with a 200-unit limit and a Java-hashCode suffix. Claude's
auto-memory stays on. A project-level ``CLAUDE.md`` is never created: since 2.1.332 its mere
existence stops Claude from reading the project's ``AGENTS.md``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import (
    ConfigEdit,
    Context,
    Launch,
    LinkCheck,
    Mode,
    Target,
    no_native_memory,
)
from coffer.adapter.helpers import detected_by, per_tier, read_json
from coffer.adapter.templates import BySystem
from coffer_adapters.claude_code.facts import FACTS as FACTS

if TYPE_CHECKING:
    from typing import Any

NAME = "claude"
native_memory = no_native_memory  # the store *is* Claude's memory: nothing competes
# Vault handoffs addressed to either name reach Claude: ECC's own slug is `claude`
# (docs/vault-format.md §2.4 Example B); `claude-code` is the tool's name, which people write too.
HARNESSES = ("claude", "claude-code")
# A SessionStart hook's plain stdout becomes context; over 10,000 characters Claude keeps
# only a 2 KB preview and a path to the rest (2.1.332, run: docs/adr/0012).
SESSION_CONTEXT_LIMIT = 10_000
# The project tier is the linked directory, so the team tier (docs/adr/0036) goes into the
# instruction file Claude reads at the root: an existing CLAUDE.md, else AGENTS.md, which
# 2.1.332 reads while no CLAUDE.md exists (a CLAUDE.md is never created: it would hide it).
TEAM_FILES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")

_MAX_UNITS = 200
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_DIR_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII)
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
# The administrator's policy file, an absolute path per system (code.claude.com/docs/en/
# settings, "Settings files"). On Windows Claude reads C:\Program Files\ClaudeCode
# whatever %ProgramFiles% says (anthropics/claude-code#77835); C:\ProgramData\ClaudeCode
# is deprecated since 2.1.2 and no longer read since 2.1.75 (anthropics/claude-code#18720).
_MANAGED_SETTINGS = BySystem(
    "/etc/claude-code/managed-settings.json",
    darwin="/Library/Application Support/ClaudeCode/managed-settings.json",
    win32="C:\\Program Files\\ClaudeCode\\managed-settings.json",
)


def _units(text: str) -> list[int]:
    """The UTF-16 code units of ``text``, as JavaScript sees the string."""
    units = [ord(c) for c in text]
    if max(units, default=0) < 0x10000:  # one unit per character (a lone surrogate included)
        return units
    raw = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]


def _base36(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _B36[r] + out
        if n == 0:
            return out


def slug(path: str) -> str:
    """Claude Code's directory name for a project root, exactly as Claude computes it."""
    units = _units(path)
    sanitized = "".join(
        chr(u) if 48 <= u <= 57 or 65 <= u <= 90 or 97 <= u <= 122 else "-" for u in units
    )
    if len(sanitized) <= _MAX_UNITS:
        return sanitized
    h = 0
    for u in units:  # Java's String.hashCode over the *unsanitised* path
        h = (h * 31 + u) & 0xFFFFFFFF
    if h >= 1 << 31:
        h -= 1 << 32
    return f"{sanitized[:_MAX_UNITS]}-{_base36(abs(h))}"


def config_root(ctx: Context) -> Path:
    explicit = ctx.environ.get("CLAUDE_CONFIG_DIR", "")
    if explicit:
        return Path(unicodedata.normalize("NFC", explicit)).expanduser()
    return ctx.home / ".claude"


detect = detected_by(config_root, "claude")
config_dir = config_root  # what {config} means in FACTS (coffer explain)


def _settings_files(ctx: Context) -> list[tuple[str, Path]]:
    # Highest precedence first: policy, then the project's local and shared settings,
    # then the user's; Claude takes a key from the first of them that sets it.
    files = [("policy", Path(_MANAGED_SETTINGS.now(ctx.system)[0]))]
    if ctx.project is not None:
        files += [
            ("project-local", ctx.project / ".claude" / "settings.local.json"),
            ("project", ctx.project / ".claude" / "settings.json"),
        ]
    files.append(("user", config_root(ctx) / "settings.json"))
    return files


def _setting(ctx: Context, key: str) -> tuple[Any, str, Path] | None:
    for level, path in _settings_files(ctx):
        value = read_json(path).get(key)
        if value is not None:
            return value, level, path
    return None


def _env_flag(ctx: Context, name: str) -> str | None:
    value = ctx.environ.get(name)
    if value is None:
        env_block = read_json(config_root(ctx) / "settings.json").get("env")
        if isinstance(env_block, dict) and isinstance(env_block.get(name), str):
            value = env_block[name]
    return value.strip().lower() if isinstance(value, str) else None


def auto_memory_on(ctx: Context) -> tuple[bool, str]:
    flag = _env_flag(ctx, "CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    if flag in _TRUE:
        return False, "CLAUDE_CODE_DISABLE_AUTO_MEMORY turns Claude's auto-memory off"
    if flag in _FALSE:
        return True, ""
    found = _setting(ctx, "autoMemoryEnabled")
    if found is not None and found[0] is False:
        return False, f"autoMemoryEnabled is false in {found[2]}"
    return True, ""


def memory_dir(ctx: Context) -> tuple[Path | None, str]:
    """The directory Claude reads for this project, or None with the reason it is shared."""
    assert ctx.project is not None
    override = ctx.environ.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        return None, (
            "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE points every project at "
            f"{override}; coffer does not link a directory shared by all projects"
        )
    found = _setting(ctx, "autoMemoryDirectory")
    if isinstance(found, tuple) and isinstance(found[0], str) and len(found[0]) >= 3:
        value, level, path = found
        target = Path(value).expanduser() if value.startswith("~/") else Path(value)
        if target.is_absolute():
            if level.startswith("project"):
                return target, f"autoMemoryDirectory in {path} moves Claude's memory here"
            return None, (
                f"autoMemoryDirectory in {path} points every project at {target}; "
                "coffer does not link a directory shared by all projects"
            )
    base = Path(ctx.environ.get("CLAUDE_CODE_REMOTE_MEMORY_DIR") or config_root(ctx))
    name = slug(str(ctx.project))
    custom = ctx.environ.get("CLAUDE_CODE_PROJECT_DIR_NAME", "")
    if (
        ctx.environ.get("CLAUDE_CONFIG_DIR")
        and _DIR_NAME_RE.fullmatch(custom)
        and custom.lower() not in _RESERVED
    ):
        name = custom
    return base / "projects" / name / "memory", ""


def _project(ctx: Context) -> Target:
    directory, note = memory_dir(ctx)
    if directory is None:
        return Target("project", Mode.NONE, config_root(ctx) / "projects", note=note, active=False)
    on, why_off = auto_memory_on(ctx)
    return Target("project", Mode.SYMLINK, directory, note=note or why_off, active=on)


def targets(ctx: Context) -> Sequence[Target]:
    return per_tier(
        ctx,
        lambda _root: _project(ctx),
        Target("global", Mode.RENDER, config_root(ctx) / "CLAUDE.md"),
    )


def inputs(ctx: Context) -> tuple[Sequence[str], Sequence[Path]]:
    env = (
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
        "CLAUDE_CODE_PROJECT_DIR_NAME",
        "CLAUDE_CODE_REMOTE_MEMORY_DIR",
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    )
    files = [path for _, path in _settings_files(ctx)]
    if ctx.project is not None:
        # which of them exists, and whether it imports AGENTS.md, chooses where the team
        # block goes (coffer/projection/team/block.py, docs/adr/0046)
        files += [ctx.project / name for name in TEAM_FILES]
    return env, files


def wiring(ctx: Context, launch: Launch) -> Sequence[ConfigEdit]:
    """`coffer setup`: the user-scope MCP server and a SessionStart hook (claude_code/setup.py)."""
    from coffer_adapters.claude_code import setup

    return setup.edits(ctx, launch, config_root(ctx))


def link_check(ctx: Context) -> LinkCheck | None:
    """Whether Claude's own session transcripts put this project where coffer linked its
    memory (claude_code/transcripts.py, issue 27 point 15)."""
    from coffer_adapters.claude_code import transcripts

    directory, _ = memory_dir(ctx) if ctx.project is not None else (None, "")
    if directory is None:
        return None
    return transcripts.link_check(ctx, directory, config_root(ctx))
