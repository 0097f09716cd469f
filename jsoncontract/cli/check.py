"""``jsoncontract check``: run envelope -> parse -> schema -> business over captures."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.options import (
    BaselineOpt,
    ColorOpt,
    ConfigOpt,
    ContextOpt,
    ExcludeOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    ProgressOpt,
    RulesOpt,
    dialect_choices,
    format_choices,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from jsoncontract._tail import Follow
    from jsoncontract.baseline import Baseline
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.model import CallResult, PassedCall, Summary
    from jsoncontract.pipeline.settings import CheckSettings
    from jsoncontract.reporters.progress import CallProgress

    CheckFormat = str
    DialectChoice = str
else:
    CheckFormat = format_choices("check")  # the formats of the reporter table
    DialectChoice = dialect_choices()  # auto, and the dialects of the capture registry


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
        "--tools", "-t", help="Tool definition file or directory (repeatable); 'capture', or "
        "none given: each call is checked against the tools offered with it in the capture.",
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
    listed: Annotated[ResultsChoice | None, typer.Option(
        "--results", help="Which calls the report lists: all (default), findings (calls with any "
             "finding) or failed (calls that failed a gate); the summary counts every call. "
             "Keeps the report of a huge trace small.", show_default=False)] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="List passing calls too.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only the summary.")] = False,
    baseline: BaselineOpt = None,
    exclude: ExcludeOpt = None,
    color: ColorOpt = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", help="Worker processes (default: one per core; 1 checks in this "
        "process).", min=1, show_default=False)] = None,
    spark: Annotated[str | None, typer.Option(
        "--spark", help="Check on Apache Spark (local[4], spark://host:7077, "
        "yarn...): JSONL captures, plain, .gz or .zst, read by the cluster; needs the spark "
        "extra.",
        show_default=False)] = None,
    follow: Annotated[bool, typer.Option(
        "--follow", "-F", help="Follow the capture as it grows, as tail -F does (one JSON "
        "Lines file, across rotation and truncation, or - for stdin): each call is reported "
        "as soon as its verdict is final; Ctrl-C (or SIGTERM) ends the run with its summary "
        "and the usual exit code. --format text or jsonl.")] = False,
    allow_empty: Annotated[bool, typer.Option(
        "--allow-empty", help="A run that reads no tool call passes (by default it fails "
        "with input.no_calls: input that was not understood never passes).")] = False,
    progress: ProgressOpt = True,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Translate the options and run :func:`jsoncontract.iter_check` (help text: HELP)."""
    from jsoncontract.api import iter_results, offers_tools
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.cli.options import (
        business_gate,
        exit_code,
        load_baseline,
        note_skipped,
        result_runs,
        stderr_is_terminal,
        write_report,
    )
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.model import Summary
    from jsoncontract.pipeline.contracts import SessionContracts
    from jsoncontract.pipeline.parallel import default_jobs
    from jsoncontract.pipeline.result import ResultChecks
    from jsoncontract.pipeline.settings import NO_TOOLS, check_settings, trace_tools
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    embedded = trace_tools(cfg, captures=captures, tools=tools, spark=spark)
    settings = check_settings(
        cfg,
        captures=captures, tools=tools, tool=tool, dialect=dialect, rules=rules,
        context=context, show_values=show_values, format=format, output=output,
        fail_on=fail_on, color=color, max_shown=max_shown, verbose=verbose, quiet=quiet,
        result_window=result_window, listed=listed, jobs=jobs, spark=spark, exclude=exclude,
        baseline=baseline, embedded=bool(embedded), allow_empty=allow_empty, follow=follow,
    )  # fmt: skip
    if settings.capture and not embedded and not offers_tools(
        settings.captures, tool=settings.tool, dialect=settings.dialect, exclude=settings.exclude
    ):
        raise UsageError(NO_TOOLS)
    known = load_baseline(settings.report.baseline, "check", settings.report.root)
    if settings.spark is not None:
        return _check_on_spark(settings, known)
    skipped_tools: list[tuple[str, str]] = []
    if embedded:
        toolset = ToolSet(embedded)
    else:
        toolset = ToolSet.from_paths(
            settings.tools, tool_name=settings.tool, exclude=settings.exclude,
            skipped=skipped_tools,
        )  # fmt: skip
    note_skipped(skipped_tools, "tool definition")
    with business_gate(settings.business, toolset) as business, _following(settings) as tail:
        reader = CaptureReader(
            dialect=settings.dialect, tool=settings.tool, window=settings.result_window,
            exclude=settings.exclude,
        )  # fmt: skip
        if tail is not None:
            tail = _idle_note(tail, reader, settings.result_window)
        summary = Summary()
        results = iter_results(
            settings.captures, tools=toolset, tool=settings.tool, business=business,
            show_values=settings.show_values, summary=summary, reader=reader,
            results=ResultChecks(settings.results),
            session=SessionContracts(toolset, settings.session), window=settings.result_window,
            jobs=settings.jobs or default_jobs(), keep=settings.report.options.results,
            result_runs=result_runs("check", settings.report.format) and tail is None,
            baseline=known, allow_empty=settings.allow_empty, follow=tail,
        )  # fmt: skip
        bar = None
        if progress and stderr_is_terminal() and "-" not in settings.captures and tail is None:
            bar = _progress(reader, settings.captures)
        flush = tail is not None  # read as it is written
        write_report("check", settings.report, summary, results, progress=bar, flush=flush)
    note_skipped(reader.skipped, "capture")
    # findings a baseline holds do not count toward the exit code
    return exit_code(summary.worst(new=True), settings.report.fail_on)


