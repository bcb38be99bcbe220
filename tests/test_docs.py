"""The documentation the code cites is in the repository.

The vault code used to cite a specification kept outside the repository; it now cites
docs/vault-format.md. These tests keep it that way: nothing points outside the repository,
and every section the code cites exists.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("coffer", "adapters", "tests", "docs", "README.md")
# Spelled in two pieces so this file does not match itself.
OUTSIDE = "shared" + "/reference"
FORMAT = REPO / "docs" / "vault-format.md"
# Modules whose bare "§n" are sections of docs/vault-format.md (coffer/vault/__init__.py says so).
BARE_SECTIONS = ("coffer/vault/", "tests/vault/")


def _files() -> list[str]:
    """The tracked text files under ROOTS (every file there when this is not a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--", *ROOTS],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout
        names = [name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = []
    if not names:
        names = [
            str(path.relative_to(REPO))
            for root in ROOTS
            for path in ([REPO / root] if (REPO / root).is_file() else (REPO / root).rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts
        ]
    return sorted(name for name in names if (REPO / name).is_file())


def _text(name: str) -> str | None:
    try:
        return (REPO / name).read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # a binary file cites nothing


def _sections() -> set[str]:
    """Section numbers of docs/vault-format.md: "## 7. Search" -> 7, "### 7.1 …" -> 7.1."""
    found = re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", FORMAT.read_text(encoding="utf-8"), re.M)
    return set(found)


def test_nothing_cites_the_reference_directory_outside_the_repository() -> None:
    files = _files()
    assert "coffer/vault/api.py" in files and "docs/vault-format.md" in files
    citing = [name for name in files if OUTSIDE in (_text(name) or "")]
    assert citing == [], f"cite docs/vault-format.md (or state the fact) instead: {citing}"


def test_every_cited_section_of_the_vault_format_exists() -> None:
    sections = _sections()
    assert {"1.1", "2.2", "7.1", "10.8", "11.9", "14"} <= sections
    missing: list[str] = []
    for name in _files():
        text = _text(name)
        if text is None or name == "docs/vault-format.md":
            continue
        cited = re.findall(r"vault-format\.md §(\d+(?:\.\d+)?)", text)
        if name.startswith(BARE_SECTIONS):
            cited += re.findall(r"§(\d+(?:\.\d+)?)", text)
        missing += [f"{name}: §{number}" for number in cited if number not in sections]
    assert missing == []
