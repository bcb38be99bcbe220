"""What `coffer watch --status` and `coffer adapter list` say about the watcher's service,
and how to run the watcher without one (docs/adr/0017-watch-as-a-service.md). Reads only:
installing and removing the service is coffer.setup.service."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.setup import service_managers as sm

if TYPE_CHECKING:
    from typing import Any

    from coffer.adapter import Launch


def key(path: Path) -> str:
    return f"service:{path}"


def run_yourself(launch: Launch, environ: Mapping[str, str], platform: str | None = None) -> str:
    """The command that runs the watcher without a service manager."""
    return _run_yourself(launch.argv, launch.env, environ, platform)


def _run_yourself(
    command: tuple[str, ...],
    env: Mapping[str, str],
    environ: Mapping[str, str],
    platform: str | None,
) -> str:
    import shlex  # only for a store with no service manager to name

    log = sm.default_log_file(environ, platform)
    prefix = [f"{k}={shlex.quote(v)}" for k, v in sorted(env.items())]
    argv = shlex.join([*command, "watch", "--log-file", str(log)])
    return " ".join([*prefix, "nohup", argv, ">/dev/null 2>&1 &"])


def run_yourself_here(store_root: Path, environ: Mapping[str, str], platform: str | None) -> str:
    from coffer.setup.launch import launch_command

    return _run_yourself(*launch_command(environ, store_root), environ, platform)


# ---- status ---------------------------------------------------------------------------------


def status(
    store_root: Path,
    environ: Mapping[str, str],
    *,
    platform: str | None = None,
    run: sm.Runner | None = None,
) -> dict[str, Any]:
    """Whether coffer watch is installed as a service, by whom, and whether it runs."""
    found = sm.find(environ, platform)
    if isinstance(found, str):
        instead = run_yourself_here(store_root, environ, platform)
        return {"manager": None, "reachable": False, "problem": found, "instead": instead}
    m = found
    info: dict[str, Any] = {
        "manager": m.kind,
        "name": m.name,
        "path": str(m.path),
        "file": "absent",
        "reachable": True,
        "problem": None,
        "enabled": None,
        "active": None,
        "pid": None,
    }
    data = m.read()
    if data is not None:
        from coffer.projection.journal import Journal, sha256

        record = Journal(store_root).load(key(m.path))
        ours = record is not None and sha256(data) == record.after_sha256
        info["file"] = "coffer" if ours else ("edited" if record else "other")
    elif not any(p.exists() for p in m.elsewhere()):
        # Nothing installed anywhere the manager looks: a file read says so, no need to
        # start the manager's client (a session-start path must not pay for it).
        info.update(reachable=None, enabled=False, active=False)
        info["instead"] = run_yourself_here(store_root, environ, platform)
        return info
    state = m.query(run or sm.runner(environ))
    if isinstance(state, str):
        info.update(reachable=False, problem=state)
        info["instead"] = run_yourself_here(store_root, environ, platform)
    else:
        info.update(enabled=state.enabled, active=state.active, pid=state.pid)
        info["state"] = state.detail
        if state.loaded and info["file"] == "absent":
            info["file"] = "elsewhere"  # loaded from another directory the manager reads
    return info


_WHAT = {
    "systemd": "systemd user service",
    "launchd": "launchd agent",
    "winrun": "Windows logon entry",
}
_FILE = {
    "coffer": "installed by coffer setup",
    "edited": "installed by coffer setup, edited since",
    "other": "not written by coffer",
    "elsewhere": "loaded from another file",
}


def describe(info: Mapping[str, Any]) -> str:
    """One line: the service as the manager sees it."""
    if info.get("manager") is None:
        return f"no service manager ({info.get('problem')})"
    what = _WHAT.get(str(info["manager"]), str(info["manager"]))
    if info.get("file") == "absent":
        if info.get("reachable") is None:
            return f"no {what} installed (`coffer setup` installs one where the manager runs)"
        if not info.get("reachable"):
            return f"none installed ({info.get('problem')})"
        return f"no {what} installed (`coffer setup` installs one)"
    parts = [_FILE.get(str(info.get("file")), str(info.get("file")))]
    if info.get("reachable"):
        parts.append("enabled" if info.get("enabled") else "not enabled")
        parts.append(str(info.get("state") or ("active" if info.get("active") else "inactive")))
    else:
        parts.append(str(info.get("problem")))
    return f"{what} {info.get('name')}: {', '.join(parts)} ({info.get('path')})"


def status_lines(info: Mapping[str, Any], watcher: Mapping[str, Any]) -> list[str]:
    """What `coffer watch --status` adds about the service."""
    lines = [f"service: {describe(info)}"]
    if watcher.get("running") and info.get("pid") and info.get("pid") == watcher.get("pid"):
        lines.append("this daemon is the service's process")
    if not watcher.get("running") and info.get("instead"):
        lines.append(f"run it yourself: {info['instead']}")
    from coffer.setup.service_privacy import denial_lines

    return lines + denial_lines(watcher)
