"""What a session-start hook (``coffer project --hook --for AGENT``) hands to the agent
whose session is starting.

Agents read their memory files *before* their SessionStart hook finishes: Claude Code reads
its auto-memory directory, Codex its ``AGENTS.md`` files and Gemini CLI its ``GEMINI.md``
files first (docs/adr/0012-session-start-handover.md). So when the hook's own projection
run creates or repairs a link, merges a native directory, or changes a block or index the
agent reads, the session that is starting loaded the old state. For exactly those tiers the
hook prints the memory, through the hook's output, which the agent adds to the model's
context; when nothing the agent reads changed it adds nothing (the agent loaded it already).

Names no agent: an adapter may declare how much hook output its agent keeps
(``SESSION_CONTEXT_LIMIT``) and how the output must be framed (``session_context``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import Mode, Target
from coffer.base import fsutil
from coffer.base.report import Report
from coffer.projection.blocks import content
from coffer.store import index

if TYPE_CHECKING:
    from coffer.projection.engine import Engine
    from coffer.store import Here, Tier

# Bytes of hook output when the adapter declares no limit. Claude Code 2.1.332 keeps 10,000
# characters (UTF-16 units) and replaces longer output by a 2 KB preview; Codex keeps about
# 2,500 tokens (~10,000 bytes) and spills the rest to a file. A UTF-8 byte count is never
# below the UTF-16 or the character count of the same text, so bytes are the safe unit.
DEFAULT_LIMIT = 10_000
_MIN_TIER_BUDGET = 600  # below this a tier's rendering is mostly header: point to recall
_RESERVE = 200  # for the line saying what did not fit


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def snapshot(engine: Engine, here: Here) -> dict[Path, bytes | None]:
    """Each existing tier's ``MEMORY.md`` before the run, to tell afterwards whether the
    index an agent loaded through its link was stale."""
    root = here.project
    tiers = [engine.store.global_tier()]
    project = engine.store.tier_at(root) if root is not None else None
    if project is not None:
        tiers.append(project)
    return {t.dir: fsutil.read_bytes_or_none(t.dir / index.INDEX_NAME) for t in tiers}


def framer(engine: Engine, agent: str) -> Callable[[str], str]:
    """How ``agent`` wants hook text printed (its adapter's ``session_context``), or as is."""
    frame = engine.loaded.features(agent).session_context
    if frame is None:
        return lambda text: text
    return lambda text: str(frame(text)) if text else ""


def limit(engine: Engine, agent: str) -> int:
    return engine.loaded.features(agent).session_context_limit or DEFAULT_LIMIT


def stale_tiers(
    engine: Engine,
    here: Here,
    agent: str,
    report: Report,
    before: Mapping[Path, bytes | None],
) -> list[Tier]:
    """The tiers ``agent`` read in a state this run changed, project tier first."""
    adapter = engine.loaded.adapters.get(agent)
    if adapter is None:
        return []
    root = here.project
    ctx = engine.context(root)
    tiers: dict[str, Tier | None] = {
        "project": engine.store.tier_at(root) if root is not None else None,
        "global": engine.store.global_tier(),
    }
    changed = {c.path for c in report.changes}
    out: list[Tier] = []
    seen: set[Path] = set()
    none: Sequence[Target] = ()
    targets = engine.call_adapter(agent, Report(), lambda: adapter.targets(ctx), none)
    for target in sorted(targets, key=lambda t: t.tier != "project"):
        tier = tiers.get(target.tier)
        if tier is None or not target.active or target.mode is Mode.NONE or tier.dir in seen:
            continue
        index_moved = target.mode is Mode.SYMLINK and before.get(tier.dir) != (
            fsutil.read_bytes_or_none(tier.dir / index.INDEX_NAME)
        )
        if target.path in changed or index_moved:
            out.append(tier)
            seen.add(tier.dir)
    return out


def memory_text(engine: Engine, tiers: Sequence[Tier], budget: int) -> str:
    """The entries of ``tiers`` rendered as the blocks render them, within ``budget`` bytes,
    with a line naming what did not fit."""
    from coffer.projection.engine import block_title

    sections: list[str] = []
    left = budget - _RESERVE
    missing: list[str] = []
    pending = [(t, list(engine.store.scan(t).entries)) for t in tiers]
    pending = [(t, entries) for t, entries in pending if entries]
    if not pending:
        return ""
    intro = (
        "Coffer put this memory in place after the session had loaded its files, so it "
        "is handed over here once; later sessions load it directly."
    )
    left -= _size(intro) + 2
    for i, (tier, entries) in enumerate(pending):
        share = left // (len(pending) - i)
        if share < _MIN_TIER_BUDGET:
            count = f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}"
            missing.append(f"the {tier.scope} memory ({count})")
            continue
        body = content.render(block_title(tier), tier.scope, entries, share).body
        sections.append(body)
        left -= _size(body) + 2
    text = "\n\n".join([intro, *sections])
    if missing:
        text += f"\n\nNot shown for lack of room: {', '.join(missing)}; `coffer list` lists them."
    return _fit(text, budget)


def _fit(text: str, budget: int) -> str:
    """A last guard: never hand the agent more than it keeps (cut at a line end)."""
    if _size(text) <= budget:
        return text
    note = "\n…cut here to fit the session-start budget: `coffer recall <words>` finds the rest."
    raw = text.encode("utf-8")[: budget - _size(note)].decode("utf-8", "ignore")
    return raw[: raw.rfind("\n")] + note if "\n" in raw else raw + note


def session_note(session_id: str) -> str:
    """The line that tells the model its session's id, so what it remembers records where
    it came from (``origin_session_id``, issue 28 §3)."""
    return (
        f"This session's id is `{session_id}`. When you save a memory with coffer, pass it "
        f"as `origin_session_id` (the `remember` tool) or as `--origin-session-id "
        f"{session_id}` (`coffer remember`)."
    )


def compose(*parts: str) -> str:
    """The hook's text from its parts, in order, a blank line apart ("" when all are empty)."""
    text = "\n\n".join(part.strip("\n") for part in parts if part)
    return text + "\n" if text else ""


def hook_context(
    engine: Engine,
    here: Here,
    agent: str,
    report: Report,
    before: Mapping[Path, bytes | None] | None,
    lead: str,
) -> str:
    """The text the hook hands the model: ``lead`` (the session's id and the vault
    handoffs, printed at every session start) and, when ``before`` is given (a real run) and
    this run changed what ``agent`` read, that memory. Unframed: see ``framer``."""
    memory = ""
    if before is not None:
        tiers = stale_tiers(engine, here, agent, report, before)
        if tiers:
            room = limit(engine, agent) - _size(lead) - 2
            memory = memory_text(engine, tiers, room)
    return compose(lead, memory)
