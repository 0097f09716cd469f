"""Putting the hops of one call side by side: the orchestration behind ``jsoncontract diff``.

:class:`Differ` takes a group of hops (from the correlator, or named on the command line),
runs each hop's own gates, compares consecutive hops that could be compared, lets the
mapping files explain what they declare, and returns a :class:`CallDiff`. The functions
:func:`iter_diff` and :func:`diff` are the library entry points; they return data and never
print.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jsoncontract import codes
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.diff.compare import ArrayRule, CompareOptions, Comparer, Entry
from jsoncontract.diff.correlate import DEFAULT_FIELDS, DEFAULT_WINDOW, Correlator, Group, given
from jsoncontract.diff.differences import make_difference
from jsoncontract.diff.explain import explain, undeclared_moves
from jsoncontract.diff.hops import evaluate, read_hop_files
from jsoncontract.diff.mapping import MappingSet
from jsoncontract.diff.model import (
    HOP_RANK,
    CallDiff,
    DiffCode,
    Difference,
    DiffReport,
    DiffSummary,
    HopView,
    Row,
)
from jsoncontract.diff.paths import PathRules, PathSet
from jsoncontract.diff.results import return_leg
from jsoncontract.diff.results import rows as result_rows
from jsoncontract.diff.rows import build_rows, fill_unchanged, single_rows
from jsoncontract.errors import UsageError
from jsoncontract.model import Dialect, Finding, Severity, Stage, locate
from jsoncontract.pipeline.runner import empty_run
from jsoncontract.pointer import ABSENT

if TYPE_CHECKING:
    from jsoncontract.diff.downstream import DownstreamSchemas
    from jsoncontract.tools.toolset import ToolSet


@dataclass(frozen=True, slots=True)
class DiffOptions:
    """How calls are compared and shown.

    Arguments:
        tolerance: numbers closer than this are equal.
        ignore: pointer patterns (``*`` one token, ``**`` any depth, a bare name anywhere)
            whose differences are not reported.
        arrays: ``(pattern, ArrayRule)`` pairs: how arrays at those paths compare.
        show_values: quote sensitive-looking values instead of hashing them.
        correlate: correlation field names looked for in MCP ``_meta`` and trace
            record ``context``.
        window: calls read before an unfinished group of hops is handed out.
    """

    tolerance: float = 0.0
    ignore: tuple[str, ...] = ()
    arrays: tuple[tuple[str, ArrayRule], ...] = ()
    show_values: bool = False
    correlate: tuple[str, ...] = DEFAULT_FIELDS
    window: int = DEFAULT_WINDOW


class Differ:
    """Diffs groups of hops, with each hop checked against its own contract.

    Arguments:
        tools: tool contracts for the model and MCP hops (``None``: no schema check).
        mappings: declared transforms between hops.
        downstream: downstream contracts per tool.
        options: see :class:`DiffOptions`.
    """

    def __init__(
        self,
        *,
        tools: ToolSet | None = None,
        mappings: MappingSet | None = None,
        downstream: DownstreamSchemas | None = None,
        options: DiffOptions | None = None,
    ) -> None:
        self.tools = tools
        self.mappings = mappings or MappingSet()
        self.downstream = downstream
        self.options = options or DiffOptions()
        self._base_ignore = PathSet(self.options.ignore)
        self._base_arrays: PathRules[ArrayRule] = PathRules(self.options.arrays)
        self._compare: dict[str | None, CompareOptions] = {}
        self._comparers: dict[str | None, Comparer] = {}

    def compare_options(self, tool: str | None) -> CompareOptions:
        """The comparison options for a tool: its mapping rules, then the run's."""
        found = self._compare.get(tool)
        if found is None:
            arrays, ignore = self.mappings.rules(tool)
            found = self._compare[tool] = CompareOptions(
                tolerance=self.options.tolerance,
                ignore=ignore.merged(self._base_ignore),
                arrays=arrays.merged(self._base_arrays),
            )
        return found

    def run(self, groups: Iterable[Group]) -> Iterator[CallDiff]:
        """Diff every group, streaming."""
        for group in groups:
            yield self.diff(group)

    def diff(self, group: Group) -> CallDiff:
        """Diff the hops of one call."""
        members = group.ordered()
        first = members[0].call
        if first.hop is None:  # a line of the trace that holds no readable call
            return CallDiff(
                first.tool,
                first.call_id,
                [],
                findings=locate(list(first.load_findings), first),
                pairing=None,
                show_values=self.options.show_values,
            )
        show_values = self.options.show_values
        views: list[HopView] = []
        findings: list[Finding] = []
        for member in members:
            view = evaluate(
                member.call, tools=self.tools, downstream=self.downstream, show_values=show_values
            )
            view.matched_by = member.matched_by
            view.match_key = member.key
            views.append(view)
            findings.extend(view.findings)
        tool = group.tool
        if len(views) == 1:
            findings.append(_unpaired(views[0]))
        else:
            names = {v.call.tool for v in views}
            if len(names) > 1:
                findings.extend(_tool_mismatch(views))
        call_id = None
        for view in views:
            if view.call.call_id:
                call_id = view.call.call_id
                break
        comparer = self._comparers.get(tool)
        if comparer is None:
            comparer = self._comparers[tool] = Comparer(self.compare_options(tool))
        differences: list[Difference] = []
        pairs = _consecutive(views)
        for ia, ib in pairs:
            entries, found = self._entries(views[ia], views[ib], tool, comparer, count=True)
            if found:
                findings.extend(locate(found, views[ib].call))
            differences.extend(
                self._difference(entry, views[ia], views[ib], tool)
                for entry in entries
                if entry.code is not None
            )
        tolerance = self.options.tolerance
        leg = return_leg(views, tolerance=tolerance, show_values=show_values, tool=tool)
        differences.extend(leg.differences)
        result = CallDiff(
            tool,
            call_id,
            views,
            differences,
            findings,
            pairing=group.pairing(),
            show_values=show_values,
            pairs=pairs,
            result_hops=leg.views,
        )
        result._rows = lambda changed_only: self._rows(views, tool, changed_only)
        if len(leg.views) > 1:
            result._result_rows = lambda: result_rows(
                leg, show_values=show_values, tolerance=tolerance
            )
        return result

    # -- internals -------------------------------------------------------------------------

    def _entries(
        self, va: HopView, vb: HopView, tool: str | None, comparer: Comparer, *, count: bool
    ) -> tuple[list[Entry], list[Finding]]:
        entries = comparer.compare(va.value, vb.value)
        found: list[Finding] = []
        if self.mappings:
            transforms = self.mappings.transforms(tool, va.hop, vb.hop)
            if transforms:
                outcome = explain(
                    entries,
                    va.value,
                    vb.value,
                    transforms,
                    comparer,
                    a_hop=va.hop,
                    b_hop=vb.hop,
                    used=self.mappings.used if count else None,
                )
                entries = outcome.entries
                found = outcome.findings
        if any(e.code is DiffCode.DROPPED for e in entries):
            undeclared_moves(entries, va.value, vb.value)
        return entries, found

    def _difference(self, entry: Entry, va: HopView, vb: HopView, tool: str | None) -> Difference:
        return make_difference(entry, va, vb, tool, show_values=self.options.show_values)

    def _rows(self, views: list[HopView], tool: str | None, changed_only: bool) -> list[Row]:
        show_values = self.options.show_values
        comparer = Comparer(self.compare_options(tool), align=not changed_only)
        consecutive = _consecutive(views)
        if not consecutive:
            for index, view in enumerate(views):
                if view.available:
                    entries = comparer.compare(view.value, view.value)
                    return single_rows(view, entries, index, len(views), show_values=show_values)
            return []
        pairs = []
        for ia, ib in consecutive:
            entries, _ = self._entries(views[ia], views[ib], tool, comparer, count=False)
            pairs.append(
                (
                    ia,
                    ib,
                    [
                        (e, self._difference(e, views[ia], views[ib], tool) if e.code else None)
                        for e in entries
                    ],
                )
            )
        rows = build_rows(views, pairs, show_values=show_values)
        fill_unchanged(rows, views)
        return rows


