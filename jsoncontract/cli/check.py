"""``jsoncontract check``: run envelope -> parse -> schema -> business over captures."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    ContextOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    RulesOpt,
    exit_code,
    format_choices,
    output_stream,
    stderr_is_terminal,
    tool_paths,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from jsoncontract.model import CallResult, PassedCall, ResultRun

    CheckFormat = str
else:
    CheckFormat = format_choices("check")  # the formats of the reporter table


class DialectChoice(StrEnum):
    """Capture dialects ``--dialect`` can force."""

    auto = "auto"
    openai_chat = "openai-chat"
    openai_responses = "openai-responses"
    anthropic = "anthropic"
    gemini = "gemini"
    mcp = "mcp"
    mcp_trace = "mcp-trace"
    downstream = "downstream"


class ResultsChoice(StrEnum):
    """What ``--results`` can list."""

    all = "all"
    findings = "findings"
    failed = "failed"


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("check", help=HELP, short_help=HELP.split(".")[0] + ".")(check_cli)


HELP = (
    "Check captured tool calls against the tools' contracts.\n\n"
    "Every call goes through four gates in order: envelope (a well-formed call of a known "
    "tool), parse (JSON, and an object), schema (the tool's JSON Schema) and business (rules "
    "from --rules or the config, and idempotency keys across the whole run). "
    "The first gate that fails names the failure.\n\n"
    "Exit codes: 0 clean; 1 findings at or above --fail-on; 2 could not do the job."
)


# fmt: off
def check_cli(
    captures: Annotated[list[str] | None, typer.Argument(
        help="Capture files or directories (JSON, JSONL, SSE, HAR), or - for stdin.",
        show_default=False)] = None,
    *,
    tools: Annotated[list[Path] | None, typer.Option(
        "--tools", "-t", help="Tool definition file or directory (repeatable).",
        show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="The tool that bare downstream bodies (and a bare JSON Schema) belong to.",
        show_default=False)] = None,
    dialect: Annotated[DialectChoice | None, typer.Option(
        help="Read every capture as this dialect instead of detecting it.",
        show_default=False)] = None,
    rules: RulesOpt = None,
    context: ContextOpt = None,
    format: Annotated[CheckFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text).", show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    max_shown: Annotated[int | None, typer.Option(
        help="Failing calls shown in full by the text report; 0 shows all (default: 50).",
        min=0, show_default=False)] = None,
    show_values: Annotated[bool, typer.Option(
        help="Quote values of sensitive-looking fields (token, password, email...) instead "
             "of hashing them.")] = False,
    listed: Annotated[ResultsChoice | None, typer.Option(
        "--results", help="Which calls the report lists: all (default), findings (calls with any "
             "finding) or failed (calls that failed a gate); the summary counts every call. "
             "Keeps the report of a huge trace small.", show_default=False)] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="List passing calls too.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only the summary.")] = False,
    color: ColorOpt = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", help="Worker processes (default: one per core; 1 checks in this "
        "process).", min=1, show_default=False)] = None,
    spark: Annotated[str | None, typer.Option(
        "--spark", metavar="MASTER", help="Check on Apache Spark (local[4], spark://host:7077, "
        "yarn...): JSONL captures, plain or .gz, read by the cluster; needs the spark extra.",
        show_default=False)] = None,
    progress: Annotated[bool, typer.Option(
        help="Show a progress bar on stderr (only when stderr is a terminal).")] = True,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Translate the options and run :func:`jsoncontract.iter_check` (help text: HELP)."""
    from jsoncontract.api import iter_results
    from jsoncontract.business import load_business
    from jsoncontract.business.context import parse_context
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.model import Dialect, Summary
    from jsoncontract.pipeline.parallel import default_jobs
    from jsoncontract.reporters import ReportOptions, render, reporter_class
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("check")
    if not captures:
        raise UsageError("no captures given: name capture files or directories, or - for stdin")
    paths = tool_paths(tools, cfg)
    tool = tool or section.get("tool")
    chosen = dialect.value if dialect else section.get("dialect", "auto")
    forced = None if chosen == "auto" else Dialect(chosen)
    fmt = format or section.get("format", "text")
    threshold = (fail_on.value if fail_on else None) or cfg.get("fail_on", "error")
    keep = listed.value if listed else section.get("results", "all")
    options = ReportOptions(
        results=keep,
        color=color,
        max_shown=max_shown if max_shown is not None else section.get("max_shown", 50),
        verbose=verbose,
        quiet=quiet,
    )
    toolset = ToolSet.from_paths(paths, tool_name=tool)
    reveal = show_values or bool(section.get("show_values", False))
    business = load_business(
        rules, config=cfg, context=parse_context(context) if context is not None else None,
        tools=toolset, show_values=reveal,
    )
    for warning in business.warnings:
        sys.stderr.write(f"jsoncontract: warning: {warning}\n")
    if spark is not None:
        business.close()
        return _check_on_spark(
            spark, captures, paths, rules=rules, config=cfg.path, context=context, tool=tool,
            dialect=forced, show_values=reveal, fmt=fmt, options=options, output=output,
            threshold=threshold,
        )
    reader = CaptureReader(dialect=forced, tool=tool)
    summary = Summary()
    results = iter_results(
        captures, tools=toolset, tool=tool, business=business, show_values=reveal,
        summary=summary, reader=reader, jobs=jobs or section.get("jobs") or default_jobs(),
        result_runs=reporter_class("check", fmt).takes_result_runs, keep=keep,
    )
    if progress and stderr_is_terminal() and "-" not in captures:
        results = _with_progress(results, reader, captures)
    try:
        with output_stream(output) as stream:
            render("check", fmt, stream, options, summary, results)
    finally:
        business.close()
    worst = summary.worst()
    return exit_code(worst.value if worst else None, threshold)


