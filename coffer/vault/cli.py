"""The ``ecc memory`` command line, byte for byte (docs/vault-format.md §10), without typer.

The reference has its own argument grammar (§10.2: the first argument is always the
command, ``--`` and ``-x`` are unknown options, no ``--opt=value``), which click would
reinterpret, so :func:`run` parses the raw arguments itself and prints the reference's exact
text, streams and exit codes. ``coffer vault`` (:mod:`coffer.cli.vault`) hands its arguments
here untouched; staying typer-free keeps ``python -m coffer.vault`` fast to start.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from coffer.vault import api
from coffer.vault.errors import VaultError, raw_os_error
from coffer.vault.io import safe_read_text
from coffer.vault.jscompat import js_trim, json_pretty, sanitize
from coffer.vault.roots import Roots, resolve_path, resolve_roots
from coffer.vault.terminal import Arguments, read_stdin, write
from coffer.vault.validate import MAX_BODY_BYTES, summary

if TYPE_CHECKING:
    from typing import Any

# §10.3: 1450 bytes, SHA-256 d93aa0bc…62cc.
USAGE = """ECC Memory Vault

Usage:
  ecc memory init [--scope project|team|user] [--json]
  ecc memory save --title <text> (--stdin | --body-file <path>) [options]
  ecc memory handoff --from <harness> --target <harness> --title <text> (--stdin | --body-file <path>) [options]
  ecc memory search [query] [--scope <scope>] [--target-harness <harness>] [--kind <kind>] [--limit <n>] [--json]
  ecc memory read <memory-id> [--scope <scope>] [--json]
  ecc memory doctor [--scope <scope>] [--json]

Recall:
  Default recall scopes: project and team; user scope must be requested explicitly
  with --scope user.

Write options:
  --scope <scope>            project (default), team, or user
  --source-harness <name>    Originating harness (default: ECC_MEMORY_HARNESS or unknown)
  --target <name>            Repeatable target harness; defaults to all
  --kind <kind>              context, decision, fact, handoff, lesson, note,
                             preference, or runbook
  --tag <tag>                Repeatable lowercase tag
  --link <memory-id>         Repeatable related memory ID
  --stdin                    Read the memory body from standard input
  --body-file <path>         Read the body from a regular, non-symlink file

MCP:
  ecc-memory-mcp             Start the opt-in local stdio MCP server

Safety:
  Tool-created memories are always unreviewed context, never executable policy.
  Writes are create-only and reject known credential shapes.
