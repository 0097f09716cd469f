"""``check --format github | sarif | junit``: check results in the formats CI systems read.

- ``github`` streams one workflow annotation per finding (``::error file=..,line=..::``), so
  failing calls show on the captured file in a pull request;
- ``sarif`` is a SARIF 2.1.0 log for code-scanning dashboards, with each code's summary as
  rule metadata;
- ``junit`` makes every call a test case (one suite per capture file), failing when the
  call failed, for CI test reports.

SARIF and JUnit are written at the end (they are single documents); they hold the findings,
not the arguments, so their size follows the number of failures.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import IO, TYPE_CHECKING

from jsoncontract.codes import code_rule
from jsoncontract.reporters.findings import FindingSet, RuleMeta, portable_path
from jsoncontract.reporters.github import annotations_from_findings, render_github
from jsoncontract.reporters.interface import Reporter, ReportOptions
from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from jsoncontract.reporters.sarif import sarif_log

if TYPE_CHECKING:
    from collections.abc import Sequence

    from jsoncontract.model import CallResult, Finding, Summary


def rule_metadata(findings: Sequence[Finding]) -> dict[str, RuleMeta]:
    """What a report says about each code among ``findings``, in order of first occurrence:
    its entry in the catalog of codes (:func:`jsoncontract.codes.code_rule`), at the
    severity of its first finding."""
    rules: dict[str, RuleMeta] = {}
    for finding in findings:
        if finding.code not in rules:
            rules[finding.code] = code_rule(finding.code, finding.severity)
    return rules


class CheckFindingsReporter(Reporter["CallResult", "Summary"]):
    """``check`` results as one :class:`FindingSet`, for the formats made of findings.

    Keeps each call's findings (not its arguments, so memory follows the failures) and
    renders them all at the end, with the metadata of every code that occurred.
    """

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._findings: list[Finding] = []

    def add(self, result: CallResult) -> None:
        """Keep the call's findings."""
        self._findings.extend(result.findings)

    def close(self, summary: Summary) -> None:
        """Write the rendered findings (the run-level ones last)."""
        findings = self._findings
        findings.extend(summary.findings)
        self.stream.write(self.render(FindingSet(findings, rule_metadata(findings))))

    @abstractmethod
    def render(self, found: FindingSet) -> bytes:
        """The report of ``found``."""


class GithubCheckReporter(Reporter["CallResult", "Summary"]):
    """Workflow annotations, streamed; a plain summary line at the end."""

    def add(self, result: CallResult) -> None:
        """Annotate each finding of the call."""
        if result.findings:
            text = render_github(annotations_from_findings(result.findings))
            self.stream.write(text.encode("utf-8", "backslashreplace"))

    def close(self, summary: Summary) -> None:
        """Annotate the run-level findings, then a summary line (not a workflow command, so
        it shows in the log as is)."""
        if summary.findings:
            text = render_github(annotations_from_findings(summary.findings))
            self.stream.write(text.encode("utf-8", "backslashreplace"))
        self.stream.write(
            f"jsoncontract check: {summary.calls} calls in {summary.files} files, "
            f"{summary.ok} ok, {summary.failed} failed\n".encode()
        )


class SarifCheckReporter(CheckFindingsReporter):
    """A SARIF 2.1.0 log of every finding, a rule for every code that occurred."""

    def render(self, found: FindingSet) -> bytes:
        """The SARIF log."""
        return sarif_log(found)


class JUnitCheckReporter(Reporter["CallResult", "Summary"]):
    """A test case per call, a suite per capture file."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._suites: dict[str, JUnitSuite] = {}

    def add(self, result: CallResult) -> None:
        """Record the call as a passing or failing case."""
        call = result.call
        file = portable_path(call.source.file)
        suite = self._suites.get(file)
        if suite is None:
            suite = self._suites[file] = JUnitSuite(file)
        where = f"line {call.source.line}" if call.source.line is not None else "call"
        name = f"{call.tool or '(no tool)'} {call.call_id or where}"
        case = JUnitCase(name=name, classname=file, file=file, line=call.source.line)
        errors = [f for f in result.findings if f.severity.value == "error"]
        if result.stage is not None and errors:
            first = errors[0]
            details = "\n".join(
                f"{f.code} {f.path or '/'}: {f.message}" + (f"\nhint: {f.hint}" if f.hint else "")
                for f in errors
            )
            case.failure = JUnitFailure(
                f"failed at {result.stage.value}: {first.message}", first.code, details
            )
        elif result.findings:
            case.system_out = "\n".join(f"{f.code}: {f.message}" for f in result.findings)
        suite.cases.append(case)

    def close(self, summary: Summary) -> None:
        """Write the XML; run-level findings are the cases of one more suite, ``run``."""
        if summary.findings:
            suite = self._suites["(run)"] = JUnitSuite("(run)")
            for finding in summary.findings:
                where = str(finding.source) if finding.source is not None else "run"
                case = JUnitCase(name=f"{finding.code} {where}", classname="(run)")
                if finding.severity.value == "error":
                    text = f"{finding.code}: {finding.message}"
                    if finding.hint:
                        text += f"\nhint: {finding.hint}"
                    case.failure = JUnitFailure(finding.message, finding.code, text)
                else:
                    case.system_out = f"{finding.code}: {finding.message}"
                suite.cases.append(case)
        self.stream.write(
            render_junit(list(self._suites.values()), name="jsoncontract check").encode()
        )
