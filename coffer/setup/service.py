"""``coffer watch`` as a user service: what `coffer setup` installs, `--undo` removes, and
`coffer watch --status` / `coffer adapter list` report (docs/adr/0017-watch-as-a-service.md).

The service file lives outside the store, so it follows the journal's rules like every other
setup edit: one record of kind ``service`` (key ``service:<path>``) written before the file,
a file coffer created is deleted on undo, and a file coffer did not write, or that was edited
since, is never overwritten or removed. The manager's commands (``systemctl --user``,
``launchctl``) run through one runner (coffer.setup.service_managers). Where no manager can be
reached, nothing is written or journaled and the user is told how to run the watcher.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coffer.adapter import Context, Launch
from coffer.adapter.registry import Loaded
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import now_iso, remove_created_dirs, text_diff
from coffer.projection.journal import Journal, JournalRecord, sha256
from coffer.setup import service_managers as sm
from coffer.setup.service_status import (
    describe,
    key,
    run_yourself,
    status,
    status_lines,
)
from coffer.store import watch_state
from coffer.store.paths import home_dir

KIND = "service"
FILE_MODE = 0o644  # what systemctl/launchctl users expect; it holds no secret


def service_env(environ: Mapping[str, str], loaded: Loaded, launch: Launch) -> dict[str, str]:
    """The environment the service needs to see what the agents see: the store (as the
    agents' launch carries it), ``PATH`` (agents are detected by their command on it) and
    every variable an adapter says moves its files, when set here. Names no agent."""
    env = {"PATH": environ["PATH"]} if environ.get("PATH") else {}
    ctx = Context(home_dir(environ), environ, Path(), None)
    for adapter in loaded.adapters.values():
        try:
            names = adapter.inputs(ctx)[0]
        except Exception:  # noqa: S112 (one adapter's bug must not stop setup)
            continue
        for name in names:
            if environ.get(name, "").strip():
                env[name] = environ[name]
    env.update(launch.env)
    return env


# ---- planning -------------------------------------------------------------------------------


@dataclass
class ServicePlan:
    """What setup would do about the watcher service."""

    manager: sm.Manager | None
    action: str = ""  # create, update, start, or "" (nothing to do)
    before: bytes | None = None
    after: bytes | None = None
    report: Report = field(default_factory=Report)

    def changes(self) -> list[Change]:
        m = self.manager
        if m is None or not self.action:
            return []
        commands = "; ".join(shlex.join(_short(c)) for c in m.start(update=self.action == "update"))
        if self.action == "start":
            return [Change(m.path, "start", f"{m.describe()} (installed, not running): {commands}")]
        return [
            Change(
                m.path,
                self.action,
                f"run coffer watch as a {m.describe()}, then {commands}",
                text_diff(m.path, self.before, self.after),
            )
        ]


def _short(argv: Sequence[str]) -> list[str]:
    # Shown to the user: `systemctl --user ...`, not the absolute path found on PATH.
    return [os.path.basename(argv[0]), *argv[1:]]


def _does_not_fit(m: sm.Manager, exc: sm.DoesNotFit) -> ServicePlan:
    out = ServicePlan(None)  # nothing to write, start or journal
    out.report.problems.append(Problem(m.path, "refused", f"not installed: {exc}"))
    return out


def plan(
    store_root: Path,
    environ: Mapping[str, str],
    loaded: Loaded,
    launch: Launch,
    *,
    platform: str | None = None,
    run: sm.Runner | None = None,
) -> ServicePlan:
    """Install, update or start the watcher service, as needed; or say why not."""
    found = sm.find(environ, platform)
    run = run or sm.runner(environ)
    why = found if isinstance(found, str) else found.unreachable(run)
    if isinstance(found, str) or why is not None:
        out = ServicePlan(None)
        out.report.notices.append(
            f"coffer watch: no service manager is reachable here ({why}), so it was not "
            "installed as a service. Start it yourself where your sessions start (a login "
            f"script, tmux): {run_yourself(launch, environ, platform)}"
        )
        return out
    m = found
    out = ServicePlan(m)
    out.report.notices.extend(_privacy_notes(store_root, m))
    before = m.read()
    try:
        after = m.render(launch.argv, service_env(environ, loaded, launch))
    except sm.DoesNotFit as exc:
        return _does_not_fit(m, exc)
    record = Journal(store_root).load(key(m.path))
    if before is not None and record is None and m.replaces_foreign and before != after:
        out.report.notices.append(
            f"coffer watch: {m.path} held another command; the journal keeps it and "
            "`coffer setup --undo` puts it back"
        )
    elif before is not None and (record is None or sha256(before) != record.after_sha256):
        whose = "coffer did not write it" if record is None else "it was edited since"
        out.report.notices.append(
            f"coffer watch: left {m.path} alone: {whose}. Remove it and run `coffer setup` "
            "again to let coffer manage the service"
        )
        return out
    state = m.query(run)
    if before == after:
        if isinstance(state, sm.State) and not state.active:
            out.action = "start"
        else:
            out.report.notices.append(f"coffer watch: already runs as a {m.describe()}")
        return out
    out.action, out.before, out.after = ("create" if before is None else "update"), before, after
    watcher = watch_state.read_status(store_root)
    service_pid = state.pid if isinstance(state, sm.State) else None
    if watcher.get("running") and watcher.get("pid") != service_pid:
        out.report.notices.append(
            f"coffer watch already runs outside the service (pid {watcher.get('pid')}); "
            f"stop it, or the service gives up after a few tries (then: "
            f"{shlex.join(_short(m.start(update=True)[-1]))})"
        )
    return out


def _privacy_notes(store_root: Path, m: sm.Manager) -> list[str]:
    """Before loading a launchd agent: the projects macOS may keep from it."""
    if m.kind != "launchd":
        return []
    from coffer.setup import service_privacy as privacy
    from coffer.store.projects import all_projects

    roots = [p.root for p in all_projects(store_root)]
    warning = privacy.install_warning(roots, m.home, privacy.executable())
    return [warning] if warning else []


# ---- applying -------------------------------------------------------------------------------


def _run_all(
    m: sm.Manager, run: sm.Runner, commands: list[tuple[str, ...]], report: Report
) -> bool:
    path = m.path
    for argv in commands:
        ran = m.execute(run, argv)
        if not ran.ok:
            report.problems.append(
                Problem(path, "error", f"`{shlex.join(_short(argv))}` failed: {ran.why()}")
            )
            return False
    return True


def _new_record(m: sm.Manager, before: bytes | None) -> JournalRecord:
    """The record of a definition coffer is about to write; a foreign one it replaces
    (``replaces_foreign``) is kept in it, to be put back on undo."""
    kept = {"previous": dict(m.previous())} if before is not None else {}
    return JournalRecord(
        kind="service",
        key=key(m.path),
        path=str(m.path),
        manager=m.kind,
        service=m.name,
        created_file=before is None,
        before_sha256=None if before is None else sha256(before),
        created_dirs=tuple(m.prepare()),
        created_at=now_iso(),
        extra=kept,
    )


def apply(
    journal: Journal,
    the_plan: ServicePlan,
    environ: Mapping[str, str],
    run: sm.Runner | None = None,
) -> Report:
    """Write the service file (journal first) and start the service."""
    report = Report()
    m = the_plan.manager
    if m is None or not the_plan.action:
        return report
    run = run or sm.runner(environ)
    path = m.path
    update = the_plan.action == "update"
    if the_plan.action != "start":
        if m.read() != the_plan.before or the_plan.after is None:
            report.problems.append(
                Problem(path, "refused", "changed since the plan was made; run coffer setup again")
            )
            return report
        record = journal.load(key(path)) or _new_record(m, the_plan.before)
        record = record.but(after_sha256=None, updated_at=now_iso(), seq=time.time_ns())
        journal.save(record)  # before the write: a crash leaves a record of what was there
        m.write(the_plan.after, FILE_MODE)
        journal.save(record.but(after_sha256=sha256(the_plan.after)))
        report.changes.append(Change(path, the_plan.action, f"coffer watch as a {m.describe()}"))
    commands = m.start(update=update)
    installed = journal.load(key(path))
    if installed is not None:
        made = [str(d) for d in m.side_dirs() if not d.exists()]
        if made:
            journal.save(installed.but(created_dirs=(*installed.created_dirs, *made)))
    if _run_all(m, run, commands, report):
        started = "; ".join(shlex.join(_short(c)) for c in commands)
        report.changes.append(Change(path, "start", f"{m.describe()} ({started})"))
        report.notices.append(f"coffer watch's log: {m.log_hint()}")
        if m.kind == "launchd":  # a denial the watcher met at its start, or last time
            from coffer.setup.service_privacy import denial_lines

            store = journal.dir.parent
            report.notices.extend(denial_lines(watch_state.read_status(store)))
    return report


# ---- undo -------------------------------------------------------------------------------------


def records(journal: Journal) -> list[JournalRecord]:
    return [r for r in journal.load_all() if r.kind == "service"]


def undo(
    journal: Journal,
    environ: Mapping[str, str],
    *,
    dry_run: bool = False,
    run: sm.Runner | None = None,
) -> Report:
    """Stop and remove every service setup installed. A refusal keeps the record."""
    report = Report()
    run = run or sm.runner(environ)
    for record in records(journal):
        report.extend(_undo_record(journal, record, environ, run, dry_run=dry_run))
    return report


def _undo_record(
    journal: Journal,
    record: JournalRecord,
    environ: Mapping[str, str],
    run: sm.Runner,
    *,
    dry_run: bool,
) -> Report:
    report = Report()
    path = Path(record.path)
    found = sm.by_kind(record.manager, environ)
    if isinstance(found, str):
        report.problems.append(
            Problem(path, "refused", f"cannot stop the service: {found} (the journal keeps it)")
        )
        return report
    data = found.read()
    if data is not None and sha256(data) != record.after_sha256:
        report.problems.append(
            Problem(
                path,
                "refused",
                "edited since coffer wrote it, so coffer neither stopped nor removed it; stop "
                "and remove it by hand, then run `coffer setup --undo` again (the journal "
                "keeps this path)",
            )
        )
        return report
    if dry_run:
        return _planned_undo(path, found, data)
    if data is None:
        # Removed by hand: forget it, and let the manager forget it too.
        report.notices.append(f"{path}: already gone; nothing to undo")
        for argv in found.after_remove():
            run(argv)
        remove_created_dirs(list(record.created_dirs))
        journal.drop(record.key)
        return report
    return _stop_and_remove(journal, record, found, run)


def _planned_undo(path: Path, m: sm.Manager, data: bytes | None) -> Report:
    """What ``--undo --dry-run`` shows for one service file."""
    report = Report()
    stop = m.stop() if data is not None else []
    if not stop:
        report.notices.append(f"{path}: already gone; nothing to undo")
        return report
    shown = "; ".join(shlex.join(_short(c)) for c in stop)
    report.changes.append(Change(path, "stop", f"{m.describe()} ({shown})"))
    report.changes.append(
        Change(path, "remove", "the service file coffer created", text_diff(path, data, None))
    )
    return report


def _stop_and_remove(
    journal: Journal, record: JournalRecord, m: sm.Manager, run: sm.Runner
) -> Report:
    """Stop the service coffer installed, then delete its file and forget the record; a
    manager that cannot be asked, or a stop that fails, keeps both."""
    report = Report()
    path = Path(record.path)
    state = m.query(run)
    if isinstance(state, str):
        report.problems.append(
            Problem(path, "refused", f"cannot stop the service: {state} (the journal keeps it)")
        )
        return report
    stop = m.stop()
    if (state.loaded or m.kind == "systemd") and not _run_all(m, run, stop, report):
        return report  # still running or still enabled: keep the file and the record
    shown = "; ".join(shlex.join(_short(c)) for c in stop)
    report.changes.append(Change(path, "stop", f"{m.describe()} ({shown})"))
    previous = record.extra.get("previous")
    if not record.created_file and isinstance(previous, dict):
        m.restore(previous)
        report.changes.append(Change(path, "restore", "put back what was there before coffer"))
    else:
        m.remove()
        report.changes.append(Change(path, "remove", "deleted the service file coffer created"))
    remove_created_dirs(list(record.created_dirs))
    for argv in m.after_remove():
        run(argv)  # only tidies the manager's view; the service is already stopped
    journal.drop(record.key)
    return report


__all__ = [
    "KIND",
    "ServicePlan",
    "apply",
    "describe",
    "key",
    "plan",
    "records",
    "run_yourself",
    "service_env",
    "status",
    "status_lines",
    "undo",
]