def _consecutive(views: Sequence[HopView]) -> list[tuple[int, int]]:
    """Index pairs of consecutive hops that can be compared (unparsable ones skipped)."""
    usable = [i for i, v in enumerate(views) if v.value is not ABSENT]
    return list(itertools.pairwise(usable))


def _tool_mismatch(views: Sequence[HopView]) -> list[Finding]:
    out: list[Finding] = []
    first = next((v for v in views if v.call.tool), None)
    if first is None:
        return out
    for view in views:
        name = view.call.tool
        if name and name != first.call.tool:
            out.append(
                locate(
                    [
                        Finding(
                            code=codes.DIFF_TOOL_MISMATCH,
                            severity=Severity.ERROR,
                            message=f"the {view.hop.value} hop calls {name!r} but the "
                            f"{first.hop.value} hop called {first.call.tool!r}",
                            stage=Stage.ENVELOPE,
                            hint="the adapter renamed the tool on the way, or these hops are "
                            "not the same call (check the pairing)",
                        )
                    ],
                    view.call,
                )[0]
            )
    return out


def _unpaired(view: HopView) -> Finding:
    return locate(
        [
            Finding(
                code=codes.DIFF_UNPAIRED,
                severity=Severity.WARNING,
                message=f"only the {view.hop.value} hop of this call was found: no other hop "
                "shares its id or follows it with the same tool",
                hint="capture the other hops, or carry the model's call id in MCP "
                "params._meta / the trace record's context (see --correlate)",
            )
        ],
        view.call,
    )[0]


# -- the library entry points --------------------------------------------------------------


