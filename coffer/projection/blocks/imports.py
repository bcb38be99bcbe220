"""The ``@path`` imports of one instruction file, as an agent that follows them reads them
(coffer.adapter.facts.Imports): Claude Code 2.1.332 lexes the file as Markdown, skips code
blocks and code spans, drops HTML comments, and takes every ``@token`` that starts a line or
follows whitespace.

Pure over text, and light (no dataclass): `coffer project` reads it to place the team
block (coffer.projection.team.block), `coffer explain` to list what an agent loads.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)  # a code span: matched backtick runs
_TOKEN = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_BARE = re.compile(r"[A-Za-z0-9._-]")
_PUNCTUATION = re.compile(r"[#%^&*()]+")


def _prose(text: str) -> str:
    """``text`` without its fenced code blocks, HTML comments and code spans (each replaced
    by a space, so the words around one stay apart)."""
    kept: list[str] = []
    fence = ""
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        if line.startswith(("    ", "\t")) and (not kept or not kept[-1].strip()):
            kept.append("")  # an indented code block (after a blank line)
            continue
        kept.append(line)
    prose = _COMMENT.sub(" ", "\n".join(kept))
    return _SPAN.sub(" ", prose)


def _accepted(path: str) -> bool:
    if path.startswith(("./", "~/")) or (path.startswith("/") and len(path) > 1):
        return True
    return (
        not path.startswith("@") and not _PUNCTUATION.match(path) and _BARE.match(path) is not None
    )


def tokens(text: str) -> list[str]:
    """The import paths ``text`` names, in order, each once, as written (``#fragment``
    dropped, ``\\ `` unescaped)."""
    out: list[str] = []
    for match in _TOKEN.finditer(_prose(text)):
        token = match.group(1).partition("#")[0].replace("\\ ", " ")
        if token and _accepted(token) and token not in out:
            out.append(token)
    return out


def resolve(token: str, importer: Path, home: Path) -> Path:
    """The file ``token`` names: ``~/`` in the home directory, else relative to the
    directory of the file importing it."""
    if token.startswith("~/"):
        return home / token[2:]
    return Path(os.path.normpath(importer.parent / token))  # `../x` as the agent resolves it
