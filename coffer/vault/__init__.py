"""An ``ecc.memory.v1`` memory vault, byte-compatible with the reference (ECC).

The format and behaviour are written down in ``docs/vault-format.md``; every section (§n),
porting rule (Rn) and quirk (Qn) cited in this package is one of that document's. The
library operations live in
:mod:`coffer.vault.api`; the CLI (:mod:`coffer.cli.vault`) and any MCP front end are thin
layers over them. Everything here is stdlib-only at import time.
"""

from __future__ import annotations

from coffer.vault.api import doctor, initialize, read, save, search
from coffer.vault.document import parse, serialize
from coffer.vault.errors import VaultError, VaultOSError
from coffer.vault.roots import Roots, resolve_roots
from coffer.vault.search import score, tokenize
from coffer.vault.secret_policy import find_secrets
from coffer.vault.validate import normalize

__all__ = [
    "Roots",
    "VaultError",
    "VaultOSError",
    "doctor",
    "find_secrets",
    "initialize",
    "normalize",
    "parse",
    "read",
    "resolve_roots",
    "save",
    "score",
    "search",
    "serialize",
    "tokenize",
]