def iter_diff(
    hop_files: Sequence[str | Path] = (),
    *,
    trace: str | Path | None = None,
    call_id: str | None = None,
    tools: ToolSet | None = None,
    mappings: MappingSet | None = None,
    downstream: DownstreamSchemas | None = None,
    options: DiffOptions | None = None,
    tool: str | None = None,
    dialect: Dialect | str | None = None,
    summary: DiffSummary | None = None,
    allow_empty: bool = False,
) -> Iterator[CallDiff]:
    """Diff the hops named as files, or every call of a trace, one :class:`CallDiff` each.

    Arguments:
        hop_files: two or three captures of one call (model, MCP frame, downstream body,
            in any order and any dialect; a ``.har`` may hold several hops).
        trace: a JSONL trace whose calls are correlated across hops instead.
        call_id: diff only the call with this id (at any hop); when no id is exactly this,
            every call whose id starts with it.
        tools: tool contracts, to check the model and MCP hops.
        mappings: declared transforms between hops.
        downstream: the downstream contracts.
        options: see :class:`DiffOptions`.
        tool: the tool of bare downstream bodies.
        dialect: read every capture as this dialect.
        summary: updated as calls are diffed (and with run-level findings at the end).
        allow_empty: a trace that holds no readable call is a run like any other; by
            default it ends with an ``input.no_calls`` error in the summary's findings.

    Raises:
        UsageError: neither or both of ``hop_files`` and ``trace``; ``call_id`` not found.
        InputError: a hop file is unreadable, not JSON, or in no known dialect.
    """
    options = options or DiffOptions()
    mappings = mappings or MappingSet()
    forced = Dialect(dialect) if dialect else None
    if bool(hop_files) == (trace is not None):
        raise UsageError("give two or three hop files, or --trace FILE.jsonl (not both)")
    differ = Differ(tools=tools, mappings=mappings, downstream=downstream, options=options)
    correlator = Correlator(options.correlate, window=options.window)
    groups: Iterable[Group]
    reader: CaptureReader | None = None
    if trace is not None:
        reader = CaptureReader(tool=tool, dialect=forced)
        groups = correlator.run(reader.read_file(trace))
    else:
        calls = read_hop_files(hop_files, tool=tool, dialect=forced)
        hops = [c.hop for c in calls]
        if len(set(hops)) == len(hops):
            groups = [given(calls)]
        else:
            calls.sort(key=lambda c: HOP_RANK[c.hop] if c.hop is not None else 9)
            groups = correlator.run(calls)
    if summary is not None:
        for warning in mappings.warnings:
            summary.note(warning)
    seen_ids: list[str] = []
    matched = False
    diffed = 0
    read = 0  # calls read (a line that holds none is a result without hops)
    groups = list(groups)
    exact = call_id is not None and any(
        call_id in _ids(group) for group in groups
    )  # an id given in full picks that call, even when it is also a prefix of another
    for group in groups:
        if call_id is not None:
            ids = _ids(group)
            wanted = call_id in ids if exact else any(i.startswith(call_id) for i in ids if i)
            if not wanted:
                if len(seen_ids) < 8:
                    seen_ids.extend(sorted(i for i in ids if i and i not in seen_ids))
                continue
            matched = True
        result = differ.diff(group)
        diffed += len(result.hops) > 1
        read += bool(result.hops)
        if summary is not None:
            summary.add(result)
        yield result
    if call_id is not None and not matched:
        known = ", ".join(seen_ids[:8]) or "none"
        raise UsageError(
            f"no call has an id that is or starts with {call_id!r} (ids seen: {known})"
        )
    if summary is not None:
        summary.files = reader.files if reader is not None else len(hop_files)
        if diffed and mappings:
            for warning in mappings.unused():
                summary.note(warning)
        if not read and not allow_empty and call_id is None:
            summary.note(empty_run(summary.files, len(groups)))


def diff(
    hop_files: Sequence[str | Path] = (),
    *,
    trace: str | Path | None = None,
    call_id: str | None = None,
    tools: ToolSet | None = None,
    mappings: MappingSet | None = None,
    downstream: DownstreamSchemas | None = None,
    options: DiffOptions | None = None,
    tool: str | None = None,
    dialect: Dialect | str | None = None,
) -> DiffReport:
    """Diff and return the whole report (see :func:`iter_diff`)."""
    summary = DiffSummary()
    results = list(
        iter_diff(
            hop_files,
            trace=trace,
            call_id=call_id,
            tools=tools,
            mappings=mappings,
            downstream=downstream,
            options=options,
            tool=tool,
            dialect=dialect,
            summary=summary,
        )
    )
    return DiffReport(summary, results)


def _ids(group: Group) -> set[str]:
    """Every id a group of hops is known by."""
    ids: set[str] = {m.call.call_id for m in group.members if m.call.call_id}
    return ids | set(group.strong) | set(group.weak)
