"""How typer's help reads: NAME placeholders (not ``{name}``, ``<str>``, ``<int range>``)
and one-line command summaries that end where a phrase ends (docs/adr/0044).

typer 0.29 prints a required argument as ``{name}``, its type as ``<str>`` and an option's
value as its type (``--limit <int range>``). Each command here is built as
:class:`Command`, which names every value after its parameter, as click and most Unix
tools do: ``recall [OPTIONS] QUERY``, ``--limit LIMIT``. A metavar given where the
option is declared wins.
"""

from __future__ import annotations

import re
from typing import Any

import typer.core

# A summary longer than this is cut by click (with "...") in an 80-column terminal.
SUMMARY_WIDTH = 60
_PARENTHESIS = re.compile(r"\s*\([^()]*\)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_CLAUSE_END = re.compile(r"[;:,]\s")


class Command(typer.core.TyperCommand):
    """A typer command whose help names values (``QUERY``, ``--name NAME``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            flag = getattr(param, "is_flag", False) or getattr(param, "count", False)
            if param.metavar is not None or flag or not param.name:
                continue
            # An option is named by its long form (`--poll-interval POLL-INTERVAL`), an
            # argument by its parameter.
            longs = [o for o in param.opts if o.startswith("--")]
            param.metavar = (longs[0][2:] if longs else param.name).upper().replace("_", "-")

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                pieces += param.get_usage_pieces(ctx)
                continue
            name = str(param.metavar)
            name = name if param.required else f"[{name}]"
            pieces.append(name + ("..." if param.nargs != 1 else ""))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                # typer writes "NAME <str>": the name says it, the type adds nothing.
                arguments.append((str(param.metavar), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def summary(text: str) -> str:
    """The line `coffer --help` shows for a command: the first sentence of its help,
    without its parentheses, cut after the longest leading clause that fits."""
    first = _SENTENCE_END.split(text.split("\n\n")[0], maxsplit=1)[0]
    line = _PARENTHESIS.sub("", first).strip().rstrip(".")
    if len(line) > SUMMARY_WIDTH:
        # A semicolon or colon ends a clause more surely than a comma (which may be one
        # item of a list): the last of those that fits, else the last comma.
        ends = [(m.group()[0] == ",", m.start()) for m in _CLAUSE_END.finditer(line)]
        fits = sorted(e for e in ends if e[1] <= SUMMARY_WIDTH)
        if fits:
            strong = [at for comma, at in fits if not comma]
            line = line[: strong[-1] if strong else fits[-1][1]]
    return line + "."