"""  # noqa: E501 - the reference's usage text is exact, long lines included


class Program:
    """How the CLI names itself: in the usage text, the error prefix and the two messages
    that name the program. Everything else (files, JSON, other messages) is identical."""

    def __init__(self, usage: str, error_prefix: str, command_word: str) -> None:
        self.usage = usage
        self.error_prefix = error_prefix
        self.command_word = command_word  # "Unknown <word> command", "<word> save is disabled"


# `python -m coffer.vault` is the reference CLI itself, byte for byte (the conformance
# surface, docs/vault-format.md §10). `coffer vault` says what the user typed (docs/adr/0016).
ECC = Program(USAGE, "Error: ", "memory")
COFFER = Program(
    USAGE.replace("ECC Memory Vault\n", "coffer vault: the ECC memory vault (ecc.memory.v1)\n")
    .replace("ecc memory ", "coffer vault ")
    .replace(
        "  ecc-memory-mcp             Start the opt-in local stdio MCP server",
        "  coffer mcp                 Start coffer's stdio MCP server (vault tools need\n"
        "                             ECC_MEMORY_HARNESS set to the agent's name)",
    ),
    "coffer vault: error: ",
    "vault",
)

# Each command and the line `coffer vault`'s typer entry lists it by (coffer.cli.vault).
COMMANDS = {
    "init": "Create the project/team (or user) vault directories.",
    "save": "Save an unreviewed memory (create-only).",
    "handoff": "Save a handoff memory for other harnesses.",
    "search": "Search memories with the reference's lexical ranking.",
    "read": "Read one memory and its backlinks.",
    "doctor": "Audit the vault for invalid files, duplicates and broken links.",
}
WRITE_COMMANDS = ("init", "save", "handoff")


class _Context:
    def __init__(self, args: Arguments, roots: Roots, env: Mapping[str, str], stdin_fd: int):
        self.args = args
        self.roots = roots
        self.env = env
        self.stdin_fd = stdin_fd


def _no_positionals(ctx: _Context) -> None:
    if ctx.args.positionals:
        raise VaultError(f"{ctx.args.command} does not accept positional arguments.")


def _cmd_init(ctx: _Context) -> str:
    _no_positionals(ctx)
    result = api.initialize(ctx.args.scopes(), roots=ctx.roots)
    if ctx.args.json:
        return json_pretty({"schemaVersion": "ecc.memory.init.v1", **result}) + "\n"
    lines = [f"Initialized ECC memory scopes: {sanitize(', '.join(result['scopes']))}"]
    lines.extend(
        f"- {sanitize(scope)}: {sanitize(result['roots'][scope])}" for scope in result["scopes"]
    )
    return "\n".join(lines) + "\n"


def _read_body(ctx: _Context) -> str:
    args = ctx.args
    body_file = args.single.get("--body-file", "")
    if ("--stdin" in args.flags) == bool(body_file):
        raise VaultError("Choose exactly one memory body source: --stdin or --body-file.")
    if body_file:
        path = resolve_path(os.getcwd(), body_file)
        return safe_read_text(path, "--body-file", MAX_BODY_BYTES)
    return read_stdin(ctx.stdin_fd)


def _cmd_save(ctx: _Context) -> str:
    args = ctx.args
    handoff = args.command == "handoff"
    _no_positionals(ctx)
    if not args.single.get("--title"):
        raise VaultError("--title is required.")
    if handoff and not args.single.get("--from"):
        raise VaultError("--from is required for handoffs.")
    if handoff and not args.multi.get("--target"):
        raise VaultError("At least one --target is required for handoffs.")
    body = _read_body(ctx)
    kinds = args.multi.get("--kind", [])
    if not handoff and len(kinds) > 1:
        raise VaultError("--kind may be provided only once.")
    scopes = args.multi.get("--scope", [])
    if len(scopes) > 1:
        raise VaultError("--scope may be provided only once.")
    source = (
        args.single.get("--from")
        or args.single.get("--source-harness")
        or js_trim(ctx.env.get("ECC_MEMORY_HARNESS", ""))
        or "unknown"
    )
    data: dict[str, Any] = {
        "title": args.single["--title"],
        "body": body,
        "kind": "handoff" if handoff else (kinds[0] if kinds else "note"),
        "scope": scopes[0] if scopes else "project",
        "sourceHarness": source,
        "targetHarnesses": args.multi.get("--target") or ["all"],
        "tags": args.multi.get("--tag", []),
        "links": args.multi.get("--link", []),
    }
    reference = ctx.env.get("COFFER_VAULT_REFERENCE_SECRET_SCAN", "") == "1"
    memory = api.save(data, roots=ctx.roots, reference_secret_scan=reference)["memory"]
    # The printed path comes from the fields, not the filesystem (§3.3).
    path = f"{memory['scope']}:{memory['kind']}s/{memory['id']}.md"
    if args.json:
        payload = {"schemaVersion": "ecc.memory.write.v1", "memory": summary(memory), "path": path}
        return json_pretty(payload) + "\n"
    return (
        f"Saved unreviewed {sanitize(memory['kind'])}: {sanitize(memory['title'])}\n"
        f"ID: {sanitize(memory['id'])}\n"
        f"Path: {sanitize(path)}\n"
    )


def _cmd_search(ctx: _Context) -> str:
    args = ctx.args
    query = " ".join(args.positionals)
    result = api.search(
        query,
        args.scopes(),
        args.multi.get("--kind"),
        None,
        args.single.get("--target-harness"),
        args.single.get("--limit"),
        roots=ctx.roots,
        env=ctx.env,
    )
    if args.json:
        payload = {"schemaVersion": "ecc.memory.search.v1", "query": query, **result}
        return json_pretty(payload) + "\n"
    if not result["results"]:
        return "No matching memories found.\n"
    lines: list[str] = []
    for item in result["results"]:
        memory = item["memory"]
        lines.append(
            f"[{sanitize(memory['trust'])}] {sanitize(memory['id'])} — "
            f"{sanitize(memory['title'])} (score {sanitize(item['score'])})"
        )
        lines.append(f"  {sanitize(item['excerpt'])}")
    return "\n".join(lines) + "\n"


def _cmd_read(ctx: _Context) -> str:
    args = ctx.args
    if len(args.positionals) != 1:
        raise VaultError("read requires exactly one memory ID.")
    result = api.read(args.positionals[0], args.scopes(), roots=ctx.roots, env=ctx.env)
    if args.json:
        return json_pretty({"schemaVersion": "ecc.memory.read.v1", **result}) + "\n"
    memory = result["memory"]
    backlinks = ", ".join(link["id"] for link in result["backlinks"]) or "none"
    return (
        f"[{sanitize(memory['trust'])}] {sanitize(memory['title'])}\n"
        f"ID: {sanitize(memory['id'])}\n"
        f"Source: {sanitize(memory['sourceHarness'])}\n"
        f"Targets: {sanitize(', '.join(memory['targetHarnesses']))}\n"
        "\n"
        f"{sanitize(memory['body'])}\n"
        "\n"
        f"Backlinks: {sanitize(backlinks)}\n"
    )


def _cmd_doctor(ctx: _Context) -> str:
    _no_positionals(ctx)
    report = api.doctor(ctx.args.scopes(), roots=ctx.roots, env=ctx.env)
    if ctx.args.json:
        return json_pretty(report) + "\n"
    return (
        f"ECC memory doctor: {'PASS' if report['ok'] else 'ISSUES FOUND'}\n"
        f"Memories: {report['memoryCount']}\n"
        f"Invalid files: {report['invalidFileCount']}\n"
        f"Duplicate IDs: {report['duplicateIdCount']}\n"
        f"Broken links: {report['brokenLinkCount']}\n"
        f"Skipped symlinks: {report['skippedSymlinkCount']}\n"
    )


_HANDLERS = {
    "init": _cmd_init,
    "save": _cmd_save,
    "handoff": _cmd_save,
    "search": _cmd_search,
    "read": _cmd_read,
    "doctor": _cmd_doctor,
}


def _fix_argv(arg: str) -> str:
    # Q9: the reference decodes argv as UTF-8 with U+FFFD, not with surrogate escapes.
    if arg.isascii():
        return arg
    return arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _execute(argv: list[str], env: Mapping[str, str], stdin_fd: int, program: Program = ECC) -> str:
    """§10.4 processing order; returns stdout text or raises :class:`VaultError`."""
    if not argv or argv[0] in ("--help", "-h"):
        return program.usage
    args = Arguments(argv[0], argv[1:])
    if args.command == "help" or "--help" in args.flags or "-h" in args.flags:
        return program.usage
    if args.command in WRITE_COMMANDS and env.get("ECC_DRY_RUN") == "1":
        raise VaultError(
            f"{program.command_word} {args.command} is disabled in dry-run mode; "
            "no files were written."
        )
    roots = resolve_roots(env=env)
    handler = _HANDLERS.get(args.command)
    if handler is None:
        raise VaultError(f"Unknown {program.command_word} command: {args.command}")
    return handler(_Context(args, roots, env, stdin_fd))


def run(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdin_fd: int = 0,
    program: Program = ECC,
) -> int:
    """Run ``ecc memory <argv>`` (or ``coffer vault``, by ``program``): print to
    stdout/stderr, return the exit status (§10.8)."""
    environment = os.environ if env is None else env
    try:
        out = _execute([_fix_argv(arg) for arg in argv], environment, stdin_fd, program)
    except VaultError as exc:
        write(sys.stderr, f"{program.error_prefix}{sanitize(exc.message)}\n")
        return 1
    except OSError as exc:
        # Anything not translated on the way surfaces as Node would print it (§6.11).
        message = raw_os_error(exc, "open", exc.filename).message
        write(sys.stderr, f"{program.error_prefix}{sanitize(message)}\n")
        return 1
    write(sys.stdout, out)
    return 0
