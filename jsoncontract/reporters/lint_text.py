"""``lint --format text``: for people.

One line per finding, ``file:line:col: severity CODE [*] message [tool]`` (clickable in
terminals and editors; ``[*]`` marks findings ``--fix`` repairs), then its hint, then a
summary; ``--statistics`` adds the count of findings per rule. A finding without a line (a
live server's tool, ``mcp lint``) is placed by ``server tool/pointer`` instead.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Never

from jsoncontract.model import BaselineState
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import Line, LineWriter, Style, located_finding, note, plural

if TYPE_CHECKING:
    from jsoncontract.lint.report import LintFinding, LintReport


def finding_lines(item: LintFinding) -> list[Line]:
    """The text lines of one finding: location, severity, code, message, tool; the hint,
    and why a fixable rule offers no fix here."""
    where = item.file
    tool = item.tool
    if item.line is not None:
        where += f":{item.line}"
        if item.column is not None:
            where += f":{item.column}"
    elif tool is not None:  # no line (a live server's tool): the tool and the pointer in it
        where += f" {tool}{item.path}"
        tool = None
    lines = [
        located_finding(
            where, item.severity, item.code, item.message, fixable=item.fix is not None,
            tool=tool,
        )
    ]  # fmt: skip
    if item.baseline is BaselineState.UNCHANGED:
        lines[0].append((" (in the baseline)", Style.DIM))
    if item.hint:
        lines.append(note("hint", item.hint))
    if item.refused:
        lines.append(note("not fixed", item.refused))
    return lines


class TextLintReporter(Reporter[Never, "LintReport"]):
    """The human-readable ``lint`` report."""

    def close(self, report: LintReport) -> None:
        """Write the findings, then the summary."""
        options = self.options
        out = LineWriter(self.stream, options.color, options.width)
        quiet = options.quiet
        if not quiet:
            for item in report.findings:
                out.write(finding_lines(item))
        summary = report.summary()
        lines: list[Line] = []
        if report.findings and not quiet:
            lines.append([])
        if options.statistics and report.findings:
            lines.extend(_statistics(report.findings))
            lines.append([])
        sev = summary["by_severity"]
        files = summary["files"]
        total = summary["findings"]
        head = (
            f"{plural(total, 'finding')} in {plural(summary['tools'], 'tool')} "
            f"({plural(files, report.unit)})"
        )
        style = "bold red" if sev["error"] else "bold yellow" if total else "bold green"
        lines.append(
            [
                (head, style),
                (
                    f": {plural(sev['error'], 'error')}, {plural(sev['warning'], 'warning')}, "
                    f"{sev['info']} info",
                    "",
                ),
            ]
        )
        extras = [f"profiles: {', '.join(report.profiles)}"]
        if report.mcp_version:
            extras.append(f"MCP {report.mcp_version}")
        if summary["fixable"]:
            extras.append(f"{summary['fixable']} fixable with --fix ([*]; --diff to preview)")
        if summary["suppressed"]:
            extras.append(f"{summary['suppressed']} suppressed by config")
        if "baseline" in summary:
            held = summary["baseline"]["unchanged"]
            extras.append(f"{held} in the baseline (they do not fail the run)")
        if report.fixed:
            extras.append(f"{report.fixed} fixed")
        lines.append([("  " + "; ".join(extras), Style.DIM)])
        lines.extend(
            [
                ("  unused suppression: ", "yellow"),
                (f"{', '.join(s.rules)} for {', '.join(s.tools)} ({s.reason})", ""),
            ]
            for s in report.unused_suppressions
        )
        out.write(lines)
        out.close()


def _statistics(findings: list[LintFinding]) -> list[Line]:
    """Findings per rule, most frequent first; ``[*]`` where ``--fix`` repairs some."""
    counts = Counter(item.code for item in findings)
    fixable = Counter(item.code for item in findings if item.fix)
    names = {item.code: item.rule for item in findings}
    lines: list[Line] = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[*]" if fixable.get(code) else "   "
        lines.append(
            [
                (f"{count:>6}  ", ""),
                (code, Style.CODE),
                (f" {mark} ", Style.GOOD),
                (names[code], ""),
            ]
        )
    return lines
