"""The checks an entry file that did not come from this machine's store passes before it
enters a tier (docs/adr/0018, 0034): one place for `coffer sync`'s import and for the entries
a first registration takes from sync's waiting area.
"""

from __future__ import annotations

from pathlib import Path

from coffer.base import fsutil
from coffer.base.errors import StoreError
from coffer.base.platform import reserved_name

# An entry file in full, frontmatter and body, on every way in: `remember`/`update`, MCP,
# the linked agent folder, a pull, the waiting area, the team tier (docs/adr/0043). Twice
# the body `remember` takes; a fraction of the context file an agent loads whole.
MAX_ENTRY_FILE = 64 * 1024

MAX_FILE = MAX_ENTRY_FILE  # the store's own cap on an entry file (docs/adr/0018, 0043)
_INDEX_NAME = "MEMORY.md"


def too_large(size: int) -> str:
    """What every refusal of an oversize entry says (after the file's name)."""
    return (
        f"is {size} bytes; an entry file holds at most {MAX_ENTRY_FILE} "
        f"({MAX_ENTRY_FILE // 1024} KiB): split it, or keep the detail in the repository"
    )


def entry_name_ok(name: str) -> bool:
    """An entry file name the store would hold: one plain, visible ``.md`` component."""
    try:
        fsutil.safe_child(Path("."), name)
    except StoreError:
        return False
    # Printable and short: a name reaches messages and the file system of every machine.
    return (
        name.endswith(".md")
        and name != _INDEX_NAME
        and not fsutil.is_tmp_name(name)
        and not reserved_name(name)  # `con.md` cannot exist on a Windows machine the store syncs to
        and name.isprintable()
        and len(name.encode("utf-8", "surrogateescape")) <= 255
    )


def entry_problem(name: str, data: bytes | None, *, where: str = "") -> str | None:
    """Why the file ``name`` holding ``data`` may not enter a tier, or None: within the size
    cap, UTF-8, an entry the store's bounded parser reads (aliases refused, frontmatter
    capped), no secret in its text or in ``where`` (its name, or the path it came by)."""
    # The parser and the secret gate only once a file is checked: a registration that
    # finds nothing waiting imports this module for its constants alone.
    from coffer.secrets import find_secrets
    from coffer.store.entry import EntryParseError, parse

    if data is None or len(data) > MAX_FILE:
        return too_large(len(data)) if data is not None else too_large(MAX_FILE + 1)
    try:
        text = data.decode("utf-8")
        parse(text, name)
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except EntryParseError as exc:
        return f"not an entry: {exc}"
    if find_secrets(text) or find_secrets(where or name):
        return "looks like it holds a secret"
    return None
