"""`coffer status`: one overview of what coffer manages here (issue 23 §10, docs/adr/0046).

Nothing is judged twice: the agents' lines are ``Engine.status`` (what `coffer adapter list`
audits: targets, what `coffer setup` wired, the hook's trust), the watcher is the status file
`coffer watch --status` reads, sync is the configuration and last round `coffer sync status`
keeps, and the last problem is what the session-start hook last told the user (and what the
watcher and its sync last failed on). Read-only; one JSON shape, which the CLI prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.app import App
from coffer.store import Here

if TYPE_CHECKING:
    from typing import Any

    from coffer.projection.status import AdapterStatus, Scans


def watch_info(
    root: Path, environ: Mapping[str, str], data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Whether `coffer watch` runs for this store, and as which service (not part of an
    agent's ``ok``: without the watcher, blocks still refresh at every session start);
    ``data``: the watcher's status, when the caller has read it already."""
    from coffer.setup import service_status as service
    from coffer.store import watch_state

    data = watch_state.read_status(root) if data is None else data
    running = bool(data.get("running"))
    return {
        "running": running,
        "pid": data.get("pid") if running else None,
        "service": service.status(root, environ),
        # Projects macOS privacy controls keep from the watcher (coffer.setup.service_privacy).
        "denied": list(data.get("denied") or []),
        "denied_exe": data.get("denied_exe"),
    }


def sync_info(root: Path) -> dict[str, Any]:
    """The remote and the last round, as `coffer sync status` keeps them (no git run)."""
    from coffer.sync import state
    from coffer.sync.errors import SyncError

    paths = state.SyncPaths.of(root)
    if not state.configured(root):
        return {"configured": False, "remote": None, "last_round": None, "last_summary": None}
    # Here, not above: gitcmd (with subprocess) costs about 5 ms, for a remote to show.
    from coffer.sync.gitcmd import shown

    try:
        remote = shown(state.load_config(paths).remote)
    except SyncError as exc:
        return {"configured": True, "remote": None, "error": str(exc), "last_round": None}
    last = state.load_state(paths)
    return {
        "configured": True,
        "remote": remote,
        "last_round": last.last_round or None,
        "last_summary": last.last_summary or None,
    }


def _agent(s: AdapterStatus) -> dict[str, Any]:
    wrong = [
        f"{t.tier} {t.state}: {t.path}" + (f" ({t.detail})" if t.detail else "")
        for t in s.targets
        if not t.ok
    ]
    return {
        "name": s.name,
        "present": s.present,
        "enabled": s.enabled,
        "projected": not wrong and not s.error,
        "problems": wrong + ([s.error] if s.error else []),
        "native_memory": s.native,
        "wired": dict(sorted(s.wiring.items())) if s.wireable else None,
        "trust": s.trust._asdict() if s.trust is not None else None,
    }


def _counts(here: Here, scans: Scans) -> dict[str, int | None]:
    from coffer.store import team

    scan = team.scan(here.project) if here.project is not None else None
    return {
        "project": len(scans["project"].entries) if "project" in scans else None,
        "global": len(scans["global"].entries),
        "team": len(scan.entries) if scan is not None else None,
    }


def overview(app: App, here: Here) -> dict[str, Any]:
    """Everything `coffer status` shows, for the project at ``here`` (or the global tier)."""
    from coffer.projection.hook import said
    from coffer.projection.status import scans_of, tiers_of

    engine = app.engine()
    # Read-only: the agents' lines and the entry counts judge one read of each tier.
    scans = scans_of(app.store, tiers_of(app.store, here.project))
    statuses, errors = engine.status(here, every=False, scans=scans)
    agents = [_agent(s) for s in statuses if not s.hidden]
    from coffer.store import watch_state

    data = watch_state.read_status(app.store_root)
    watch = watch_info(app.store_root, app.environ, data)
    problems = [*said(app.store_root, here.key), *errors]
    if data.get("last_error"):
        problems.append(f"coffer watch: {data['last_error']} ({data.get('last_error_at')})")
    sync = data.get("sync")
    if isinstance(sync, dict) and sync.get("last_error"):
        problems.append(f"sync: {sync['last_error']} ({sync.get('last_error_at')})")
    root = here.project
    return {
        "ok": all(a["projected"] for a in agents if a["enabled"]) and not problems,
        "store": str(app.store_root),
        "project": {"root": str(root), "name": root.name} if root else None,
        "entries": _counts(here, scans),
        "agents": agents,
        "hidden": [s.name for s in statuses if s.hidden],
        "watch": watch,
        "sync": sync_info(app.store_root),
        "problems": problems,
    }
