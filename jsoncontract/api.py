"""The library entry points behind ``jsoncontract check``.

They return data and never print or exit; errors that stop the job are raised as
:class:`~jsoncontract.errors.JsoncontractError` subclasses.

    >>> from jsoncontract import check
    >>> report = check(["fixtures/captures/faults/schema-enum.json"], tools=["fixtures/tools"])
    >>> report.results[0].findings[0].code
    'schema.enum'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._files import is_stream
from jsoncontract.capture.ledger import WINDOW
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.model import CallResult, CheckReport, Dialect, PassedCall, ResultRun, Summary
from jsoncontract.pipeline.checker import (
    DEFAULT,
    BusinessGate,
    Checker,
    Default,
    ResultGate,
    SessionGate,
)
from jsoncontract.pipeline.fast import build_lane
from jsoncontract.tools.toolset import ToolSet

if TYPE_CHECKING:
    from jsoncontract.baseline import Baseline, BaselineMatcher


def _toolset(
    tools: ToolSet | Iterable[str | Path], tool: str | None, dialects: Registry
) -> ToolSet:
    if isinstance(tools, ToolSet):
        return tools
    return ToolSet.from_paths(tools, tool_name=tool, dialects=dialects)


def iter_check(
    captures: Iterable[str | Path],
    *,
    tools: ToolSet | Iterable[str | Path],
    tool: str | None = None,
    dialect: Dialect | str | None = None,
    business: BusinessGate | None = None,
    results: ResultGate | Default | None = DEFAULT,
    session: SessionGate | Default | None = DEFAULT,
    show_values: bool = False,
    summary: Summary | None = None,
    reader: CaptureReader | None = None,
    dialects: Registry = DIALECTS,
    window: int = WINDOW,
    baseline: Baseline | None = None,
) -> Iterator[CallResult]:
    """Check every call in ``captures``, yielding one result per call as it is read.

    A call is yielded once its result has been read, or once the reader stops waiting for
    it (``window``); run-level findings (results without a call, turns, sessions) are
    added to ``summary.findings`` when the run ends.

    Arguments:
        captures: capture files and directories (``-`` for stdin).
        tools: a loaded :class:`ToolSet`, or tool definition files and directories.
        tool: the tool of bare downstream bodies (and the name of a bare JSON Schema).
        dialect: read every capture as this dialect instead of detecting it (a
            :class:`Dialect` or the name of a dialect of ``dialects``;
            :class:`~jsoncontract.errors.UsageError` when it is no capture dialect).
        business: the business-rules gate, if any.
        results: the gate over each call's result (default: every result check, with
            default settings; ``None``: results are not checked).
        session: the gate over the run (default: every turn and session contract, see
            :mod:`jsoncontract.pipeline.contracts`; ``None``: none).
        show_values: quote sensitive-looking values in messages instead of hashing them.
        summary: a summary to update as results are produced (``files`` is set at the end).
        reader: a configured reader (its ``bytes_read`` can drive a progress bar); by
            default one is made from ``dialect``, ``tool`` and ``dialects``.
        dialects: the dialects captures and tool files are read in (default: the
            built-in ones; :meth:`~jsoncontract.capture.registry.Registry.adding` makes a
            registry that reads one more).
        window: how many documents (lines, events, files) a call waits for its result.
        baseline: a previous report to compare with: each finding is marked ``new`` or
            ``unchanged`` (see :mod:`jsoncontract.baseline`).
    """
    for result in iter_results(
        captures,
        tools=tools,
        tool=tool,
        dialect=dialect,
        business=business,
        results=results,
        session=session,
        show_values=show_values,
        summary=summary,
        reader=reader,
        dialects=dialects,
        window=window,
        baseline=baseline,
    ):
        if type(result) is PassedCall:
            yield result.result()
        else:
            assert type(result) is CallResult  # runs only come when asked for
            yield result


def iter_results(
    captures: Iterable[str | Path],
    *,
    tools: ToolSet | Iterable[str | Path],
    tool: str | None = None,
    dialect: Dialect | str | None = None,
    business: BusinessGate | None = None,
    results: ResultGate | Default | None = DEFAULT,
    session: SessionGate | Default | None = DEFAULT,
    show_values: bool = False,
    summary: Summary | None = None,
    reader: CaptureReader | None = None,
    dialects: Registry = DIALECTS,
    window: int = WINDOW,
    fast: bool = True,
    jobs: int = 1,
    result_runs: bool = False,
    keep: str = "all",
    baseline: Baseline | None = None,
) -> Iterator[CallResult | PassedCall | ResultRun]:
    """:func:`iter_check` for reports: a call that passed every gate may come as a
    :class:`~jsoncontract.model.PassedCall` (what a report says of it, with
    :meth:`~jsoncontract.model.PassedCall.result` to build the full result), which saves
    building objects nobody reads. ``fast=False`` checks every call on the full path.

    ``jobs`` above 1 checks in that many worker processes (see
    :mod:`jsoncontract.pipeline.parallel`), where they can be forked and there is more
    than one part to check; results come in input order all the same. A passing call then
    comes without its arguments. With ``result_runs`` (for reporters that take them),
    consecutive results come as one :class:`~jsoncontract.model.ResultRun`, counted and
    encoded for a JSON report (by the workers, or here); ``keep`` says which results those
    runs list (``all``, ``findings``, ``failed``: the report's ``results`` option), while
    their summaries count every one. With a ``baseline``, findings are marked in input
    order and results come one by one.
    """
    toolset = _toolset(tools, tool, dialects)
    if reader is None:
        reader = CaptureReader(dialect=dialect or None, tool=tool, dialects=dialects, window=window)
    checker = Checker(
        toolset, business=business, results=results, session=session, show_values=show_values
    )
    matcher = baseline.matcher() if baseline is not None else None
    if matcher is not None:
        result_runs = False  # findings are marked in input order, before they are encoded
    if jobs > 1 and fast:
        from jsoncontract.pipeline import parallel

        names = [str(c) for c in captures]
        if parallel.can_fork() and parallel.splits(checker) and not any(map(is_stream, names)):
            parts = parallel.plan(reader.find(names))
            if len(parts) > 1:
                yield from parallel.iter_parallel(
                    parts,
                    checker=checker,
                    reader=reader,
                    jobs=jobs,
                    summary=summary,
                    runs=result_runs,
                    keep=keep,
                    matcher=matcher,
                )
                return
        captures = names
    lane = build_lane(checker, reader) if fast else None
    if lane is None:
        items: Iterable[Any] = reader.read_trace(captures)
    else:
        items = reader.read_checked(captures, lane)
    checked = checker.stream(items)
    if matcher is not None:
        checked = marked(checked, matcher)
    if result_runs:
        yield from encoded_runs(checked, summary, keep)
    elif summary is None:
        yield from checked
    else:
        yield from counted(checked, summary)
    if summary is not None:
        summary.files = reader.files
        run_findings = list(checker.findings)
        for finding in matcher.mark(run_findings) if matcher is not None else run_findings:
            summary.add_finding(finding)


def counted(
    results: Iterable[CallResult | PassedCall], summary: Summary
) -> Iterator[CallResult | PassedCall]:
    """``results``, each counted into ``summary`` as it passes (in input order: latencies
    are summed as one run sums them)."""
    add, add_passed = summary.add, summary.add_passed  # a fast trace: a result every µs
    for result in results:
        if type(result) is PassedCall:
            add_passed(result.tool)
        else:
            add(result)  # type: ignore[arg-type]
        yield result


def marked(
    results: Iterable[CallResult | PassedCall], matcher: BaselineMatcher
) -> Iterator[CallResult | PassedCall]:
    """``results``, the findings of each marked ``new`` or ``unchanged`` against a
    baseline, in input order (a passed call has none)."""
    for result in results:
        if type(result) is CallResult and result.findings:
            result.findings = matcher.mark(result.findings)
        yield result


#: Results per run when a run in one process encodes them for a JSON report.
_RUN: Final = 4096


def encoded_runs(
    checked: Iterable[CallResult | PassedCall], summary: Summary | None, keep: str
) -> Iterator[ResultRun]:
    """Results counted and encoded for a JSON report, a run of them at a time, as the
    workers of a parallel run hand them back (less work per call than one result at a
    time through the summary and the reporter)."""
    from jsoncontract.reporters.check_json import PassedEntries, encode_result

    entry = PassedEntries().entry
    entries: list[bytes] = []
    counted = Summary()
    add_passed, count = counted.add_passed, counted.count
    time = summary.time if summary is not None else None
    for result in checked:
        if type(result) is PassedCall:
            if keep == "all":
                entries.append(entry(result))
            add_passed(result.tool)
        else:
            assert type(result) is CallResult
            if keep == "all" or (result.stage is not None if keep == "failed" else result.findings):
                entries.append(encode_result(result))
            count(result)
            if time is not None and result.call.result is not None:
                time(result.call)  # in order, into the run's summary
        if counted.calls >= _RUN:
            if summary is not None:
                summary.merge(counted)
            yield ResultRun(counted, b"\n".join(entries))
            entries, counted = [], Summary()
            add_passed, count = counted.add_passed, counted.count
    if counted.calls:
        if summary is not None:
            summary.merge(counted)
        yield ResultRun(counted, b"\n".join(entries))


def check(
    captures: Iterable[str | Path],
    *,
    tools: ToolSet | Iterable[str | Path],
    tool: str | None = None,
    dialect: Dialect | str | None = None,
    business: BusinessGate | None = None,
    results: ResultGate | Default | None = DEFAULT,
    session: SessionGate | Default | None = DEFAULT,
    show_values: bool = False,
    dialects: Registry = DIALECTS,
    window: int = WINDOW,
    baseline: Baseline | None = None,
) -> CheckReport:
    """Check every call in ``captures`` and return the whole report (see :func:`iter_check`)."""
    summary = Summary()
    checked = list(
        iter_check(
            captures,
            tools=tools,
            tool=tool,
            dialect=dialect,
            business=business,
            results=results,
            session=session,
            show_values=show_values,
            summary=summary,
            dialects=dialects,
            window=window,
            baseline=baseline,
        )
    )
    return CheckReport(summary, checked)
