"""The command line: typer declares every command (coffer.cli.typer_app); the commands run
most also have a typer-free quick path (coffer.cli.quick), both reading their options from
one declaration (coffer.cli.grammar, docs/adr/0050). No logic lives here: commands parse
options, call the core and print.

Nothing is imported here, so ``coffer.cli.quick`` can run without loading typer.
"""
