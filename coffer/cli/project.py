"""Projection commands: project, unproject, adapter list|enable|disable."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from coffer.cli import app
from coffer.cli._common import (
    JsonOpt,
    ProjectOpt,
    choice,
    complete_agent,
    echo,
    emit_json,
    project_path,
    store,
)
from coffer.errors import CofferError, InvalidInputError, UnknownNameError
from coffer.projection import hook as hook_mode
from coffer.projection.engine import Engine
from coffer.registry import unknown_agents
from coffer.report import Report
from coffer.store import settings as settings_mod
from coffer.store.identity import in_git, project_root
from coffer.store.projects import check_project_root

GIT_BLOCK = ("hide", "commit")
adapter_app = typer.Typer(no_args_is_help=True, help="Inspect and choose agent adapters.")
app.add_typer(adapter_app, name="adapter")


def _engine() -> Engine:
    from coffer.projection.integrations import handoff_source

    return Engine(store(), os.environ, handoffs=handoff_source())


def _print(report: Report, *, quiet: bool, dry_run: bool) -> None:
    if dry_run:
        for c in report.changes:
            echo(c.line(planned=True))
            if c.diff:
                sys.stdout.write(c.diff)
    elif not quiet:
        for c in report.changes:
            echo(c.line())
    if not quiet:
        for n in report.notices:
            echo(f"note: {n}")
    for a in report.alerts:
        typer.echo(_named(a), err=True)
    for p in report.problems:
        typer.echo(f"coffer: {p.line()}", err=True)


def _named(alert: str) -> str:
    # Each line names coffer once: "coffer turned off …", never "coffer: coffer turned …".
    return alert if alert.startswith("coffer ") else f"coffer: {alert}"


def _hook_context(
    engine: Engine,
    path: Path,
    agent: str,
    report: Report,
    before: Mapping[Path, bytes | None] | None,
) -> tuple[str, str]:
    """(what `--for AGENT` hands the model now, what a no-op run hands it again): the vault
    handoffs waiting for the agent, plus now the memory this run put where the agent had
    already looked (coffer.projection.session_context)."""
    from coffer.projection import session_context
    from coffer.projection.block_content import handoff_lines

    root = engine.store.project_root_or_none(path)
    found = engine.handoffs_for(engine.context(root), [agent]) if root else ()
    handoffs = "\n".join(handoff_lines(found)).strip() + "\n" if found else ""
    return session_context.hook_context(engine, path, agent, report, before, handoffs), handoffs


@app.command()
def project(
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing but problems.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the changes as a diff; write nothing.")
    ] = False,
    replace_edited: Annotated[
        bool,
        typer.Option(
            "--replace-edited", help="Regenerate blocks edited by hand (backed up first)."
        ),
    ] = False,
    resume: Annotated[bool, typer.Option(help="Project again after `coffer unproject`.")] = False,
    for_agent: Annotated[
        str | None,
        typer.Option(
            "--for",
            metavar="AGENT",
            help="Session-start hook mode: also print, as AGENT reads hook output, the "
            "vault handoffs waiting for it and any memory this run put in place after "
            "AGENT had loaded its files.",
        ),
    ] = None,
    hook: Annotated[
        bool,
        typer.Option(
            "--hook",
            help="Run as an agent's session-start hook: implies --quiet; a known problem is "
            "told once (as a hook message) and exits 0; stops after $COFFER_HOOK_TIMEOUT s.",
        ),
    ] = False,
    git_block: Annotated[
        str | None,
        typer.Option(
            "--git-block",
            metavar="[hide|commit]",
            callback=choice(GIT_BLOCK),
            autocompletion=lambda: list(GIT_BLOCK),
            help="Whether git sees this project's block: hide (the default) keeps it out of "
            "`git status` and commits; commit lets teammates and cloud agents read it.",
        ),
    ] = None,
    path: ProjectOpt = None,
) -> None:
    """Make every enabled agent see this project's and the global memory (idempotent)."""
    engine = _engine()
    if git_block is not None:
        _choose_git_block(engine, project_path(path), git_block)
    deadline = _start_hook(engine) if hook and not dry_run else None
    before = None
    if for_agent and not dry_run:
        from coffer.projection import session_context

        before = session_context.snapshot(engine, project_path(path))
    try:
        report = engine.project(
            project_path(path),
            dry_run=dry_run,
            replace_edited=replace_edited,
            resume=resume,
            deadline=deadline,
        )
    except hook_mode.GaveUp as exc:
        assert deadline is not None  # only a deadline gives up
        typer.echo(f"coffer: {exc}", err=True)
        _end_hook(deadline, "", [f"coffer: {exc}"], None)
        raise typer.Exit(0) from None
    except OSError as exc:
        if deadline is None:
            raise
        # Unexpected, so the hook fails; but with a line the agent can show, not a traceback.
        raise CofferError(f"cannot project: {exc}") from exc
    _print(report, quiet=quiet or hook, dry_run=dry_run)
    context = replay = ""
    frame = None
    if for_agent:
        from coffer.projection.session_context import framer

        frame = framer(engine, for_agent)  # as the agent reads hook output
        context, replay = _hook_context(engine, project_path(path), for_agent, report, before)
        if deadline is None:
            sys.stdout.write(frame(context))
    if deadline is not None:
        messages = _hook_messages(engine, project_path(path), report)
        _end_hook(deadline, context, messages, frame)
    if report.ok and not dry_run:
        from coffer.projection import fastpath

        fastpath.record(engine, project_path(path))
        if for_agent:
            # Only the handoffs are printed again by a run with nothing to do: memory
            # handed to this session is loaded from the agent's own files next time.
            assert frame is not None
            fastpath.record_output(engine, project_path(path), for_agent, frame(replay))
    if deadline is not None:
        raise typer.Exit(1 if hook_mode.unexpected(report.problems) else 0)
    raise typer.Exit(0 if report.ok else 1)


