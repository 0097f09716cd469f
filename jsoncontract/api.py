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

from jsoncontract.capture.reader import CaptureReader
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.model import CallResult, CheckReport, Dialect, Summary
from jsoncontract.pipeline.checker import BusinessGate, Checker
from jsoncontract.tools.toolset import ToolSet


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
    show_values: bool = False,
    summary: Summary | None = None,
    reader: CaptureReader | None = None,
    dialects: Registry = DIALECTS,
) -> Iterator[CallResult]:
    """Check every call in ``captures``, yielding one result per call as it is read.

    Arguments:
        captures: capture files and directories (``-`` for stdin).
        tools: a loaded :class:`ToolSet`, or tool definition files and directories.
        tool: the tool of bare downstream bodies (and the name of a bare JSON Schema).
        dialect: read every capture as this dialect instead of detecting it (a
            :class:`Dialect` or the name of a dialect of ``dialects``;
            :class:`~jsoncontract.errors.UsageError` when it is no capture dialect).
        business: the business-rules gate, if any.
        show_values: quote sensitive-looking values in messages instead of hashing them.
        summary: a summary to update as results are produced (``files`` is set at the end).
        reader: a configured reader (its ``bytes_read`` can drive a progress bar); by
            default one is made from ``dialect``, ``tool`` and ``dialects``.
        dialects: the dialects captures and tool files are read in (default: the
            built-in ones; :meth:`~jsoncontract.capture.registry.Registry.adding` makes a
            registry that reads one more).
    """
    toolset = _toolset(tools, tool, dialects)
    if reader is None:
        reader = CaptureReader(dialect=dialect or None, tool=tool, dialects=dialects)
    checker = Checker(toolset, business=business, show_values=show_values)
    for result in checker.run(reader.read(captures)):
        if summary is not None:
            summary.add(result)
        yield result
    if summary is not None:
        summary.files = reader.files


def check(
    captures: Iterable[str | Path],
    *,
    tools: ToolSet | Iterable[str | Path],
    tool: str | None = None,
    dialect: Dialect | str | None = None,
    business: BusinessGate | None = None,
    show_values: bool = False,
    dialects: Registry = DIALECTS,
) -> CheckReport:
    """Check every call in ``captures`` and return the whole report (see :func:`iter_check`)."""
    summary = Summary()
    results = list(
        iter_check(
            captures,
            tools=tools,
            tool=tool,
            dialect=dialect,
            business=business,
            show_values=show_values,
            summary=summary,
            dialects=dialects,
        )
    )
    return CheckReport(summary, results)
