"""The library entry points behind ``jsoncontract check``.

They return data and never print or exit; errors that stop the job are raised as
:class:`~jsoncontract.errors.JsoncontractError` subclasses.

    >>> from jsoncontract import check
    >>> report = check(["fixtures/captures/faults/schema-enum.json"], tools=["fixtures/tools"])
    >>> report.results[0].findings[0].code
    'schema.enum'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract._files import is_stream
from jsoncontract.capture.ledger import WINDOW
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.errors import UsageError
from jsoncontract.model import (
    CallResult,
    CheckReport,
    Dialect,
    EventKind,
    PassedCall,
    ResultRun,
    Summary,
    ToolCall,
    TraceEvent,
    offered_to,
)
from jsoncontract.pipeline.checker import (
    DEFAULT,
    BusinessGate,
    Checker,
    Default,
    ResultGate,
    SessionGate,
)
from jsoncontract.pipeline.fast import build_lane
from jsoncontract.pipeline.runner import close_run, counted, encoded_runs, marked, plan, splits
from jsoncontract.tools.toolset import ToolSet

if TYPE_CHECKING:
    from jsoncontract._tail import Follow
    from jsoncontract.baseline import Baseline


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
    allow_empty: bool = False,
    follow: Follow | None = None,
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
        allow_empty: a run that reads no tool call is a run like any other; by default it
            ends with an ``input.no_calls`` error in ``summary.findings`` (input that was
            not understood never passes).
        follow: follow the one capture (a file, or ``-``) as it grows, as ``tail -F``
            does, each call yielded as soon as its verdict is final, until ``follow.stop``
            is set or the input ends (see :class:`jsoncontract.Follow`); the run
            then ends as at the end of a file. Checked in this process.

    Raises:
        UsageError: ``follow`` with more than one capture.
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
        allow_empty=allow_empty,
        follow=follow,
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
    allow_empty: bool = False,
    follow: Follow | None = None,
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
    order and results come one by one. With ``follow``, every result comes alone, as soon
    as it is known, from this process.
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
    if follow is not None:
        names = [str(c) for c in captures]
        if len(names) != 1:
            raise UsageError("following a capture as it grows takes one file (or - for stdin)")
        result_runs = False  # each result as soon as it is known
        jobs = 1
    if jobs > 1 and fast:
        from jsoncontract.pipeline import parallel

        names = [str(c) for c in captures]
        if parallel.can_fork() and splits(checker) and not any(map(is_stream, names)):
            parts = plan(reader.find(names), jobs=jobs)
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
                    allow_empty=allow_empty,
                )
                return
        captures = names
    lane = build_lane(checker, reader) if fast else None
    if follow is not None:
        items: Iterable[Any] = reader.follow(names[0], follow, lane)
    elif lane is None:
        items = reader.read_trace(captures)
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
        close_run(summary, reader.files, checker.findings, matcher, allow_empty=allow_empty)


def offers_tools(
    captures: Iterable[str | Path],
    *,
    tool: str | None = None,
    dialect: Dialect | str | None = None,
    dialects: Registry = DIALECTS,
    exclude: Sequence[str] = (),
) -> bool:
    """Whether ``captures`` record tools offered to the model, so that a check without
    tool definitions has a contract to check calls against: a call read with the tools
    offered with it, or an MCP ``tools/list``. The files are read up to the first (all of
    them when none does); standard input is not read (it is read once, by the check), and
    is taken to offer some.

    Raises:
        InputError: a capture cannot be read (as the check would say).
    """
    names = [str(c) for c in captures]
    if any(map(is_stream, names)):
        return True
    reader = CaptureReader(dialect=dialect or None, tool=tool, dialects=dialects, exclude=exclude)
    for item in reader.read_trace(names):
        kind = type(item)
        if kind is ToolCall and offered_to(item) is not None:  # type: ignore[arg-type]
            return True
        if kind is TraceEvent and item.kind is EventKind.TOOLS_LIST:  # type: ignore[union-attr]
            return True
    return False


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
    allow_empty: bool = False,
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
            allow_empty=allow_empty,
        )
    )
    return CheckReport(summary, checked)
