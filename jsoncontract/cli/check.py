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

    from jsoncontract.model import CallResult

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
    otlp = "otlp"
    mcp = "mcp"
    mcp_trace = "mcp-trace"
    downstream = "downstream"


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("check", help=HELP, short_help=HELP.split(".")[0] + ".")(check_cli)


HELP = (
    "Check captured tool calls against the tools' contracts.\n\n"
    "Every call goes through four gates in order: envelope (a well-formed call of a known "
    "tool), parse (JSON, and an object), schema (the tool's JSON Schema) and business (rules "
    "from --rules or the config, and idempotency keys across the whole run). "
    "The first gate that fails names the failure. A call whose result the capture holds "
    "then goes through the result gate (structured content, the result contract, leaks), "
    "and the run is checked for its turn and session contracts ([results] and [session] "
    "in the config).\n\n"
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
    result_window: Annotated[int | None, typer.Option(
        help="How many lines (or files) a call waits for its result before it is checked "
             "without one; 0 checks every call as soon as it is read (default: 1024).",
        min=0, show_default=False)] = None,
    show_values: Annotated[bool, typer.Option(
        help="Quote values of sensitive-looking fields (token, password, email...) instead "
             "of hashing them.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="List passing calls too.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only the summary.")] = False,
    color: ColorOpt = None,
    progress: Annotated[bool, typer.Option(
        help="Show a progress bar on stderr (only when stderr is a terminal).")] = True,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Translate the options and run :func:`jsoncontract.iter_check` (help text: HELP)."""
    from jsoncontract.api import iter_check
    from jsoncontract.business import load_business
    from jsoncontract.business.context import parse_context
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.model import Dialect, Summary
    from jsoncontract.reporters import ReportOptions, render
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
    options = ReportOptions(
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
    from jsoncontract.capture.ledger import WINDOW

    window = result_window if result_window is not None else section.get("result_window", WINDOW)
    reader = CaptureReader(dialect=forced, tool=tool, window=window)
    summary = Summary()
    from jsoncontract.pipeline.contracts import SessionContracts
    from jsoncontract.pipeline.result import ResultChecks

    results = iter_check(
        captures, tools=toolset, tool=tool, business=business, show_values=reveal,
        summary=summary, reader=reader, results=ResultChecks.from_config(cfg),
        session=SessionContracts.from_config(cfg, toolset),
    )
    if progress and stderr_is_terminal() and "-" not in captures:
        results = _with_progress(results, reader, captures)
    try:
        with output_stream(output, live=fmt == "jsonl") as stream:
            render("check", fmt, stream, options, summary, results)
    finally:
        business.close()
    worst = summary.worst()
    return exit_code(worst.value if worst else None, threshold)


def _with_progress(
    results: Iterator[CallResult], reader: Any, captures: list[str]
) -> Iterator[CallResult]:
    """Pass results through while a transient progress bar on stderr follows the bytes read."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from jsoncontract._files import expand
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES

    total = sum(p.stat().st_size for p in expand(captures, CAPTURE_SUFFIXES, what="capture"))
    if total < 5_000_000:  # small inputs finish before a bar helps
        yield from results
        return
    columns = (TextColumn("checking"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("check", total=total)
        for count, result in enumerate(results):
            if count % 4096 == 0:
                bar.update(task, completed=reader.bytes_read)
            yield result