@contextmanager
def _following(settings: CheckSettings) -> Iterator[Follow | None]:
    """For ``--follow``: how the capture is followed, with Ctrl-C and ``SIGTERM`` ending the
    run as the end of the input does (the summary, then the usual exit code); a second
    Ctrl-C stops at once. ``None`` without ``--follow``."""
    if not settings.follow:
        yield None
        return
    import signal
    import threading

    from jsoncontract._tail import Follow
    from jsoncontract.cli.options import note, stderr_is_terminal

    stop = threading.Event()

    def stopping(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous: list[tuple[int, Any]] = []
    if threading.current_thread() is threading.main_thread():  # in a thread: the input's end
        previous = [(s, signal.signal(s, stopping)) for s in (signal.SIGINT, signal.SIGTERM)]
    try:
        if stderr_is_terminal():
            name = settings.captures[0]
            note(
                f"following {'standard input' if name == '-' else name}: each call is "
                "reported when its verdict is final; Ctrl-C ends the run with its summary"
            )
        yield Follow(stop, notify=note)
    finally:
        for signum, handler in previous:
            signal.signal(signum, handler)


def _idle_note(follow: Follow, reader: CaptureReader, window: int) -> Follow:
    """``follow``, saying once on stderr, when the input goes quiet while calls wait for
    their results, why their verdicts have not been printed."""
    from dataclasses import replace

    from jsoncontract.cli.options import note

    said = False

    def idle() -> None:
        nonlocal said
        waiting = reader.waiting
        if said or not waiting:
            return
        said = True
        held = "1 call is" if waiting == 1 else f"{waiting} calls are"
        note(
            f"{held} held, waiting for a result (up to {window:,} more lines, or until the "
            "run ends; calls are reported in capture order); --result-window 0 reports each "
            "call as soon as it is read"
        )

    return replace(follow, idle=idle)


def _check_on_spark(settings: CheckSettings, known: Baseline | None) -> int:
    """``check --spark MASTER``: the run on a Spark cluster, the report written here."""
    import json

    from jsoncontract import spark
    from jsoncontract.cli.options import exit_code, note, result_runs, write_report

    assert settings.spark is not None
    business = settings.business
    config = business.config.path
    running = spark.active_session()  # the spark extra is there
    files = spark.capture_files(settings.captures, exclude=settings.exclude)  # before Spark
    session = spark.session(settings.spark)
    entries = known is None and result_runs("check", settings.report.format)
    try:
        lines = spark.read_captures(session, files)
        report = spark.check(
            lines, tools=settings.tools, rules=business.rules, config=config,
            context=json.dumps(business.context) if business.context is not None else None,
            tool=settings.tool, dialect=settings.dialect, show_values=settings.show_values,
            window=settings.result_window, entries_only=entries,
            allow_empty=settings.allow_empty,
        )  # fmt: skip
        if report.in_one_task:
            note(
                "the trace carries tool results or MCP session messages, which cannot be "
                "split: Spark checked it in one task, in input order"
            )
        if entries:  # the JSON formats: the executors' report entries, as they are
            results: Iterable[Any] = report.iter_results(settings.report.options.results)
        else:
            results = report.iter_results()
        if known is not None:
            results = _marked(results, report.summary, known)
        write_report("check", settings.report, report.summary, results)
    finally:
        if running is None:  # a session this run started
            session.stop()
    return exit_code(report.summary.worst(new=True), settings.report.fail_on)


def _marked(
    results: Iterable[CallResult | PassedCall], summary: Summary, known: Baseline
) -> Iterator[CallResult | PassedCall]:
    """``results`` with their findings marked against the baseline in input order, as a
    local run marks them, and counted into ``summary``; then the findings over the run."""
    from jsoncontract.model import CallResult
    from jsoncontract.pipeline.runner import marked

    matcher = known.matcher()
    for result in marked(results, matcher):
        if type(result) is CallResult:
            summary.count_baseline(result.findings)
        yield result
    summary.findings[:] = matcher.mark(summary.findings)
    summary.count_baseline(summary.findings)


def _progress(reader: CaptureReader, captures: Sequence[str]) -> CallProgress | None:
    """A bar on stderr for a run long enough to need one (5 MB of named files or more):
    the bytes read, the calls checked and their rate."""
    from jsoncontract._files import expand
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES
    from jsoncontract.cli.options import MIN_BYTES
    from jsoncontract.reporters.progress import CallProgress

    found = expand(captures, CAPTURE_SUFFIXES, what="capture", exclude=reader.exclude)
    total = sum(p.stat().st_size for p in found)
    if total < MIN_BYTES:
        return None
    return CallProgress(total, lambda: reader.bytes_read)
