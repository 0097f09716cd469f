"""Reports of ``mcp verify``: each replayed request, same or different, in every format.

The CI formats report each difference as a finding located at the request's line in the
trace (SARIF, GitHub annotations), or a JUnit case per request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Never

import orjson

from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.live import probe_finding_lines, server_line
from jsoncontract.reporters.text import LineWriter, Segment, plural

if TYPE_CHECKING:
    from jsoncontract.live.verify import VerifyReport


def _verdict_line(report: VerifyReport) -> str:
    summary = report.summary()
    return (
        f"{plural(summary['requests'], 'request')} replayed from {report.trace}: "
        f"{summary['same']} same, {summary['different']} different "
        f"({plural(summary['differences'], 'difference')})"
    )


class TextVerifyReporter(Reporter[Never, "VerifyReport"]):
    """A line per request, its differences under it, then the verdict."""

    def close(self, report: VerifyReport) -> None:
        """Write the report."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        lines: list[list[Segment]] = [server_line(report.server, report.negotiated)]
        for verdict in report.verdicts:
            status: Segment = ("same", "green") if verdict.ok else ("DIFF", "bold red")
            lines.append(
                [
                    ("  ", ""),
                    status,
                    ("  ", ""),
                    (verdict.exchange.target, "magenta"),
                    (f"  ({report.trace}:{verdict.exchange.line})", "dim"),
                ]
            )
            for finding in verdict.findings:
                lines.extend(probe_finding_lines(finding))
        style = "bold green" if report.ok else "bold red"
        lines.append([(_verdict_line(report), style)])
        out.write(lines)
        out.close()


class JsonVerifyReporter(Reporter[Never, "VerifyReport"]):
    """``{"version": 1, "summary": {...}, "exchanges": [...]}``."""

    def close(self, report: VerifyReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))


class SarifVerifyReporter(Reporter[Never, "VerifyReport"]):
    """SARIF 2.1.0: a result per difference, at the request's line in the trace."""

    def close(self, report: VerifyReport) -> None:
        """Write the SARIF log."""
        from jsoncontract.reporters.findings import FindingSet
        from jsoncontract.reporters.sarif import sarif_log

        found = FindingSet(report.all_findings(), {}, root=self.options.root, command="mcp verify")
        self.stream.write(sarif_log(found))


class GithubVerifyReporter(Reporter[Never, "VerifyReport"]):
    """Workflow annotations at the trace's lines, then the verdict line."""

    def close(self, report: VerifyReport) -> None:
        """Write an annotation per difference."""
        from jsoncontract.reporters.github import annotations_from_findings, render_github

        annotations = annotations_from_findings(report.all_findings(), {})
        self.stream.write(render_github(annotations).encode("utf-8", "backslashreplace"))
        self.stream.write(f"jsoncontract mcp verify: {_verdict_line(report)}\n".encode())


class JUnitVerifyReporter(Reporter[Never, "VerifyReport"]):
    """JUnit XML: a case per replayed request, failing on a difference."""

    def close(self, report: VerifyReport) -> None:
        """Write the XML."""
        from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit

        suite = JUnitSuite(f"{report.label}: {report.trace}")
        for verdict in report.verdicts:
            failure = None
            if verdict.findings:
                text = "\n".join(f"{f.code}: {f.message}" for f in verdict.findings)
                failure = JUnitFailure(verdict.findings[0].message, "different answer", text)
            suite.cases.append(
                JUnitCase(
                    f"{verdict.exchange.target} (line {verdict.exchange.line})",
                    report.label,
                    failure=failure,
                    time=verdict.seconds or 0.0,
                )
            )
        self.stream.write(render_junit([suite], name="jsoncontract mcp verify").encode())


class MarkdownVerifyReporter(Reporter[Never, "VerifyReport"]):
    """A summary for a pull request: the verdict, then a table of the differences."""

    def close(self, report: VerifyReport) -> None:
        """Write the Markdown."""
        rows: list[str] = [f"**{_md(_verdict_line(report))}**", ""]
        findings = report.all_findings()
        if findings:
            rows += ["| line | difference |", "|---|---|"]
            rows += [f"| {_line(f)} | {_md(f.message)} |" for f in findings]
        self.stream.write(("\n".join(rows) + "\n").encode())


def _line(finding: Any) -> str:
    source = finding.source
    return str(source.line) if source is not None and source.line else ""


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
