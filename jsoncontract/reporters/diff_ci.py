"""``diff --format github | sarif | junit``: diffs in the formats CI systems read.

Each difference becomes a finding coded by its kind (``dropped``, ``coerced``..., the codes
of the diff's JSON report) on the later hop's capture line: an error when no mapping declares
it, a note when one does. Each hop's own findings (``parse.*``, ``schema.*``), the diff's
(``diff.unpaired``, ``diff.mapping_not_applied``...) and the run's (``diff.mapping_unused``)
follow.

- ``github``: one annotation per finding, within GitHub's limits per step;
- ``sarif``: a SARIF 2.1.0 log, categorised ``jsoncontract/diff/``, a rule per kind of
  difference and per finding code;
- ``junit``: a suite per capture file of the first hop, a case per call (``tool call-id``),
  failing when the hops differ unexpectedly or a hop breaks its contract.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from dataclasses import replace
from typing import IO, TYPE_CHECKING

from jsoncontract.codes import CATALOG, DIFF, DIFFERENCE, RuleMeta, code_rule
from jsoncontract.model import Finding, Severity
from jsoncontract.project import portable_path, project_root
from jsoncontract.reporters.findings import FindingSet, KeptFindings
from jsoncontract.reporters.github import AnnotationWriter, annotations_from_findings
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from jsoncontract.reporters.sarif import MAX_RESULTS, sarif_log
from jsoncontract.reporters.text import plural

if TYPE_CHECKING:
    from jsoncontract.diff.model import CallDiff, Difference, DiffSummary
    from jsoncontract.settings import ReportOptions


def diff_meta(code: str, severity: Severity) -> RuleMeta:
    """What a report says about a ``diff`` code (a kind of difference, a finding of the
    diff, or a hop's own ``check`` code): its entry in the catalog of codes."""
    rule = code_rule(code, severity)
    entry = CATALOG.get(code)
    if entry is not None and entry.family in (DIFF, DIFFERENCE):
        return replace(rule, tags=("diff",))
    return rule


def as_finding(difference: Difference) -> Finding:
    """A difference as a finding, coded by its kind, on the later hop's capture."""
    message = difference.message
    if difference.expected and difference.rule:
        message += f" (declared: {difference.rule})"
    return Finding(
        code=difference.code.value,
        severity=difference.severity,
        message=message,
        path=difference.path,
        hop=difference.to_hop,
        tool=difference.tool,
        call_id=difference.call_id,
        source=difference.source,
        hint=difference.hint,
    )


def call_findings(result: CallDiff) -> list[Finding]:
    """Every finding of one diffed call: its differences, then its hops' and its own."""
    return [*(as_finding(d) for d in result.differences), *result.findings]


class DiffFindingsReporter(Reporter["CallDiff", "DiffSummary"]):
    """A diff run as one :class:`FindingSet`, for the formats made of findings (at most
    :data:`~jsoncontract.reporters.sarif.MAX_RESULTS` kept per severity)."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._kept = KeptFindings(MAX_RESULTS)

    def add(self, result: CallDiff) -> None:
        """Keep the call's findings."""
        for finding in call_findings(result):
            self._kept.add(finding)

    def close(self, summary: DiffSummary) -> None:
        """Write the rendered findings (the run's last)."""
        for finding in summary.findings:
            self._kept.add(finding)
        findings = self._kept.findings()
        rules: dict[str, RuleMeta] = {}
        for finding in findings:
            if finding.code not in rules:
                rules[finding.code] = diff_meta(finding.code, finding.severity)
        found = FindingSet(
            findings,
            rules,
            root=self.options.root,
            command=self.options.command or "diff",
            left_out=self._kept.left_out,
        )
        self.stream.write(self.render(found))

    @abstractmethod
    def render(self, found: FindingSet) -> bytes:
        """The report of ``found``."""


class SarifDiffReporter(DiffFindingsReporter):
    """A SARIF 2.1.0 log of every difference and finding."""

    def render(self, found: FindingSet) -> bytes:
        """The SARIF log."""
        return sarif_log(found)


class GithubDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """Workflow annotations, streamed within GitHub's limits; a summary line at the end."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._out = AnnotationWriter(
            stream, command=self.options.command or "diff", max_shown=options.max_shown
        )
        self._root = options.root if options.root is not None else str(project_root())

    def add(self, result: CallDiff) -> None:
        """Annotate the call's differences and findings."""
        findings = call_findings(result)
        if findings:
            self._out.write(annotations_from_findings(findings, root=self._root))

    def close(self, summary: DiffSummary) -> None:
        """The run's findings, the notice of what was not annotated, the totals."""
        if summary.findings:
            self._out.write(annotations_from_findings(summary.findings, root=self._root))
        self._out.close()
        status = summary.by_status
        words = ", ".join(f"{count} {name}" for name, count in status.items() if count)
        calls = plural(summary.calls, "call")
        self.stream.write(f"jsoncontract diff: {calls} diffed, {words or 'none'}\n".encode())


class JUnitDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """A test case per call (``tool call-id``), a suite per capture file of its first hop;
    the case fails when the call is not ok, and says why."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._suites: dict[str, JUnitSuite] = {}
        self._names: dict[str, dict[str, int]] = {}
        self._root = options.root if options.root is not None else str(project_root())
        self._clock = time.perf_counter()

    def add(self, result: CallDiff) -> None:
        """Record the call as a case."""
        now = time.perf_counter()
        seconds, self._clock = now - self._clock, now
        first = result.hops[0].call.source if result.hops else None
        file = portable_path(first.file, self._root) if first is not None else "(no file)"
        suite = self._suites.get(file)
        if suite is None:
            suite = self._suites[file] = JUnitSuite(file)
            self._names[file] = {}
        name = f"{result.tool or '(no tool)'} {result.call_id or result.status.value}"
        seen = self._names[file][name] = self._names[file].get(name, 0) + 1
        if seen > 1:
            name = f"{name} #{seen}"
        line = first.line if first is not None else None
        case = JUnitCase(name=name, classname=file, file=file, line=line, time=seconds)
        findings = call_findings(result)
        lines = [
            f"{f.severity.value} {f.code} at {f.path or '/'}: {f.message}"
            + (f"\nhint: {f.hint}" if f.hint else "")
            for f in findings
        ]
        errors = [f for f in findings if f.severity is Severity.ERROR]
        if errors:
            case.failure = JUnitFailure(
                f"{result.status.value}: {errors[0].message}", errors[0].code, "\n".join(lines)
            )
        elif lines:
            case.system_out = "\n".join(lines)
        suite.cases.append(case)
        suite.time += seconds

    def close(self, summary: DiffSummary) -> None:
        """Write the XML (the run's findings as a case of their own)."""
        if summary.findings:
            suite = JUnitSuite("(run)")
            errors = [f for f in summary.findings if f.severity is Severity.ERROR]
            text = "\n".join(f"{f.severity.value} {f.code}: {f.message}" for f in summary.findings)
            case = JUnitCase("mappings", "(run)")
            if errors:
                case.failure = JUnitFailure(errors[0].message, errors[0].code, text)
            else:
                case.system_out = text
            suite.cases.append(case)
            self._suites["(run)"] = suite
        self.stream.write(
            render_junit(list(self._suites.values()), name="jsoncontract diff").encode()
        )


__all__ = ["GithubDiffReporter", "JUnitDiffReporter", "SarifDiffReporter", "as_finding"]