def _check_on_spark(
    master: str,
    captures: list[str],
    tools: list[Path],
    *,
    rules: list[Path] | None,
    config: Path | None,
    context: str | None,
    tool: str | None,
    dialect: str | None,
    show_values: bool,
    fmt: str,
    options: Any,
    output: Path | None,
    threshold: str,
) -> int:
    """``check --spark MASTER``: the run on a Spark cluster, the report written here."""
    from jsoncontract import spark
    from jsoncontract.reporters import render

    running = spark.active_session()
    session = spark.session(master)
    try:
        lines = spark.read_captures(session, captures)
        report = spark.check(
            lines, tools=tools, rules=rules, config=config, context=context, tool=tool,
            dialect=dialect, show_values=show_values,
        )
        if report.carried:
            sys.stderr.write(
                f"jsoncontract: warning: {report.carried} Spark partitions ended inside a "
                "streamed call, which was read as two incomplete calls; check those files "
                "without --spark for their exact results\n"
            )
        with output_stream(output) as stream:
            render("check", fmt, stream, options, report.summary, report.iter_results())
    finally:
        if running is None:  # a session this run started
            session.stop()
    worst = report.summary.worst()
    return exit_code(worst.value if worst else None, threshold)


def _with_progress(
    results: Iterator[CallResult | PassedCall | ResultRun], reader: Any, captures: list[str]
) -> Iterator[CallResult | PassedCall | ResultRun]:
    """Pass results through while a transient progress bar on stderr follows the bytes read."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from jsoncontract._files import expand
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES
    from jsoncontract.model import ResultRun

    total = sum(p.stat().st_size for p in expand(captures, CAPTURE_SUFFIXES, what="capture"))
    if total < 5_000_000:  # small inputs finish before a bar helps
        yield from results
        return
    columns = (TextColumn("checking"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("check", total=total)
        for count, result in enumerate(results):
            if count % 4096 == 0 or type(result) is ResultRun:  # a run holds thousands
                bar.update(task, completed=reader.bytes_read)
            yield result
