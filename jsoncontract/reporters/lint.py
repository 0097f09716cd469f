"""``lint`` reports in every format: text, json, sarif, junit and github.

Text is for people: one line per finding, ``file:line:col: severity CODE [*] message
[tool]`` (clickable in terminals and editors; ``[*]`` marks findings ``--fix`` repairs),
then its hint, then a summary. The other formats delegate to the generic finding
renderers of :mod:`jsoncontract.reporters`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Final

import orjson

from jsoncontract.model import Severity
from jsoncontract.reporters.check_text import LineWriter, Segment
from jsoncontract.reporters.interface import ReportOptions

if TYPE_CHECKING:
    from jsoncontract.lint.report import LintFinding, LintReport
    from jsoncontract.reporters.findings import RuleMeta

_STYLE: Final = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


@dataclass(frozen=True, slots=True)
class LintReportOptions:
    """What a lint report needs besides the findings."""

    rules: Mapping[str, RuleMeta]
    fail_on: str = "error"
    statistics: bool = False
    view: ReportOptions = field(default_factory=ReportOptions)


def finding_line(item: LintFinding) -> list[list[Segment]]:
    """The text lines of one finding: location, severity, code, message, tool; the hint."""
    where = item.file
    if item.line is not None:
        where += f":{item.line}"
        if item.column is not None:
            where += f":{item.column}"
    elif item.tool is not None:  # no line (a live server): the tool and the pointer in it
        where += f" {item.tool}{item.path}"
    line: list[Segment] = [
        (where, "bold"),
        (": ", ""),
        (str.__str__(item.severity), _STYLE[item.severity]),
        (" ", ""),
        (item.code, "bold"),
        (" ", ""),
    ]
    if item.fix is not None:
        line.append(("[*] ", "green"))
    line.append((item.message, ""))
    if item.tool is not None and item.line is not None:
        line.append((f" [{item.tool}]", "magenta"))
    lines = [line]
    if item.hint:
        lines.append([("    hint: ", "dim"), (item.hint, "dim")])
    if item.refused:
        lines.append([("    not fixed: ", "dim"), (item.refused, "dim")])
    return lines


def write_text(report: LintReport, stream: IO[bytes], options: LintReportOptions) -> None:
    """The text report."""
    out = LineWriter(stream, options.view)
    quiet = options.view.quiet
    if not quiet:
        for item in report.findings:
            out.write(finding_line(item))
    summary = report.summary()
    lines: list[list[Segment]] = []
    if report.findings and not quiet:
        lines.append([])
    if options.statistics and report.findings:
        counts = Counter(item.code for item in report.findings)
        fixable = Counter(item.code for item in report.findings if item.fix)
        for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            meta = options.rules.get(code)
            mark = "[*]" if fixable.get(code) else "   "
            lines.append(
                [(f"{count:>6}  ", ""), (code, "bold"), (f" {mark} ", "green"),
                 (meta.name if meta else "", "")]
            )  # fmt: skip
        lines.append([])
    sev = summary["by_severity"]
    files = summary["files"]
    total = summary["findings"]
    unit = report.unit
    head = (
        f"{total} finding{'s' if total != 1 else ''} in {summary['tools']} "
        f"tool{'s' if summary['tools'] != 1 else ''} ({files} {unit}{'s' if files != 1 else ''})"
    )
    style = "bold red" if sev["error"] else "bold yellow" if total else "bold green"
    lines.append(
        [
            (head, style),
            (
                f": {_count(sev['error'], 'error')}, {_count(sev['warning'], 'warning')}, "
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
    if report.fixed:
        extras.append(f"{report.fixed} fixed")
    lines.append([("  " + "; ".join(extras), "dim")])
    lines.extend(
        [
            ("  unused suppression: ", "yellow"),
            (f"{', '.join(s.rules)} for {', '.join(s.tools)} ({s.reason})", ""),
        ]
        for s in report.unused_suppressions
    )
    out.write(lines)
    out.close()


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def write_json(report: LintReport, stream: IO[bytes], options: LintReportOptions) -> None:
    """``{"version": 1, "summary": {...}, "findings": [...]}``, written in chunks."""
    dumps = orjson.dumps
    head = dumps({"version": 1, "summary": report.summary()})
    stream.write(head[:-1] + b',"findings":[')
    findings = report.findings
    for start in range(0, len(findings), 4096):
        chunk = dumps([item.to_dict() for item in findings[start : start + 4096]])
        if start:
            stream.write(b",")
        stream.write(chunk[1:-1])
    stream.write(b"]}\n")


def write_sarif(report: LintReport, stream: IO[bytes], options: LintReportOptions) -> None:
    """SARIF 2.1.0 with the metadata (and help) of every rule that has a result."""
    from jsoncontract.reporters.sarif import render_sarif

    used = {item.code for item in report.findings}
    used.update(item.code for item, _ in report.suppressed)
    text = render_sarif(
        [item.finding for item in report.findings],
        {code: meta for code, meta in options.rules.items() if code in used},
        suppressed=[(item.finding, s.reason) for item, s in report.suppressed],
    )
    stream.write(text.encode())


def write_junit(report: LintReport, stream: IO[bytes], options: LintReportOptions) -> None:
    """JUnit XML: a suite per file, a case per tool, failing findings as failed cases."""
    from jsoncontract.reporters.junit import render_junit, suites_from_findings

    suites = suites_from_findings(
        [item.finding for item in report.findings],
        files=report.files,
        tools_by_file=dict(report.tools_by_file),
        fail_on=options.fail_on,
    )
    stream.write(render_junit(suites, name="jsoncontract lint").encode())


def write_github(report: LintReport, stream: IO[bytes], options: LintReportOptions) -> None:
    """GitHub Actions annotations, one line per finding."""
    from jsoncontract.reporters.github import annotations_from_findings, render_github

    names = {code: meta.name for code, meta in options.rules.items()}
    annotations = annotations_from_findings([item.finding for item in report.findings], names)
    stream.write(render_github(annotations).encode())


LintWriter = Callable[["LintReport", IO[bytes], LintReportOptions], None]

LINT_REPORTERS: Final[dict[str, LintWriter]] = {
    "text": write_text,
    "json": write_json,
    "sarif": write_sarif,
    "junit": write_junit,
    "github": write_github,
}
