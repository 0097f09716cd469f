"""``check --format github | sarif | junit``: check results in the formats CI systems read.

- ``github`` streams one workflow annotation per finding (``::error file=..,line=..::``), so
  failing calls show on the captured file in a pull request, within GitHub's limits per
  step (:class:`~jsoncontract.reporters.github.AnnotationWriter`);
- ``sarif`` is a SARIF 2.1.0 log for code-scanning dashboards, with each code's summary,
  description and help as rule metadata;
- ``junit`` makes every call a test case (one suite per capture file), failing when the
  call failed, for CI test reports. A case is named after the tool, the hop and the call
  id (or line), unique within its file, and timed.

SARIF and JUnit are written at the end (they are single documents); they hold the findings,
not the arguments, so their size follows the number of failures. SARIF keeps at most
:data:`~jsoncontract.reporters.sarif.MAX_RESULTS` findings of each severity while the run
goes on, which is all a report can hold, so memory stays bounded however many calls fail.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from typing import IO, TYPE_CHECKING

from jsoncontract.codes import RuleMeta, code_rule
from jsoncontract.model import Severity
from jsoncontract.project import portable_path, project_root
from jsoncontract.reporters.findings import FindingSet, KeptFindings
from jsoncontract.reporters.github import AnnotationWriter, annotations_from_findings
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from jsoncontract.reporters.sarif import MAX_RESULTS, sarif_log
from jsoncontract.reporters.text import plural

if TYPE_CHECKING:
    from collections.abc import Sequence

    from jsoncontract.model import CallResult, Finding, Summary
    from jsoncontract.settings import ReportOptions


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

    Keeps each call's findings (not its arguments), at most
    :data:`~jsoncontract.reporters.sarif.MAX_RESULTS` of each severity (no report holds
    more), and renders them at the end, in run order, with the metadata of every code
    that occurred.
    """

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._kept = KeptFindings(MAX_RESULTS)

    def add(self, result: CallResult) -> None:
        """Keep the call's findings."""
        for finding in result.findings:
            self._kept.add(finding)

    def close(self, summary: Summary) -> None:
        """Write the rendered findings (the run-level ones last)."""
        for finding in summary.findings:
            self._kept.add(finding)
        findings = self._kept.findings()
        found = FindingSet(
            findings,
            rule_metadata(findings),
            root=self.options.root,
            command=self.options.command or "check",
            left_out=self._kept.left_out,
        )
        self.stream.write(self.render(found))

    @abstractmethod
    def render(self, found: FindingSet) -> bytes:
        """The report of ``found``."""


def totals_line(summary: Summary) -> str:
    """``jsoncontract check: 22 calls in 5 files, 13 ok, 9 failed``."""
    return (
        f"jsoncontract check: {plural(summary.calls, 'call')} in "
        f"{plural(summary.files, 'file')}, {summary.ok} ok, {summary.failed} failed\n"
    )


class GithubCheckReporter(Reporter["CallResult", "Summary"]):
    """Workflow annotations, streamed within GitHub's limits; a plain summary line at the
    end."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._out = AnnotationWriter(
            stream, command=self.options.command or "check", max_shown=options.max_shown
        )
        self._root = options.root if options.root is not None else str(project_root())

    def add(self, result: CallResult) -> None:
        """Annotate each finding of the call."""
        if result.findings:
            self._out.write(annotations_from_findings(result.findings, root=self._root))

    def close(self, summary: Summary) -> None:
        """Annotate the run-level findings, the notice of what was not annotated, then a
        summary line (not a workflow command, so it shows in the log as is)."""
        if summary.findings:
            self._out.write(annotations_from_findings(summary.findings, root=self._root))
        self._out.close()
        self.stream.write(totals_line(summary).encode())


class SarifCheckReporter(CheckFindingsReporter):
    """A SARIF 2.1.0 log of every finding, a rule for every code that occurred."""

    def render(self, found: FindingSet) -> bytes:
        """The SARIF log."""
        return sarif_log(found)


class JUnitCheckReporter(Reporter["CallResult", "Summary"]):
    """A test case per call, a suite per capture file.

    A case is named ``tool hop call-id`` (``line N`` when the call has no id), with a
    number added when a file holds the same name twice (a retried call); its time is the
    time the run spent on the call (reading and checking it).
    """

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._suites: dict[str, JUnitSuite] = {}
        self._names: dict[str, dict[str, int]] = {}
        self._root = options.root if options.root is not None else str(project_root())
        self._clock = time.perf_counter()

    def add(self, result: CallResult) -> None:
        """Record the call as a passing or failing case."""
        now = time.perf_counter()
        seconds, self._clock = now - self._clock, now
        call = result.call
        file = portable_path(call.source.file, self._root)
        suite = self._suites.get(file)
        if suite is None:
            suite = self._suites[file] = JUnitSuite(file)
            self._names[file] = {}
        where = f"line {call.source.line}" if call.source.line is not None else "call"
        hop = call.hop.value if call.hop is not None else "(no hop)"
        name = f"{call.tool or '(no tool)'} {hop} {call.call_id or where}"
        names = self._names[file]
        seen = names.get(name, 0) + 1
        names[name] = seen
        if seen > 1:
            name = f"{name} ({where}, #{seen})"
        case = JUnitCase(name=name, classname=file, file=file, line=call.source.line, time=seconds)
        errors = [f for f in result.findings if f.severity is Severity.ERROR]
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
        suite.time += seconds

    def close(self, summary: Summary) -> None:
        """Write the XML; run-level findings are the cases of one more suite, ``run``."""
        if summary.findings:
            suite = self._suites["(run)"] = JUnitSuite("(run)")
            seen: dict[str, int] = {}
            for finding in summary.findings:
                where = str(finding.source) if finding.source is not None else "run"
                name = f"{finding.code} {where}"
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:  # unique within the suite, as CI systems key cases
                    name = f"{name} #{seen[name]}"
                case = JUnitCase(name=name, classname="(run)")
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
