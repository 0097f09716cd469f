"""``test --format text`` and the ``fixtures`` text report: for people.

The test report gives one line per suite (tool, file, counts), then each case that did not
pass: its status (``FAIL``, ``WEAK`` for a contract weakness, ``ERR`` for a suite that could
not run), name and ``file:line``, what was expected against what happened, and a hint.
``--verbose`` lists passing and skipped cases too; ``--quiet`` prints only the totals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Never

from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import Line, LineWriter, Segment, plural
from jsoncontract.suites.model import Status, group_by_suite

if TYPE_CHECKING:
    from jsoncontract.suites.generate import GenerationReport, ToolGeneration
    from jsoncontract.suites.model import CaseOutcome, TestReport, TestSummary

_LABEL: Final = {
    Status.PASSED: ("ok  ", "green"),
    Status.FAILED: ("FAIL", "bold red"),
    Status.WEAKNESS: ("WEAK", "bold yellow"),
    Status.SKIPPED: ("skip", "dim"),
    Status.ERROR: ("ERR ", "bold red"),
}
_INDENT: Final = "        "


def _counts(counts: Mapping[str, int]) -> list[Segment]:
    parts: list[Segment] = []
    for key, word, style in (
        ("passed", "passed", "green"),
        ("failed", "failed", "bold red"),
        ("weakness", "weakness", "bold yellow"),
        ("skipped", "skipped", "dim"),
        ("errors", "suite error", "bold red"),
    ):
        value = counts.get(key, 0)
        if not value and key != "passed":
            continue
        if parts:
            parts.append((", ", ""))
        if key == "weakness":
            text = plural(value, word, "weaknesses")
        elif key == "errors":
            text = plural(value, word)
        else:
            text = f"{value} {word}"
        parts.append((text, style if value else ""))
    return parts


def outcome_lines(outcome: CaseOutcome) -> list[Line]:
    """The lines of one case: status, name and place, then what happened and the hint."""
    label, style = _LABEL[outcome.status]
    suite, case = outcome.suite, outcome.case
    where = suite.file
    if case is not None:
        line = suite.line_of(case)
        if line is not None:
            where = f"{where}:{line}"
    lines: list[Line] = [
        [("  ", ""), (label, style), ("  ", ""), (outcome.name, "bold"), (f"  ({where})", "dim")]
    ]
    if outcome.message:
        lines.append([(_INDENT, ""), (outcome.message, "")])
    if outcome.server is not None:
        lines.append([(_INDENT, ""), ("server: ", "cyan"), (outcome.server.text, "")])
    if outcome.hint:
        lines.append([(_INDENT, ""), ("hint: ", "dim"), (outcome.hint, "dim")])
    return lines


def summary_lines(summary: TestSummary) -> list[Line]:
    """The per-tool table and the closing totals."""
    lines: list[Line] = []
    if summary.by_tool:
        width = max(4, *(len(name) for name in summary.by_tool))
        head = (
            f"  {'tool':<{width}}  {'cases':>6}  {'passed':>6}  {'failed':>6}  {'weak':>6}  "
            f"{'skipped':>7}"
        )
        lines.append([(head, "dim")])
        for name, c in sorted(summary.by_tool.items()):
            if c.get("errors"):
                lines.append(
                    [(f"  {name:<{width}}  ", ""), ("the suite could not run", "bold red")]
                )
                continue
            lines.append(
                [
                    (f"  {name:<{width}}  {c.get('cases', 0):>6}  {c.get('passed', 0):>6}  ", ""),
                    (f"{c.get('failed', 0):>6}", "red" if c.get("failed") else ""),
                    ("  ", ""),
                    (f"{c.get('weakness', 0):>6}", "yellow" if c.get("weakness") else ""),
                    (f"  {c.get('skipped', 0):>7}", ""),
                ]
            )
    lines.append([(f"{totals_head(summary)}: ", "bold"), *_counts(_totals(summary))])
    return lines


def _totals(summary: TestSummary) -> dict[str, int]:
    return {
        "passed": summary.passed,
        "failed": summary.failed,
        "weakness": summary.weaknesses,
        "skipped": summary.skipped,
        "errors": summary.errors,
    }


def totals_head(summary: TestSummary) -> str:
    """``19 cases in 1 suite``."""
    return f"{plural(summary.cases, 'case')} in {plural(summary.suites, 'suite')}"


def totals_counts(summary: TestSummary) -> str:
    """``16 passed, 3 weaknesses``: passed always, the other counts when not zero."""
    return "".join(text for text, _ in _counts(_totals(summary)))


class TextTestReporter(Reporter[Never, "TestReport"]):
    """The human-readable ``test`` report."""

    def close(self, report: TestReport) -> None:
        """Write each suite with the cases that did not pass, then the totals."""
        options = self.options
        out = LineWriter(self.stream, options.color, options.width)
        if not options.quiet:
            groups = group_by_suite(report.outcomes)
            width = max([4, *(len(suite.tool) for suite, _ in groups)])
            files = max([0, *(len(suite.file) for suite, _ in groups)])
            for suite, outcomes in groups:
                counts = Counter(o.status.value for o in outcomes)
                counts["errors"] = counts.pop(Status.ERROR.value, 0)
                head: list[Segment] = [
                    (f"{suite.tool:<{width}}", "bold magenta"),
                    (f"  {suite.file:<{files}}  ", "dim"),
                    *_counts(counts),
                ]
                lines = [head]
                for outcome in outcomes:
                    if options.verbose or not outcome.ok:
                        lines.extend(outcome_lines(outcome))
                out.write(lines)
            if groups:
                out.write([[]])
        for update in report.updates:
            out.write(
                [
                    [
                        ("updated ", "bold cyan"),
                        (f"{update.tool} {update.case}", "bold"),
                        (f": {update.before.describe()} -> {update.after.describe()}", ""),
                    ]
                ]
            )
        if report.updates:
            noun = plural(len(report.updates), "expectation")
            files = len({u.file for u in report.updates})
            out.write([[(f"{noun} rewritten in {plural(files, 'suite file')}", "cyan")], []])
        out.write(summary_lines(report.summary))
        out.close()


# -- fixtures -------------------------------------------------------------------------------


def _tool_line(record: ToolGeneration, width: int, files: int) -> list[Segment]:
    head: list[Segment] = [(f"{record.tool:<{width}}  ", "bold magenta")]
    if record.error is not None and not record.cases:
        return [*head, ("no suite: ", "bold red"), (record.error, "")]
    head.append((f"{record.path!s:<{files}}  ", "dim"))
    head.append((f"{plural(record.cases, 'case')} ({record.describe_change()})", ""))
    return head


class TextFixturesReporter(Reporter[Never, "GenerationReport"]):
    """The human-readable ``fixtures`` report."""

    def close(self, report: GenerationReport) -> None:
        """Write a line per tool (and what was stale or skipped), then the totals."""
        options = self.options
        out = LineWriter(self.stream, options.color, options.width)
        width = max([4, *(len(t.tool) for t in report.tools)])
        files = max([0, *(len(str(t.path)) for t in report.tools)])
        for record in report.tools:
            if options.quiet:
                break
            lines = [_tool_line(record, width, files)]
            if record.error is not None and record.cases:
                lines.append([("  error: ", "bold red"), (record.error, "")])
            stale_kept = [n for n in record.stale if n not in record.removed]
            if stale_kept:
                lines.append(
                    [
                        ("  stale: ", "yellow"),
                        (", ".join(stale_kept), ""),
                        (" (no longer generated; --prune removes those never edited)", "dim"),
                    ]
                )
            lines.extend(
                [("  skipped ", "dim"), (skip.what, ""), (f": {skip.reason}", "dim")]
                for skip in record.skipped
            )
            out.write(lines)
        for finding in report.unrecorded:
            lines = [
                [
                    ("error: ", "bold red"),
                    (f"{finding.source}: " if finding.source is not None else "", ""),
                    (finding.message, ""),
                    ("; no regression case was written", "dim"),
                ]
            ]
            if finding.hint:
                lines.append([("  hint: ", "dim"), (finding.hint, "dim")])
            out.write(lines)
        done = "would change" if report.check else "written"
        total = sum(t.cases for t in report.tools)
        suites = sum(1 for t in report.tools if t.error is None or t.cases)
        summary: list[Segment] = [
            (f"{plural(suites, 'suite')} in {report.directory}: {plural(total, 'case')}; ", "bold"),
            (f"{report.changed} {done}", "cyan" if report.changed else ""),
        ]
        stale = sum(len(t.stale) - len(t.removed) for t in report.tools)
        skipped = sum(len(t.skipped) for t in report.tools)
        if stale:
            summary.append((f", {stale} stale", "yellow"))
        if skipped:
            summary.append((f", {skipped} skipped", "dim"))
        missing = sum(1 for t in report.tools if t.error is not None and not t.cases)
        if missing:
            summary.append((f", {plural(missing, 'tool')} without a suite", "bold red"))
        out.write([summary] if options.quiet else [[], summary])
        out.close()
