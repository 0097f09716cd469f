"""``jsoncontract diff``: the hops of one call side by side, every difference classified."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    dialect_choices,
    format_choices,
)

if TYPE_CHECKING:
    DiffFormat = str
    DialectChoice = str
else:
    DiffFormat = format_choices("diff")  # the formats of the reporter table
    DialectChoice = dialect_choices()  # auto, and the dialects of the capture registry


class RowsChoice(StrEnum):
    """Which members the side-by-side table shows."""

    auto = "auto"
    all = "all"
    changed = "changed"


HELP = (
    "Put the hops of one call side by side and classify every difference.\n\n"
    "Give two or three captures of the same call (the model response, the MCP tools/call "
    "frame, the downstream body or a .har), in any order and any dialect, or a whole trace "
    "with --trace, whose calls are paired across hops by id (or by order and tool).\n\n"
    "Each hop is parsed and checked against its own schema; the arguments are compared after "
    "each hop's parse, and each difference is classified: dropped, added, renamed, moved, "
    "coerced, re-encoded, value-changed, reordered. Transforms declared in a mapping file are "
    "listed as expected.\n\n"
    "Exit codes: 0 the hops agree (after declared mappings); 1 unexpected differences, or a "
    "hop breaks its contract; 2 could not do the job."
)


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("diff", help=HELP, short_help=HELP.split(".")[0] + ".")(diff_cli)


# fmt: off
def diff_cli(
    hop_files: Annotated[list[str] | None, typer.Argument(
        help="Two or three captures of one call (model, mcp, downstream; any dialect).",
        show_default=False, metavar="HOP_FILE...")] = None,
    *,
    trace: Annotated[Path | None, typer.Option(
        "--trace", help="A JSONL trace: every call in it is diffed, its hops paired by id or "
        "by order.", dir_okay=False, show_default=False)] = None,
    call_id: Annotated[str | None, typer.Option(
        "--call-id", help="Diff only the call with this id (at any hop), or the calls whose "
        "id starts with it.",
        show_default=False)] = None,
    tools: Annotated[list[Path] | None, typer.Option(
        "--tools", "-t", help="Tool definitions, to check the model and MCP hops against "
        "(repeatable; default: the config's tools).", show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="The tool of bare downstream bodies (default: the tool the other hops call).",
        show_default=False)] = None,
    dialect: Annotated[DialectChoice | None, typer.Option(
        help="Read every capture as this dialect instead of detecting it.",
        show_default=False)] = None,
    mapping: Annotated[list[Path] | None, typer.Option(
        "--mapping", "-m", help="A mapping file declaring the expected transforms between "
        "hops (repeatable).", dir_okay=False, show_default=False)] = None,
    downstream_schema: Annotated[list[str] | None, typer.Option(
        "--downstream-schema", help="The downstream contract: FILE (a JSON Schema) or "
        "FILE#/json/pointer (an OpenAPI operation or request body, a $defs entry), prefixed "
        "with TOOL= to apply to one tool only (repeatable).",
        show_default=False)] = None,
    correlate: Annotated[list[str] | None, typer.Option(
        "--correlate", help="Member carrying the model's call id in MCP params._meta or the "
        "trace record's context (repeatable; default: tool_call_id, call_id...).",
        show_default=False)] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        "--ignore", help="Do not report differences at this path: a JSON Pointer where * is "
        "one token and ** any depth, or a bare member name at any depth (repeatable).",
        show_default=False)] = None,
    tolerance: Annotated[float | None, typer.Option(
        help="Numbers closer than this are equal.", min=0.0, show_default=False)] = None,
    set_: Annotated[list[str] | None, typer.Option(
        "--set", help="Compare the array at this path as a set (order and repeats do not "
        "count; repeatable).", show_default=False)] = None,
    multiset: Annotated[list[str] | None, typer.Option(
        "--multiset", help="Compare the array at this path as a multiset (order does not "
        "count; repeatable).", show_default=False)] = None,
    key: Annotated[list[str] | None, typer.Option(
        "--key", help="Match the objects of the array at PATH by one or more members: "
        "PATH=FIELD or PATH=FIELD,FIELD (repeatable).", show_default=False)] = None,
    format: Annotated[DiffFormat | None, typer.Option(
        "--format", "-f", help="text (side by side), json (the report), patch (RFC 6902 "
        "between consecutive hops, one JSON line each), github, sarif, junit (for CI), "
        "markdown (a summary) or html (a page to look at). Default: text.",
        show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    rows: Annotated[RowsChoice | None, typer.Option(
        help="Table rows: auto (every member when there are few, else the changed ones), "
        "all, or changed.", show_default=False)] = None,
    max_shown: Annotated[int | None, typer.Option(
        help="Calls shown in full by the text report; 0 shows all (default: 50).",
        min=0, show_default=False)] = None,
    show_values: Annotated[bool, typer.Option(
        help="Quote values of sensitive-looking fields (token, password, email...) instead "
             "of hashing them.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Show calls whose hops agree too.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only the summary.")] = False,
    width: Annotated[int | None, typer.Option(
        help="Lay the table out for this many columns (default: the terminal's).",
        min=20, show_default=False)] = None,
    color: ColorOpt = None,
    allow_empty: Annotated[bool, typer.Option(
        "--allow-empty", help="A trace that holds no readable call passes (by default it "
        "fails with input.no_calls).")] = False,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Translate the options and run :func:`jsoncontract.diff.iter_diff` (help text: HELP)."""
    from jsoncontract.cli.options import exit_code, write_report
    from jsoncontract.config import load_config
    from jsoncontract.diff.differ import iter_diff
    from jsoncontract.diff.model import DiffSummary
    from jsoncontract.diff.settings import diff_inputs, diff_settings

    settings = diff_settings(
        load_config(config, discover=not no_config),
        hop_files=hop_files, trace=trace, call_id=call_id, tools=tools, tool=tool,
        dialect=dialect, mappings=mapping, downstream_schemas=downstream_schema,
        correlate=correlate, ignore=ignore, tolerance=tolerance, sets=set_,
        multisets=multiset, keys=key, show_values=show_values, format=format,
        output=output, fail_on=fail_on, rows=rows, max_shown=max_shown, verbose=verbose,
        quiet=quiet, width=width, color=color, allow_empty=allow_empty,
    )  # fmt: skip
    inputs = diff_inputs(settings)
    summary = DiffSummary()
    results = iter_diff(
        settings.hop_files, trace=settings.trace, call_id=settings.call_id,
        tools=inputs.tools, mappings=inputs.mappings, downstream=inputs.downstream,
        options=settings.options, tool=settings.tool, dialect=settings.dialect,
        summary=summary, allow_empty=settings.allow_empty,
    )  # fmt: skip
    write_report("diff", settings.report, summary, results)
    return exit_code(summary.worst(), settings.report.fail_on)
