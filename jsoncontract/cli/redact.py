"""``jsoncontract redact``: rewrite captures so that they can be shared, or check that
they hold no secret."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli import EXIT_FINDINGS, EXIT_OK
from jsoncontract.cli.options import ColorOpt, format_choices, output_stream

if TYPE_CHECKING:
    RedactFormat = str
else:
    RedactFormat = format_choices("redact")  # the formats of the reporter table

#: The environment variable holding the key stand-ins are derived with.
KEY_VARIABLE = "JSONCONTRACT_REDACT_KEY"


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("redact", no_args_is_help=True)(redact_cli)


# fmt: off
def redact_cli(
    captures: Annotated[list[str], typer.Argument(
        help="Capture files or directories (.json, .jsonl, .sse, .har).", show_default=False,
        metavar="CAPTURE...")],
    *,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Where the redacted captures go: a file for one capture, a "
        "directory for several.", show_default=False)] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 when a capture still holds a secret "
        "(for a pre-commit hook).")] = False,
    format: Annotated[RedactFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Only the verdict, not each secret.")] = False,
    color: ColorOpt = None,
) -> int:
    # fmt: on
    """Replace every secret in captured traces (by name and by value) with a stand-in of
    the same length and kind, keeping structure, keys, types, lines and every finding's
    place; with --check, report the secrets still there. The report (to stdout) names
    each secret by kind, hash and place, never by value."""
    from jsoncontract.redact import DEFAULT_KEY, redact_files
    from jsoncontract.reporters import ReportOptions, render

    key = os.environ.get(KEY_VARIABLE) or DEFAULT_KEY
    report = redact_files(
        captures, None if output is None else str(output), key=key, check=check
    )
    options = ReportOptions(color=color, quiet=quiet)
    with output_stream(None) as stream:
        render("redact", format, stream, options, report)
    return EXIT_FINDINGS if check and report.count() else EXIT_OK
