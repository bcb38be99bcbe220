"""Helpers shared by the typer command modules."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from coffer.errors import InvalidInputError
from coffer.store import Scope, Store

ProjectOpt = Annotated[
    Path | None,
    typer.Option(
        "--project", help="Act on the project containing PATH instead of the cwd.", metavar="PATH"
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope", help="project or global (default: both when reading).", metavar="SCOPE"
    ),
]


def store() -> Store:
    return Store.from_environ(os.environ)


def project_path(project: Path | None) -> Path:
    return (project or Path.cwd()).absolute()


def scope(value: str | None) -> Scope | None:
    if value is None:
        return None
    if value == "project":
        return "project"
    if value == "global":
        return "global"
    raise InvalidInputError(f"invalid scope {value!r}: use project or global")


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def echo(text: str = "") -> None:
    typer.echo(text)
