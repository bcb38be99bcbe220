"""How ``coffer project`` runs: plain, as a dry run, or as an agent's session-start hook
(``--hook``, ``--for AGENT``: what the hook prints, docs/adr/0012 and 0013)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base.errors import CofferError
from coffer.base.report import Report
from coffer.cli._out import build_engine, failure_message, named, print_report, project_path
from coffer.projection import hook as hook_mode
from coffer.store import settings

if TYPE_CHECKING:
    from coffer.projection.engine import Engine
    from coffer.store import Here


class Run(NamedTuple):
    """What one `coffer project` was asked to do (its options, the project path resolved)."""

    path: Path
    quiet: bool = False
    dry_run: bool = False
    replace_edited: bool = False
    resume: bool = False
    for_agent: str | None = None
    hook: bool = False


def command(  # noqa: PLR0913 - the options of `coffer project` (coffer.cli.grammar)
    quiet: bool,
    dry_run: bool,
    replace_edited: bool,
    resume: bool,
    for_agent: str | None,
    hook: bool,
    git_block: str | None,
    project: Path | None,
) -> int:
    """`coffer project` from its options (typer's command and the quick path alike)."""
    run = Run(project_path(project), quiet, dry_run, replace_edited, resume, for_agent, hook)
    return start(run, git_block)


def start(run: Run, git_block: str | None) -> int:
    """Run `coffer project` as ``run`` says; its exit code."""
    try:
        engine = build_engine()
        here = engine.store.here(run.path)  # the one resolution of this run (docs/adr/0026)
        if git_block is not None:
            choose_git_block(engine, here, git_block)
        return project(engine, run, here)
    except (CofferError, OSError, UnicodeError) as exc:
        if not run.hook or run.dry_run:
            raise
        return failed_hook(exc)


def failed_hook(exc: CofferError | OSError | UnicodeError) -> int:
    """A session-start hook that could not project (a full disk, an unreadable store,
    damaged settings): the agent must still start, so the hook exits 0 and says why in
    the one message every agent shows at exit 0; stderr has the same line for the
    agents' debug logs. Said at every start, since nothing was projected (docs/adr/0044)."""
    message = str(exc) if isinstance(exc, CofferError) else failure_message(exc)
    line = f"coffer: error: {message}"
    print(line, file=sys.stderr)
    sys.stdout.write(hook_mode.output("", line))
    return 0


def choose_git_block(engine: Engine, here: Here, block: str) -> None:
    root = here.require()
    with engine.store.projection_lock():
        s = settings.load(engine.store.root)
        s.git_commit = [r for r in s.git_commit if r != str(root)]
        if block == "commit":
            s.git_commit.append(str(root))
        settings.save(engine.store.root, s)


def project(engine: Engine, run: Run, here: Here) -> int:
    """Project, print what a person or the agent's hook should see; the exit code."""
    deadline = start_hook(engine) if run.hook and not run.dry_run else None
    before = None
    if run.for_agent and not run.dry_run:
        from coffer.projection import session_context

        before = session_context.snapshot(engine, here)
    try:
        report = engine.project(
            here,
            dry_run=run.dry_run,
            replace_edited=run.replace_edited,
            resume=run.resume,
            deadline=deadline,
        )
    except hook_mode.GaveUp as exc:
        assert deadline is not None  # only a deadline gives up
        end_hook(deadline, "", [f"coffer: {exc}"], None)
        return 0
    except (CofferError, OSError, UnicodeError) as exc:
        if deadline is None:
            raise
        deadline.finish()  # the watchdog must not print over the message
        return failed_hook(exc)
    if deadline is None:
        print_report(report, quiet=run.quiet or run.hook, dry_run=run.dry_run)
    # A hook run's stderr is its message (end_hook): a known refusal said there at every
    # start would be said again in every agent's log, the once-per-change rule broken.
    if not (run.quiet or run.hook or run.dry_run or run.for_agent):
        _setup_hint(engine)
    _hand_over(engine, run, here, report, before, deadline)
    if deadline is not None:
        return 0  # a hook never fails the session; its errors are in the message
    return 0 if report.ok else 1


def _hand_over(
    engine: Engine,
    run: Run,
    here: Here,
    report: Report,
    before: Mapping[Path, bytes | None] | None,
    deadline: hook_mode.Deadline | None,
) -> None:
    """Print the hook's context and messages; remember them for the no-op path."""
    from coffer.projection import fastpath, stamp

    context = handoffs = ""
    frame = None
    # The session id the agent gave its hook (issue 28 §3): handed to the model, which
    # passes it on to `remember`. Only a hook run reads stdin; a person's run never waits.
    session = fastpath.hook_session_id() if run.hook and run.for_agent else None
    if run.for_agent:
        from coffer.projection.session_context import framer

        frame = framer(engine, run.for_agent)  # as the agent reads hook output
        context, handoffs = hook_context(engine, here, run.for_agent, report, before, session)
        if deadline is None:
            sys.stdout.write(frame(context))
    if deadline is not None:
        end_hook(deadline, context, hook_messages(engine, here, report), frame)
    if report.ok and not run.dry_run:
        stamp.record(engine, here)
        if run.for_agent:
            from coffer.projection.session_context import compose, session_note

            # Only the handoffs (and the session's id) are printed again by a run with
            # nothing to do: memory handed to this session is loaded from the agent's own
            # files next time.
            assert frame is not None
            template = compose(session_note(fastpath.SESSION_PLACEHOLDER), handoffs)
            stamp.record_output(engine, here, run.for_agent, frame(handoffs), frame(template))


_HINT = "setup-hint-said"  # in the store's state directory: the hint below was given


def _setup_hint(engine: Engine) -> None:
    """Say once, while no agent's session-start hook is wired, what keeps projections
    current (issue 23): without it, blocks go stale and new repositories are never
    projected, and nothing else would say so."""
    from coffer.base import fsutil

    said = engine.store.root / "state" / _HINT
    if said.exists() or not engine.store.root.is_dir():
        return
    for r in engine.journal.load_all():
        if r.kind == "setup" and any((e.get("keys") or [""])[0] == "hooks" for e in r.edits):
            return
    print(
        "note: no agent runs coffer at session start yet, so these blocks go stale and new "
        "repositories are not projected; `coffer setup` wires the agents' hooks "
        "(said once; `coffer adapter list` shows what is wired)"
    )
    fsutil.ensure_dir(said.parent)
    fsutil.atomic_write_bytes(said, b"")


def hook_context(
    engine: Engine,
    here: Here,
    agent: str,
    report: Report,
    before: Mapping[Path, bytes | None] | None,
    session: str | None = None,
) -> tuple[str, str]:
    """(what `--for AGENT` hands the model now, the handoffs a no-op run hands it again):
    the session's id when the agent gave one, the vault handoffs waiting for the agent,
    plus now the memory this run put where the agent had already looked
    (coffer.projection.session_context)."""
    from coffer.projection import session_context
    from coffer.projection.blocks.content import handoff_lines

    root = here.project
    found = engine.handoffs_for(engine.context(root), [agent]) if root else ()
    handoffs = "\n".join(handoff_lines(found, for_one_reader=True)).strip() + "\n" if found else ""
    note = session_context.session_note(session) if session else ""
    lead = session_context.compose(note, handoffs)
    return session_context.hook_context(engine, here, agent, report, before, lead), handoffs


def start_hook(engine: Engine) -> hook_mode.Deadline:
    deadline = hook_mode.Deadline(hook_mode.timeout(os.environ))

    def give_up() -> None:
        # From the watchdog thread, the process ending right after: unbuffered writes.
        why = "still reading or writing: a huge or damaged store?"
        text = f"coffer: {deadline.gave_up(why)}"
        os.write(2, (text + "\n").encode("utf-8", "replace"))
        os.write(1, hook_mode.output("", text).encode("utf-8", "replace"))

    deadline.watch(give_up)
    return deadline


def hook_messages(engine: Engine, here: Here, report: Report) -> list[str]:
    """What the user should see from this hook run: what coffer just switched off (always),
    and the known problems not already said (once per change)."""
    errors = hook_mode.unexpected(report.problems)
    known = [p for p in report.problems if p not in errors]
    fresh = hook_mode.news(engine.store.root, here.key, [f"coffer: {p.line()}" for p in known])
    if fresh:
        fresh.append("(said once; `coffer project` repeats it)")
    # The agent shows the message among others: each line names coffer once. A failure
    # (a block that could not be written) is said at every start, as the hook exits 0.
    alerts = [named(a) for a in report.alerts]
    lines = alerts + [f"coffer: {p.line()}" for p in errors] + fresh
    # One line per condition, however many steps or agents met it (a refused link shared
    # by two adapters, the same alert from two merges).
    return list(dict.fromkeys(lines))


def end_hook(
    deadline: hook_mode.Deadline,
    context: str,
    messages: list[str],
    frame: Callable[[str], str] | None,
) -> None:
    """Print what an agent shows from a session-start hook. stderr carries the same
    lines and nothing else (agents show it only for a failing hook, but their debug logs
    keep it), so a known condition is said once there too. Context alone goes out as the
    agent reads hook output (``frame``, docs/adr/0012)."""
    deadline.finish()
    for line in messages:
        print(line, file=sys.stderr)
    if frame and not messages:
        sys.stdout.write(frame(context))
    else:
        sys.stdout.write(hook_mode.output(context, "\n".join(messages)))
