"""Fake ``systemctl`` and ``launchctl`` executables for the service tests.

Each is a small script put first on PATH: it appends its argv (as JSON, one line per call) to
``$FAKE_SM_LOG`` and answers as the real one does for the calls coffer makes, keeping the
manager's state (what was loaded by daemon-reload, what runs) in ``$FAKE_SM_STATE``. With
``FAKE_SM_NOBUS=1`` it fails the way ``systemctl --user`` fails in a container.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

_COMMON = """\
import json, os, sys
from pathlib import Path

with open(os.environ["FAKE_SM_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
state_file = Path(os.environ["FAKE_SM_STATE"])
data = json.loads(state_file.read_text()) if state_file.exists() else {"known": [], "active": {}}


def save():
    state_file.write_text(json.dumps(data))


def fail(message, code=1):
    print(message, file=sys.stderr)
    sys.exit(code)
"""

SYSTEMCTL = (
    _COMMON
    + """
if os.environ.get("FAKE_SM_NOBUS"):
    fail("Failed to connect to bus: No medium found")
args = sys.argv[1:]
if args[:1] != ["--user"]:
    fail("fake systemctl: only --user is faked")
config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.environ["HOME"], ".config")
units = Path(config) / "systemd" / "user"
wants = units / "default.target.wants"
cmd, rest = args[1], args[2:]
if cmd == "show" and rest == ["--property=UnitPath"]:
    paths = [f"{config}/systemd/user.control", "/run/user/1000/systemd/transient",
             str(units), "/etc/systemd/user", "/usr/lib/systemd/user"]
    print("UnitPath=" + os.environ.get("FAKE_SM_UNITPATH", " ".join(paths)))
elif cmd == "show":
    unit = rest[0]
    loaded = unit in data["known"] and (units / unit).exists()
    pid = data["active"].get(unit)
    print(f"MainPID={pid or 0}")
    print(f"LoadState={'loaded' if loaded else 'not-found'}")
    print(f"ActiveState={'active' if pid else 'inactive'}")
    print(f"SubState={'running' if pid else 'dead'}")
    state = "enabled" if (wants / unit).is_symlink() else ("disabled" if loaded else "")
    print(f"UnitFileState={state}")
elif cmd == "daemon-reload":
    data["known"] = sorted(p.name for p in units.glob("*.service")) if units.is_dir() else []
    save()
elif cmd in ("enable", "disable", "restart", "stop", "start"):
    unit = rest[-1]
    now = "--now" in rest
    if cmd != "disable" and cmd != "stop" and unit not in data["known"]:
        fail(f"Failed to {cmd} unit: Unit file {unit} does not exist.")
    if cmd == "enable":
        wants.mkdir(mode=0o755, exist_ok=True)
        if not (wants / unit).is_symlink():
            (wants / unit).symlink_to(units / unit)
            print(f"Created symlink {wants / unit} \u2192 {units / unit}.", file=sys.stderr)
    if cmd == "disable" and (wants / unit).is_symlink():
        (wants / unit).unlink()  # like systemd, the emptied .wants directory stays
        print(f"Removed \\"{wants / unit}\\".", file=sys.stderr)
    if cmd in ("restart", "start") or (cmd == "enable" and now):
        data["active"][unit] = data["active"].get(unit, 4200) + 1
    if cmd == "stop" or (cmd == "disable" and now):
        data["active"].pop(unit, None)
    save()
else:
    fail(f"fake systemctl: {cmd} is not faked")
"""
)

LAUNCHCTL = (
    _COMMON
    + """
args = sys.argv[1:]
domain = f"gui/{os.getuid()}"
label = "dev.coffer.watch"
if args == ["print", domain]:
    print(f"{domain} = {{\\n\\ttype = login\\n}}")
elif args == ["print", f"{domain}/{label}"]:
    if label not in data["active"]:
        fail(f'Could not find service "{label}" in domain for user gui: {os.getuid()}', 113)
    print(f"{domain}/{label} = {{\\n\\tactive count = 1\\n\\tstate = running\\n")
    print(f"\\tpid = {data['active'][label]}\\n\\tprogram = coffer\\n}}")
elif args[:2] == ["bootstrap", domain]:
    if label in data["active"]:
        fail("Bootstrap failed: 5: Input/output error", 5)
    if not Path(args[2]).is_file():
        fail(f"Bootstrap failed: 2: No such file or directory", 2)
    data["active"][label] = 501
    save()
elif args == ["bootout", f"{domain}/{label}"]:
    if label not in data["active"]:
        fail("Boot-out failed: 3: No such process", 3)
    del data["active"][label]
    save()
else:
    fail(f"fake launchctl: {args} is not faked")
"""
)


def install(bindir: Path, name: str) -> Path:
    """Write the fake ``name`` (systemctl or launchctl) into ``bindir``."""
    bindir.mkdir(parents=True, exist_ok=True)
    body = SYSTEMCTL if name == "systemctl" else LAUNCHCTL
    script = bindir / name
    script.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    script.chmod(0o755)
    return script


def calls(log: Path) -> list[list[str]]:
    """Every argv the fake was called with, in order (executable name not included)."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