def _start_hook(engine: Engine) -> hook_mode.Deadline:
    deadline = hook_mode.Deadline(hook_mode.timeout(os.environ))

    def give_up() -> None:
        # From the watchdog thread, the process ending right after: unbuffered writes.
        why = "still reading or writing: a huge or damaged store?"
        text = f"coffer: {deadline.gave_up(why)}"
        os.write(2, (text + "\n").encode("utf-8", "replace"))
        os.write(1, hook_mode.output("", text).encode("utf-8", "replace"))

    deadline.watch(give_up)
    return deadline


def _hook_messages(engine: Engine, path: Path, report: Report) -> list[str]:
    """What the user should see from this hook run: what coffer just switched off (always),
    and the known problems not already said (once per change)."""
    from coffer.store.identity import root_of

    known = [p for p in report.problems if p not in hook_mode.unexpected(report.problems)]
    fresh = hook_mode.news(
        engine.store.root, root_of(str(path)), [f"coffer: {p.line()}" for p in known]
    )
    if fresh:
        fresh.append("(said once; `coffer project` repeats it)")
    # The agent shows the message among others: each line names coffer once.
    alerts = [_named(a) for a in report.alerts]
    return alerts + fresh


def _end_hook(
    deadline: hook_mode.Deadline,
    context: str,
    messages: list[str],
    frame: Callable[[str], str] | None,
) -> None:
    """Print what an agent shows from a session-start hook (stderr has had the problems:
    agents show it only for a failing hook, but their debug logs keep it). Context alone
    goes out as the agent reads hook output (``frame``, docs/adr/0012)."""
    deadline.finish()
    if frame and not messages:
        sys.stdout.write(frame(context))
    else:
        sys.stdout.write(hook_mode.output(context, "\n".join(messages)))


def _choose_git_block(engine: Engine, path: Path, block: str) -> None:
    root = engine.store.resolve_root(path)
    with engine.store.projection_lock():
        s = settings_mod.load(engine.store.root)
        s.git_commit = [r for r in s.git_commit if r != str(root)]
        if block == "commit":
            s.git_commit.append(str(root))
        settings_mod.save(engine.store.root, s)


@app.command()
def init(
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing but problems.")
    ] = False,
    path: ProjectOpt = None,
) -> None:
    """Make this directory a project although it is not in a git repository, and project it.

    Outside git, `coffer project` (the agents' session-start hook) projects only the global
    memory and writes nothing in the directory until this command invites it.
    """
    engine = _engine()
    target = project_path(path)
    if not target.is_dir():
        raise InvalidInputError(f"{target} is not a directory")
    root = project_root(target)
    check_project_root(root, engine.store.home)
    if in_git(root):
        echo(f"{root} is a git repository, so it is a project already")
    else:
        with engine.store.projection_lock():
            s = settings_mod.load(engine.store.root)
            if str(root) not in s.opted_in:
                s.opted_in.append(str(root))
                settings_mod.save(engine.store.root, s)
        echo(f"{root} is now a coffer project (`coffer unproject` there pauses it)")
    report = engine.project(target, resume=True)
    _print(report, quiet=quiet, dry_run=False)
    raise typer.Exit(0 if report.ok else 1)


