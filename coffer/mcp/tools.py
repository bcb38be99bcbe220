"""The tools ``coffer mcp`` offers, as plain data and plain functions (no MCP import).

Canonical-store tools (``remember``, ``recall``, ``list_memory``, ``update_memory``,
``forget``) go through :class:`coffer.store.store.Store` exactly like the CLI: same per-tier locks,
same secret refusal, same index regeneration, and the same refresh of the tier's
projections after a write (:class:`coffer.projection.writes.Writer`). The vault tools live in
:mod:`coffer.mcp.vault_tools`.

Every result is a JSON object ending with a ``note``: memory text is untrusted context, to be
read as information and never executed (docs/adr/0009-mcp-and-setup.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.app import App
from coffer.base.errors import (
    CofferError,
    EntryExistsError,
    EntryNotFoundError,
    InvalidInputError,
    LockTimeoutError,
    ProjectError,
    SecretRefusedError,
)
from coffer.mcp import vault_tools
from coffer.mcp.about import INSTRUCTIONS, UNTRUSTED
from coffer.mcp.specs import SCHEMAS, ToolSpec, tool_specs
from coffer.mcp.vault_tools import Outcome, error
from coffer.store import Found, Scope, Store, Tier
from coffer.store.pending import for_reader
from coffer.store.views import entries_json, entry_json, tier_json

if TYPE_CHECKING:
    from typing import Any

    from coffer.adapter import registry
    from coffer.projection.writes import Writer


@dataclass
class State:
    """What one server process keeps between calls."""

    store: Store
    environ: Mapping[str, str]
    vault: vault_tools.Identity | None
    # The composition root (coffer.app): the engine and the adapters, built on first use.
    app: App = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.app = App(self.environ, self.store)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> State:
        """Raises :class:`mcp_vault.StartupError` for an invalid ``ECC_MEMORY_HARNESS``."""
        app = App(dict(environ))
        return cls(app.store, app.environ, vault_tools.identity(environ))

    def adapters(self) -> registry.Loaded:
        return self.app.adapters()

    def tools(self) -> list[ToolSpec]:
        return tool_specs(self.vault is not None)


def render(outcome: Outcome) -> tuple[dict[str, Any], str, bool]:
    """The structured payload (with the untrusted-context note), its text, and isError."""
    payload = {**outcome.payload, "note": UNTRUSTED}
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    if len(text.encode("utf-8")) > vault_tools.MAX_RESPONSE_BYTES:
        payload = {"error": {"code": "RESPONSE_TOO_LARGE", "message": vault_tools.TOO_LARGE}}
        payload["note"] = UNTRUSTED
        return payload, json.dumps(payload, indent=2), True
    return payload, text, outcome.is_error


# ---- dispatch ----------------------------------------------------------------------------


def call(state: State, tool: str, arguments: Mapping[str, Any] | None, cwd: Path) -> Outcome:
    """Run ``tool``; never raises. ``cwd`` is the client's root or the server's directory."""
    args = dict(arguments or {})
    try:
        if tool in vault_tools.SCHEMAS:
            if state.vault is None:
                return error(
                    "VAULT_DISABLED",
                    "the vault tools are off: start `coffer mcp` with ECC_MEMORY_HARNESS set "
                    "to this agent's lowercase name (coffer setup does this)",
                )
            return vault_tools.call(tool, args, state.vault, cwd, _vault_written)
        if tool not in SCHEMAS:
            known = ", ".join(t.name for t in state.tools())
            return error("UNKNOWN_TOOL", f"no tool named {tool!r}; coffer offers: {known}")
        issues = vault_tools.check(SCHEMAS[tool], args)
        if issues:
            details = "; ".join(i.detail for i in issues[:5])
            return error("INVALID_ARGUMENTS", f"invalid arguments for {tool}: {details}")
        return _CANONICAL[tool](state, args, cwd)
    except CofferError as exc:
        # The message lists the kinds of secret found, never the text.
        return error(_code(exc), str(exc))
    except Exception as exc:  # the server must survive anything a call can provoke
        return error("INTERNAL", f"internal error ({type(exc).__name__}); see coffer's stderr")


# Checked in order: the first class an error is an instance of names its code.
_CODES: tuple[tuple[type[CofferError], str], ...] = (
    (SecretRefusedError, "SECRET_REFUSED"),
    (EntryNotFoundError, "NOT_FOUND"),
    (EntryExistsError, "ALREADY_EXISTS"),
    (ProjectError, "NO_PROJECT"),
    (InvalidInputError, "INVALID_INPUT"),
    (LockTimeoutError, "BUSY"),
)


def _code(exc: CofferError) -> str:
    return next((code for kind, code in _CODES if isinstance(exc, kind)), "STORE_ERROR")


# ---- the canonical tools -----------------------------------------------------------------


def _project(state: State, cwd: Path) -> tuple[Path | None, str]:
    """The project root for ``cwd``, or None and why (home, /, a missing directory)."""
    try:
        return state.store.here(cwd).require(), ""
    except CofferError as exc:
        return None, str(exc)


def _need_project(state: State, cwd: Path) -> Path:
    root, why = _project(state, cwd)
    if root is None:
        raise ProjectError(
            f"no project for scope=project: {why}. The project comes from the client's "
            "roots or the server's working directory; use scope=global for facts that "
            "belong to no project"
        )
    return root


def _writer(state: State) -> Writer:
    # Built at the first write: the engine behind it is not needed to start serving.
    return state.app.writer()


def _write_tier(state: State, scope: Scope, cwd: Path) -> Tier:
    if scope == "global":
        return state.store.global_tier(create=True)
    tier = state.store.tier_at(_need_project(state, cwd), create=True)
    assert tier is not None
    return tier


def _existing_tier(state: State, scope: Scope, cwd: Path) -> Tier:
    if scope == "global":
        return state.store.global_tier()
    root = _need_project(state, cwd)
    tier = state.store.tier_at(root)
    if tier is None:
        raise EntryNotFoundError(f"the project at {root} has no memory yet")
    return tier


def _read_tiers(state: State, scope: Scope | None, cwd: Path) -> tuple[list[Tier], str]:
    """Tiers to read and, when the project tier was skipped, why."""
    if scope == "global":
        return [state.store.global_tier()], ""
    root, why = _project(state, cwd)
    if root is None:
        if scope == "project":
            _need_project(state, cwd)
        return [state.store.global_tier()], f"global tier only: {why}"
    tier = state.store.tier_at(root)  # already resolved: no second walk
    tiers = [tier] if tier is not None else []
    return tiers + ([state.store.global_tier()] if scope is None else []), ""


def _remember(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    from coffer.store.drafts import RememberOptions  # writers only, as Store.remember

    scope: Scope = args.get("scope", "project")
    tier = _write_tier(state, scope, cwd)
    try:
        saved, refreshed = _writer(state).remember(
            tier,
            args["text"],
            name=args.get("name"),
            description=args.get("description"),
            type=args.get("type"),
            options=RememberOptions(
                origin_session_id=args.get("origin_session_id"),
                anchors=tuple(args.get("anchors", ())),
                review_after=args.get("review_after"),
            ),
        )
    except EntryExistsError:
        raise EntryExistsError(
            f"an entry named {args.get('name')!r} already exists in {tier.label}; "
            "use update_memory to change it, or choose another name"
        ) from None
    found = Found(saved.tier, saved.entry)
    payload: dict[str, Any] = {"action": saved.action, "entry": entry_json(found, body=False)}
    if saved.action == "unchanged":
        payload["message"] = f"already remembered as {saved.entry.name}"
    else:
        payload["refresh"] = refreshed.as_json()
    return Outcome(payload)


def _recall(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    tiers, skipped = _read_tiers(state, args.get("scope"), cwd)
    hits = state.store.recall(tiers, args["query"], args.get("limit", 10))
    # An agent's pending entry reaches only the client that wrote it (docs/adr/0054).
    mine = {id(e) for e in for_reader([h.entry for h in hits], state.store.writer)}
    hits = [h for h in hits if id(h.entry) in mine]
    payload: dict[str, Any] = {
        "query": args["query"],
        "results": entries_json(hits, body=True, score=True),
    }
    root = _project(state, cwd)[0] if args.get("scope") != "global" else None
    if root is not None:  # the repository's team tier (docs/adr/0036)
        from coffer.store import team_search

        found = team_search.recall(state.store, root, args["query"], args.get("limit", 10))
        payload["team"] = [h.as_json() for h in found]
    if skipped:
        payload["skipped"] = skipped
    return Outcome(payload)


def _list(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    tiers, skipped = _read_tiers(state, args.get("scope"), cwd)
    payload: dict[str, Any] = {
        "tiers": [
            {
                **tier_json(t),
                "entries": entries_json(
                    (Found(t, e) for e in for_reader(state.store.entries(t), state.store.writer)),
                    body=False,
                ),
            }
            for t in tiers
        ]
    }
    if skipped:
        payload["skipped"] = skipped
    return Outcome(payload)


def _update(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    from coffer.store.drafts import Revision

    change = Revision(
        args.get("text"),
        args.get("description"),
        args.get("type"),
        tuple(args.get("anchors", ())),
        args.get("review_after"),
    )
    if change.empty:
        raise InvalidInputError(
            "nothing to update: pass text, description, type, anchors or review_after"
        )
    scope: Scope = args.get("scope", "project")
    tier = _existing_tier(state, scope, cwd)
    saved, refreshed = _writer(state).update(tier, args["name"], change)
    return Outcome(
        {
            "action": "updated",
            "entry": entry_json(Found(saved.tier, saved.entry), body=False),
            "refresh": refreshed.as_json(),
        }
    )


def _forget(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    scope: Scope = args.get("scope", "project")
    tier = _existing_tier(state, scope, cwd)
    found, refreshed = _writer(state).forget(tier, args["name"])
    return Outcome(
        {
            "action": "forgotten",
            "entry": {**entry_json(found, body=False), "trash": str(tier.base / "trash")},
            "refresh": refreshed.as_json(),
        }
    )


def _stale(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    tiers, skipped = _read_tiers(state, args.get("scope"), cwd)
    payload: dict[str, Any] = {"stale": entries_json(state.store.stale(tiers), body=False)}
    if skipped:
        payload["skipped"] = skipped
    return Outcome(payload)


def _review(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    from coffer.store.review import queue

    tiers, skipped = _read_tiers(state, args.get("scope"), cwd)
    payload: dict[str, Any] = {"items": [i.as_json() for i in queue(state.store, tiers)]}
    if skipped:
        payload["skipped"] = skipped
    return Outcome(payload)


def _verify(state: State, args: dict[str, Any], cwd: Path) -> Outcome:
    from coffer.store.drafts import Revision

    scope: Scope = args.get("scope", "project")
    tier = _existing_tier(state, scope, cwd)
    change = Revision(review_after=args.get("review_after"), verified=True)
    saved, refreshed = _writer(state).update(tier, args["name"], change)
    return Outcome(
        {
            "action": "verified",
            "entry": entry_json(Found(saved.tier, saved.entry), body=False),
            "refresh": refreshed.as_json(),
        }
    )


_CANONICAL = {
    "remember": _remember,
    "recall": _recall,
    "list_memory": _list,
    "update_memory": _update,
    "forget": _forget,
    "stale_memory": _stale,
    "review_queue": _review,
    "verify_memory": _verify,
}

__all__ = ["INSTRUCTIONS", "UNTRUSTED", "State", "ToolSpec", "call", "render"]


def _vault_written(cwd: Path) -> None:
    # The vault's repo-local project scope stays out of `git status` (docs/adr/0040).
    import os

    from coffer.app import App

    App(os.environ).vault_written(cwd)
