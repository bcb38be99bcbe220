"""Option values converted without pydantic, for the few plain types coffer's options use.

typer 0.29 converts every option value through a pydantic ``TypeAdapter``: importing
pydantic and building the adapter costs ~100 ms, more than the rest of `coffer list`. A
``str``, a ``Path``, a list of ``str`` or a plain decimal number within its range converts
here to exactly what pydantic would return; anything else (a malformed number, a value out
of range, a float) goes to typer's own converter, so its results and error messages are
unchanged (docs/adr/0049, the one private-API exception it keeps).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

import typer.core
from typer import _coercion, _param_types

_INT = re.compile(r"[0-9]{1,18}")
_FLOAT = re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?")
_UNKNOWN = object()  # "not mine": typer's converter decides
_typer_build = _coercion.build_runtime_param


@dataclass(frozen=True)
class _Plain(_coercion.RuntimeParam):
    descriptor: _coercion.TypeDescriptor

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        converted = _convert(self.descriptor, value)
        if converted is _UNKNOWN:
            converted = _typer_build(self.descriptor)._coerce_value(value, param, ctx)
        elif self.descriptor.is_path:
            # typer's own checks (exists, dir_okay …) on a value that is a Path already.
            converted = _param_types.coerce_cli_path(
                converted, self.parameter_info, path_type=Path, param=param, ctx=ctx
            )
        return converted


def _convert(descriptor: _coercion.TypeDescriptor, value: Any) -> Any:
    annotation: Any = descriptor.annotation
    if annotation is str:
        return value if isinstance(value, str) else _UNKNOWN
    if annotation is Path:
        return Path(value) if isinstance(value, str) and value else _UNKNOWN
    if annotation is int or annotation is float:
        return _number(descriptor, value)
    if get_origin(annotation) is list and get_args(annotation) == (str,):
        items = value if isinstance(value, list | tuple) else [value]
        return list(items) if all(isinstance(i, str) for i in items) else _UNKNOWN
    return _UNKNOWN


def _number(descriptor: _coercion.TypeDescriptor, value: Any) -> Any:
    # Only the unambiguous cases: a value of the exact type (a default) or plain decimal
    # digits; pydantic decides the rest (signs, exponents, "1_000", clamping, errors).
    kind: Any = descriptor.annotation
    if type(value) is kind:
        number = value
    elif isinstance(value, str) and (_INT if kind is int else _FLOAT).fullmatch(value):
        number = kind(value)
    else:
        return _UNKNOWN
    info = descriptor.parameter_info
    low = info.min if info.min is not None else number
    high = info.max if info.max is not None else number
    return number if low <= number <= high else _UNKNOWN


def _build(descriptor: _coercion.TypeDescriptor) -> _coercion.RuntimeParam:
    if descriptor.file_annotation is not None or descriptor.parameter_info.parser is not None:
        return _typer_build(descriptor)
    return _Plain(
        parameter_info=descriptor.parameter_info,
        annotation=descriptor.annotation,
        descriptor=descriptor,
    )


def install() -> None:
    """Route typer's per-option converter through :func:`_build` (idempotent)."""
    # typer.core calls the name it imported from typer._coercion, once per option, lazily.
    typer.core.build_runtime_param = _build  # type: ignore[attr-defined]