@app.command()
def unproject(
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="Only this agent (repeatable); also disables its adapter.",
            autocompletion=complete_agent,
        ),
    ] = None,
    global_: Annotated[
        bool,
        typer.Option("--global", help="Undo the global tier's blocks and native-memory changes."),
    ] = False,
    all_: Annotated[bool, typer.Option("--all", help="Undo everything coffer changed.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be undone.")] = False,
    force: Annotated[
        bool, typer.Option(help="Also remove blocks edited by hand (backed up first).")
    ] = False,
    path: ProjectOpt = None,
) -> None:
    """Undo exactly what coffer changed outside its store, from the journal."""
    report = _engine().unproject(
        project_path(path),
        agents=agent or (),
        global_=global_,
        all_=all_,
        dry_run=dry_run,
        force=force,
    )
    _print(report, quiet=False, dry_run=dry_run)
    if not report.changes and not report.problems and not report.notices:
        echo("nothing to undo")
    raise typer.Exit(0 if report.ok else 1)


@adapter_app.command("list")
def adapter_list(path: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """Audit what is projected where. Exits 1 when anything enabled is not ok."""
    engine = _engine()
    statuses, errors = engine.status(project_path(path))
    root = engine.store.project_root_or_none(project_path(path))
    ok = all(s.ok for s in statuses) and not errors
    watch = _watch_info(engine.store.root)
    if as_json:
        data: dict[str, Any] = {
            "ok": ok,
            "project": {"root": str(root), "name": root.name} if root else None,
            "errors": errors,
            "watch": watch,
            "adapters": [
                {
                    "name": s.name,
                    "origin": s.origin,
                    "present": s.present,
                    "enabled": s.enabled,
                    "modes": s.modes,
                    "native_memory": s.native,
                    "error": s.error or None,
                    "ok": s.ok,
                    "targets": [t.__dict__ for t in s.targets],
                }
                for s in statuses
            ],
        }
        emit_json(data)
        raise typer.Exit(0 if ok else 1)
    echo(f"project: {root.name} ({root})" if root else "project: none here (global tier only)")
    # Widths from the values shown, so a long state or mode never shifts the path column.
    targets = [t for s in statuses for t in s.targets]
    tier_w = max((len(t.tier) for t in targets), default=0)
    mode_w = max((len(t.mode) for t in targets), default=0)
    state_w = max((len(t.state) for t in targets), default=0)
    for s in statuses:
        modes = " ".join(f"{k}={v}" for k, v in s.modes.items())
        flags = f"{'present' if s.present else 'absent'}, {'enabled' if s.enabled else 'disabled'}"
        echo(f"{s.name} ({flags}; {modes}; from {s.origin})")
        if s.native != "none":
            echo(f"  native memory: {s.native}")
        if s.error:
            echo(f"  error: {s.error}")
        for t in s.targets:
            detail = f" ({t.detail})" if t.detail else ""
            cols = f"{t.tier:<{tier_w}}  {t.mode:<{mode_w}}  {t.state:<{state_w}}"
            echo(f"  {cols}  {t.path}{detail}")
            if t.note:
                echo(f"  {'':<{tier_w + mode_w + state_w + 4}}  note: {t.note}")
    echo(_watch_line(watch))
    for e in errors:
        echo(f"error: {e}")
    raise typer.Exit(0 if ok else 1)


def _watch_info(root: Path) -> dict[str, Any]:
    """Whether `coffer watch` runs for this store, and as which service (not part of `ok`:
    without the watcher, blocks still refresh at every session start)."""
    from coffer.setup import service
    from coffer.watch import daemon

    data = daemon.read_status(root)
    running = bool(data.get("running"))
    return {
        "running": running,
        "pid": data.get("pid") if running else None,
        "service": service.status(root, os.environ),
    }


def _watch_line(watch: dict[str, Any]) -> str:
    from coffer.setup import service

    head = f"watch: running (pid {watch['pid']})" if watch["running"] else "watch: not running"
    return f"{head}; service: {service.describe(watch['service'])}"


AgentArg = Annotated[str, typer.Argument(metavar="NAME", autocompletion=complete_agent)]


def _set_adapter(name: str, on: bool) -> None:
    engine = _engine()
    if name not in engine.loaded.adapters:
        raise UnknownNameError(unknown_agents([name], engine.loaded.adapters))
    s = settings_mod.load(engine.store.root)
    s.adapters[name] = on
    settings_mod.save(engine.store.root, s)


@adapter_app.command("enable")
def adapter_enable(name: AgentArg) -> None:
    """Project into this agent even if coffer does not detect it."""
    _set_adapter(name, True)
    echo(f"enabled {name}; run `coffer project` to project into it")


@adapter_app.command("disable")
def adapter_disable(name: AgentArg) -> None:
    """Stop projecting into this agent (existing projections stay until `unproject`)."""
    _set_adapter(name, False)
    echo(f"disabled {name}; `coffer unproject --agent {name}` removes what coffer wrote for it")
