"""Vault handoffs shown in an agent's managed block (docs/adr/0011).

``coffer project`` asks, for each rendered block, which **active** ``handoff`` memories are
addressed to the agents that read it. The answer comes from the vault's own scan (§7.1) over
the default recall scopes, project and team (user scope is never shown here: §1.1 keeps it
out of default recall, and a block may be committed), so the quarantine (§5.4) and the
location check apply exactly as for ``coffer vault search``, and every listed id is one that
``coffer vault read <id>`` run at the project root can read.

Addressing follows the §7.3 target filter: a memory is for harness *h* when its
``targetHarnesses`` holds ``all`` or *h*. The engine turns adapter names into the harness
slugs they answer to (an adapter's optional ``HARNESSES``, else its name) before calling
in here; ECC's examples name ``claude``, ``codex``, ``hermes``, ``cursor`` and
``opencode`` (§1.1, §2.4 Example B).

Callers reach this through :func:`coffer.projection.integrations.handoff_source`, which first
checks with one ``stat`` that the project has a vault at all, so projects without one never
import the vault package. This module knows nothing of the projection: it returns plain
tuples, and the integration turns them into the engine's ``Handoff`` values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from coffer.vault.collation import rank_key
from coffer.vault.jscompat import sanitize
from coffer.vault.roots import DEFAULT_RECALL_SCOPES, resolve_roots
from coffer.vault.scan import load
from coffer.vault.validate import KINDS

MAX_HANDOFFS = 10

ALL = "all"  # §2.2 field 9: an ordinary slug value that means "every harness"


def harness_names(harnesses: Iterable[str]) -> frozenset[str]:
    """The target-harness values that address a reader known by ``harnesses`` (the engine
    expands each adapter to the ECC slugs it answers to: its optional ``HARNESSES``)."""
    return frozenset({ALL, *harnesses})


def project_vault(root: str, environ: Mapping[str, str]) -> str:
    """``<projectVault>`` as ``coffer vault`` run at ``root`` resolves it (§6.2)."""
    roots = resolve_roots(cwd=root, env=environ)
    return os.path.dirname(roots.project)


def list_handoffs(
    root: str, agents: Sequence[str], environ: Mapping[str, str]
) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """``(id, title, source, targets)`` of the active handoffs for ``agents``, newest first.

    Raises whatever the vault raises (a symlinked root, an unreadable directory); the
    engine's handoff source (:mod:`coffer.projection.integrations`) turns any failure into
    "no handoffs".
    """
    from coffer.secrets import find_secrets

    roots = resolve_roots(cwd=root, env=environ)
    # Read-only use of the parse cache: `coffer project --dry-run` cannot be told apart
    # here, and a projection must write nothing during one. Vault commands keep it warm.
    scan = load(roots, list(DEFAULT_RECALL_SCOPES), environ, write_cache=False)
    wanted = harness_names(agents)
    found: dict[str, dict[str, object]] = {}
    for entry in scan.entries:
        memory = entry.memory
        if memory["kind"] != "handoff" or memory["status"] != "active":
            continue
        if wanted.isdisjoint(memory["targetHarnesses"]):
            continue
        found.setdefault(memory["id"], memory)  # a duplicated id is listed once
    # The §7.3 order without a query: updatedAt descending, then id ascending (§7.6).
    ordered = sorted(found.values(), key=lambda memory: rank_key(str(memory["id"])))
    ordered.sort(key=lambda memory: str(memory["updatedAt"]), reverse=True)
    out: list[tuple[str, str, str, tuple[str, ...]]] = []
    for memory in ordered:
        # The title is the one free-text field shown. The read-side quarantine uses the
        # reference's patterns only; a block may be committed, so coffer's wider set (JWTs,
        # bearer tokens, passwords in URLs) keeps a handoff out of it as well.
        title = sanitize(memory["title"])
        if find_secrets(title):
            continue
        targets = memory["targetHarnesses"]
        assert isinstance(targets, list)
        out.append((str(memory["id"]), title, str(memory["sourceHarness"]), tuple(targets)))
        if len(out) >= MAX_HANDOFFS:
            break
    return out


def watched_paths(root: str, environ: Mapping[str, str], limit: int) -> set[str]:
    """Paths whose ``lstat`` signatures change when the handoff list may (for the fast path).

    The vault directories, both scope roots and every kind directory (a file added or
    removed anywhere changes its directory's mtime, and a large addition could move where
    the §7.1 budgets truncate), plus every directory and file under the ``handoffs``
    directories, so a handoff edited in place (retired by hand, §1.1) is seen too. At most
    ``limit`` entries are signed per handoffs tree; beyond that its directories still are.
    """
    vault = project_vault(root, environ)
    paths = {os.path.dirname(vault), vault}
    for scope in DEFAULT_RECALL_SCOPES:
        scope_root = os.path.join(vault, scope)
        paths.add(scope_root)
        paths.update(os.path.join(scope_root, f"{kind}s") for kind in KINDS)
        paths.update(_tree(os.path.join(scope_root, "handoffs"), limit))
    return paths


def _tree(top: str, limit: int) -> list[str]:
    out: list[str] = []
    files = 0
    pending = [(top, 0)]
    while pending:
        directory, depth = pending.pop()
        try:
            with os.scandir(directory) as iterator:
                entries = list(iterator)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                out.append(entry.path)
                if depth < 8:  # §7.1: nothing deeper is ever read
                    pending.append((entry.path, depth + 1))
            elif files < limit:
                out.append(entry.path)
                files += 1
    return out
