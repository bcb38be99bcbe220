"""What `coffer adapter list` says of a SYMLINK target: read only, apart from the planning and
swapping in coffer/projection/symlink/link.py, so the audit does not load the merge, the
swap and the backups (docs/adr/0039)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coffer.base import platform
from coffer.base.report import plural
from coffer.projection.common import lstat_or_none


def points_to(path: Path, target: Path) -> bool:
    try:
        return os.path.realpath(path) == os.path.realpath(target)
    except OSError:
        return False


def state(link: Path, tier_dir: Path) -> tuple[str, str]:
    st = lstat_or_none(link)
    if st is None:
        return "missing", "not linked yet"
    if platform.is_link(st):  # a symlink, or the junction made where symlinks are refused
        if not os.path.exists(link):
            return "broken", f"dangling link to {platform.read_link(link)}"
        if points_to(link, tier_dir):
            return "ok", f"-> {tier_dir}"
        return "foreign", f"links to {platform.read_link(link)}"
    if stat.S_ISDIR(st.st_mode):
        count = sum(1 for _ in os.scandir(link))
        files = plural(count, "file")
        return "missing", f"the agent's own directory ({files}; `coffer project` merges it)"
    return "foreign", "a file, not a directory"
