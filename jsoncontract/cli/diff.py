"""``jsoncontract diff``: the hops of one call side by side, every difference classified."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.check import DialectChoice  # noqa: TC001 - typer reads it at run time
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    exit_code,
    format_choices,
    report_root,
    reports,
)

if TYPE_CHECKING:
    from jsoncontract.config import Config
    from jsoncontract.diff.compare import ArrayRule

    DiffFormat = str
else:
    DiffFormat = format_choices("diff")  # the formats of the reporter table


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
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Translate the options and run :func:`jsoncontract.diff.iter_diff` (help text: HELP)."""
    from jsoncontract.config import load_config
    from jsoncontract.diff.correlate import DEFAULT_FIELDS
    from jsoncontract.diff.differ import DiffOptions, iter_diff
    from jsoncontract.diff.downstream import DownstreamSchemas, parse_ref
    from jsoncontract.diff.mapping import load_mappings
    from jsoncontract.diff.model import DiffSummary
    from jsoncontract.errors import UsageError
    from jsoncontract.model import Dialect, Hop
    from jsoncontract.reporters import ReportOptions, render_many
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("diff")
    if hop_files and trace is not None:
        raise UsageError("give hop files or --trace, not both")
    if not hop_files and trace is None:
        raise UsageError(
            "nothing to diff: give two or three hop files (model, mcp, downstream), or "
            "--trace FILE.jsonl"
        )
    tool_paths: list[Any] = list(tools or cfg.paths(cfg.get("tools")))
    toolset = ToolSet.from_paths(tool_paths, tool_name=tool) if tool_paths else None
    refs = [parse_ref(r) for r in downstream_schema or ()]
    base = None
    if not refs and section.get("downstream_schemas"):
        refs = [(None if name == "*" else name, ref)
                for name, ref in section["downstream_schemas"].items()]
        base = cfg.root
    downstream = DownstreamSchemas(refs, base=base) if refs else None

    def schema_of(name: str, hop: Hop) -> Any:
        if hop is Hop.DOWNSTREAM:
            return downstream.raw(name) if downstream is not None else None
        contract = toolset.get(name) if toolset is not None else None
        return contract.input_schema if contract is not None else None

    mapping_paths: list[Any] = list(mapping or cfg.paths(section.get("mappings")))
    mappings = load_mappings(mapping_paths, schema_of=schema_of) if mapping_paths else None
    fields = correlate or _as_list(section.get("correlation_field")) or list(DEFAULT_FIELDS)
    options = DiffOptions(
        tolerance=tolerance if tolerance is not None else float(section.get("tolerance", 0.0)),
        ignore=tuple(ignore or section.get("ignore", ())),
        arrays=tuple(_array_rules(set_, multiset, key, cfg)),
        show_values=show_values or bool(section.get("show_values", False)),
        correlate=tuple(fields),
    )
    fmt = format or section.get("format", "text")
    threshold = (fail_on.value if fail_on else None) or cfg.get("fail_on", "error")
    report_options = ReportOptions(
        color=color,
        rows=(rows.value if rows else None) or section.get("rows", "auto"),
        verbose=verbose or bool(hop_files),
        quiet=quiet,
        max_shown=max_shown if max_shown is not None else section.get("max_shown", 50),
        width=width,
        root=report_root(cfg),
        show_values=options.show_values,
    )
    summary = DiffSummary()
    results = iter_diff(
        hop_files or (),
        trace=trace,
        call_id=call_id,
        tools=toolset,
        mappings=mappings,
        downstream=downstream,
        options=options,
        tool=tool,
        dialect=Dialect(dialect.value) if dialect and dialect.value != "auto" else None,
        summary=summary,
    )
    with reports(fmt, output, report_options) as targets:
        render_many("diff", targets, summary, results)
    worst = summary.worst()
    return exit_code(worst.value if worst else None, threshold)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _array_rules(
    sets: list[str] | None, multisets: list[str] | None, keys: list[str] | None, cfg: Config
) -> list[tuple[str, ArrayRule]]:
    """``--set``, ``--multiset`` and ``--key`` first, then the config's ``[diff.arrays]``."""
    from jsoncontract.diff.compare import ArrayRule
    from jsoncontract.errors import UsageError

    rules: list[tuple[str, ArrayRule]] = []
    rules.extend((p, ArrayRule("set", (), f"--set {p}")) for p in sets or ())
    rules.extend((p, ArrayRule("multiset", (), f"--multiset {p}")) for p in multisets or ())
    for spec in keys or ():
        path, sep, members = spec.partition("=")
        names = tuple(m.strip() for m in members.split(",") if m.strip())
        if not sep or not path or not names:
            raise UsageError(f"--key {spec!r}: write PATH=FIELD[,FIELD], e.g. --key /lines=sku")
        rules.append((path, ArrayRule("key", names, f"--key {spec}")))
    where = str(cfg.path) if cfg.path is not None else "config"
    for path, spec in cfg.section("diff").get("arrays", {}).items():
        origin = f"{where} [diff.arrays] {path}"
        if spec.startswith("key:"):
            names = tuple(m.strip() for m in spec[4:].split(","))
            rules.append((path, ArrayRule("key", names, origin)))
        else:
            rules.append((path, ArrayRule(spec, (), origin)))
    return rules
