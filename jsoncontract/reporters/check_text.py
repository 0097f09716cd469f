"""``check --format text``: for people.

Each failing call gets a header line (file:line, tool, hop, dialect, call id) and one line per
finding with its code, JSON Pointer and message, then the hint. Passing calls are counted,
not listed (``--verbose`` lists them). At most ``max_shown`` failing calls are written in
full; the summary counts everything.

Styled on a terminal, plain when piped (:mod:`jsoncontract.reporters.text`).
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Final

from jsoncontract.model import STAGE_ORDER, BaselineState
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import Line, LineWriter, Style, plural, severity_label

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, Finding, PassedCall, Summary, ToolCall
    from jsoncontract.settings import ReportOptions


def call_status(result: CallResult) -> str:
    """``FAIL`` (a gate failed), ``WARN`` (findings, none an error) or ``ok``."""
    if result.stage is not None:
        return "FAIL"
    return "WARN" if result.findings else "ok"


def call_details(call: ToolCall) -> list[str]:
    """What says which call it is: its hop, dialect and id (those it has)."""
    parts = (
        call.hop.value if call.hop else None,
        str(call.dialect) if call.dialect else None,
        call.call_id,
    )
    return [p for p in parts if p]


_STATUS_STYLE: Final = {
    "FAIL": ("FAIL", "bold red"),
    "WARN": ("WARN", "yellow"),
    "ok": ("ok  ", Style.GOOD),
}


def call_header(result: CallResult) -> Line:
    """``FAIL file:line tool (hop, dialect, call id)``."""
    call = result.call
    status = _STATUS_STYLE[call_status(result)]
    details = call_details(call)
    out: Line = [status, (" ", ""), (str(call.source), Style.LOCATION), (" ", "")]
    out.append((call.tool or "(no tool)", Style.TOOL))
    if details:
        out.append((f" ({', '.join(details)})", "dim"))
    if result.stage is not None:
        out.append((f"  failed at {result.stage.value}", "red"))
    return out


def finding_lines(finding: Finding, indent: str = "  ") -> list[Line]:
    """One line for the finding, one for its hint."""
    lines: list[Line] = [
        [
            (indent, ""),
            severity_label(finding.severity),
            (" ", ""),
            (finding.code, Style.CODE),
            (" ", ""),
            (finding.path or "/", Style.POINTER),
            (": ", ""),
            (finding.message, ""),
        ]
    ]
    if finding.baseline is BaselineState.UNCHANGED:
        lines[0].append((" (in the baseline)", Style.DIM))
    if finding.hint:
        lines.append([(indent + " " * 8, ""), ("hint: ", Style.DIM), (finding.hint, Style.DIM)])
    return lines


def run_lines(findings: list[Finding]) -> list[Line]:
    """The findings about the run rather than one call, each at its place."""
    noun = "finding" if len(findings) == 1 else "findings"
    lines: list[Line] = [[("RUN ", "bold"), (f"{len(findings)} {noun} over the run", "")]]
    for finding in findings:
        lines.extend(finding_lines(finding))
        if finding.source is not None:
            lines.append([("          at ", Style.DIM), (str(finding.source), Style.LOCATION)])
    return lines


def summary_lines(summary: Summary) -> list[Line]:
    """The closing summary: totals, by stage, by severity, by tool."""
    noun = "call" if summary.calls == 1 else "calls"
    files = "file" if summary.files == 1 else "files"  # "1 call in 1 file"
    failed_style = "bold red" if summary.failed else "green"
    lines: list[Line] = [
        [
            (f"{summary.calls} {noun} in {summary.files} {files}: ", "bold"),
            (f"{summary.ok} ok", "green"),
            (", ", ""),
            (f"{summary.failed} failed", failed_style),
        ]
    ]
    if summary.failed:
        stages = " · ".join(f"{s.value} {summary.by_stage.get(s.value, 0)}" for s in STAGE_ORDER)
        lines.append([("  failed at: ", "dim"), (stages, "")])
    sev = summary.by_severity
    lines.append(
        [
            ("  findings: ", "dim"),
            (
                f"{plural(sev.get('error', 0), 'error')}, "
                f"{plural(sev.get('warning', 0), 'warning')}, {sev.get('info', 0)} info"
                + (
                    f"; {summary.baseline.get('unchanged', 0)} in the baseline (they do not "
                    "fail the run)"
                    if summary.baseline
                    else ""
                ),
                "",
            ),
        ]
    )
    if summary.by_tool:
        width = max(len(name) for name in summary.by_tool)
        width = max(width, 4)
        results = summary.by_result
        timed = any(s.timed for s in results.values())
        head = f"  {'tool':<{width}}  {'calls':>7}  {'failed':>7}"
        if results:
            head += f"  {'results':>7}  {'errors':>7}"
        if timed:
            head += f"  {'p50 ms':>9}  {'p95 ms':>9}  {'max ms':>9}"
        lines.append([(head, "dim")])
        for name, (calls, failed) in sorted(summary.by_tool.items()):
            line: Line = [
                (f"  {name:<{width}}  {calls:>7}  ", ""),
                (f"{failed:>7}", "red" if failed else ""),
            ]
            stats = results.get(name)
            if results:
                answered = stats.results if stats is not None else 0
                errors = stats.errors if stats is not None else 0
                line.append((f"  {answered:>7}  ", ""))
                line.append((f"{errors:>7}", "yellow" if errors else ""))
            if timed:
                latency = stats.latency() if stats is not None else None
                cells = (
                    [_ms(latency[k]) for k in ("p50", "p95", "max")]
                    if latency is not None
                    else ["-"] * 3
                )
                line.append(("".join(f"  {c:>9}" for c in cells), ""))
            lines.append(line)
    return lines


def _ms(value: float) -> str:
    """A latency for the table: three significant figures, at least one decimal below 10."""
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


class TextCheckReporter(Reporter["CallResult", "Summary"]):
    """The human-readable ``check`` report."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._out = LineWriter(stream, options.color, options.width)
        self._shown = 0
        self._hidden = 0
        self._listed = False  # a call was written (a passing one too, with verbose)

    def add(self, result: CallResult) -> None:
        """Write a failing (or, verbose, any) call; count the rest."""
        options = self.options
        if options.quiet:
            return
        if not result.findings and not options.verbose:
            return
        if result.stage is not None or result.findings:
            if options.max_shown and self._shown >= options.max_shown:
                self._hidden += 1
                return
            self._shown += 1
        lines = [call_header(result)]
        for finding in result.findings:
            lines.extend(finding_lines(finding))
        self._out.write(lines)
        self._listed = True

    def add_passed(self, passed: PassedCall) -> None:
        """A passing call is listed only with ``verbose``."""
        if self.options.verbose and not self.options.quiet:
            self.add(passed.result())

    def close(self, summary: Summary) -> None:
        """Write the run-level findings, then the summary."""
        lines: list[Line] = []
        if summary.findings and not self.options.quiet:
            if self._listed:
                lines.append([])
            lines.extend(run_lines(summary.findings))
        if self._listed or self._hidden or (summary.findings and not self.options.quiet):
            lines.append([])
        if self._hidden:
            lines.append(
                [
                    (
                        f"... {self._hidden} more calls with findings not shown "
                        "(--max-shown 0 shows all; --format json lists everything)",
                        "dim",
                    )
                ]
            )
        lines.extend(summary_lines(summary))
        self._out.write(lines)
        self._out.close()
