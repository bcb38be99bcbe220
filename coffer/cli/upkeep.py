"""`coffer doctor`, without typer: the store's health checks and what else needs the
user's attention here (a damaged journal, sync's stale locks, the team tier's skipped
files, an agent's memory elsewhere). The typer command (coffer.cli.health) and the quick
path (coffer.cli.quick) both call :func:`doctor`, so both print the same."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base.report import plural
from coffer.cli._out import build_engine, echo, emit_json, here, store

if TYPE_CHECKING:
    from coffer.store import Finding


def doctor(every_project: bool, rebuild_projects: bool, project: Path | None, as_json: bool) -> int:
    """Report what needs attention (1 when anything does, else 0); rebuild the project list
    first when asked."""
    from coffer.base.errors import StoreError
    from coffer.projection import checkup
    from coffer.store import conflict_copies, projects
    from coffer.store import health as doctor_mod

    s = store()
    if rebuild_projects:
        with s.store_lock():
            mapping = projects.rebuild_project_list(s.root)
        echo(f"rebuilt {s.root / projects.PROJECT_LIST}: {plural(len(mapping), 'project')}")
    try:
        tiers = s.all_tiers() if every_project else s.tiers(here(project), None)
    except StoreError:
        tiers = [s.global_tier()]  # the project list itself is damaged: doctor says so below
    # Read-only: each tier is read once, and every check below judges that read.
    scans = doctor_mod.scans_by_dir(s, tiers)
    more = [*checkup.check_journal(s), *conflict_copies.findings(s, tiers, scans)]
    more += _team_findings(project)
    more += _sync_findings(s.root)
    more += _windows_side_findings()
    more += _link_findings(project)
    findings = doctor_mod.run(s, tiers, more, scans)
    bad = any(f.level != "info" for f in findings)
    if as_json:
        emit_json({"ok": not bad, "findings": [f.as_dict() for f in findings]})
    else:
        for f in findings:
            echo(f"{f.level}: {f.tier}: {f.path}: {f.message}")
        echo("ok" if not bad else plural(sum(f.level != "info" for f in findings), "problem"))
    return 1 if bad else 0


def _sync_findings(store_root: Path) -> list[Finding]:
    """git's locks in sync's repository (docs/adr/0043): a stale one stops every round."""
    from coffer.store import Finding
    from coffer.sync import gitlocks, state

    if not state.configured(store_root):
        return []
    repo = state.SyncPaths.of(store_root).repo
    return [
        Finding("warning" if old else "info", "sync", str(path), why)
        for path, old, why in gitlocks.findings(repo)
    ]


def _team_findings(project: Path | None) -> list[Finding]:
    """The repository's team tier (docs/adr/0036): files it skips, entries the gate flags."""
    from coffer.base.errors import CofferError
    from coffer.store import Finding, team
    from coffer.store.entry import withheld

    try:
        root = here(project).project
    except CofferError:
        return []
    scan = team.scan(root) if root is not None else None
    if scan is None:
        return []
    out = [Finding("warning", "team", str(scan.dir / p.filename), p.why) for p in scan.problems]
    for e in scan.entries:
        labels = withheld(e)
        if labels:
            why = f"looks like a secret ({', '.join(labels)}); never rendered"
            out.append(Finding("warning", "team", str(scan.dir / e.filename), why))
    return out


def _link_findings(project: Path | None) -> list[Finding]:
    """An agent whose own records (Claude's session transcripts) put this project's memory
    elsewhere than coffer's link: it does not see the store (issue 27 point 15)."""
    from coffer.base.errors import CofferError
    from coffer.base.report import Report
    from coffer.projection.status import link_check
    from coffer.store import Finding

    try:
        root = here(project).project
    except CofferError:
        return []
    if root is None:
        return []
    out = []
    try:
        engine = build_engine()
        ctx, report = engine.context(root), Report()
        for name in engine.enabled(ctx, report):
            found = link_check(engine, name, ctx, report)
            if found is not None:
                out.append(Finding("warning", name, str(found.elsewhere), found.warning))
    except CofferError:
        return out  # damaged settings: the store's own checks above say so
    return out


def _windows_side_findings() -> list[Finding]:
    """WSL: agents installed on the Windows side, which do not see this store."""
    from coffer.base import wsl as wsl_seam

    if not wsl_seam.in_wsl():
        return []  # not worth loading every adapter, nor the WSL checks, for
    from coffer.adapter import registry, wsl
    from coffer.store import Finding

    found = wsl.windows_side(registry.load_adapters())
    why = wsl.notice(found)
    return [Finding("info", "platform", str(found[0][1].parent), why)] if why else []
