"""``test --format junit | github | sarif``: fixture runs in the formats CI systems read.

- ``junit``: one ``<testsuite>`` per suite file (named after its tool), one ``<testcase>``
  per case (``classname`` the tool, ``name`` the case, ``file`` and ``line`` where it is
  written). A case that did not pass has a ``<failure>`` whose ``type`` is the mismatch kind
  (``accepted`` for a contract weakness, ``tool_missing`` for a suite whose tool is gone); a
  skipped case has ``<skipped>``.
- ``github``: each case that did not pass becomes one ``::error`` annotation on the line of
  the suite file where the case is written, titled with what happened and ``tool › case``;
  a contract weakness is an error too (it fails the run). GitHub's limits per step are kept
  (:class:`~jsoncontract.reporters.github.AnnotationWriter`). A last plain line (not a
  workflow command, as ``check`` writes) gives the totals.
- ``sarif``: each case that did not pass is a result on its line of the suite file (a suite
  whose tool is gone: the line naming the tool); its rule is the kind of mismatch
  (``suite.accepted`` for a contract weakness, ``suite.wrong_reason``,
  ``suite.tool_missing``...), described and explained in the driver.

All three are built on the shared renderers (:mod:`~jsoncontract.reporters.junit`,
:mod:`~jsoncontract.reporters.github`, :mod:`~jsoncontract.reporters.sarif`), which escape
for their wire format. :class:`TestFindingsReporter` is how a fixture run becomes a
:class:`~jsoncontract.reporters.findings.FindingSet`, for every format made of findings.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import replace
from typing import TYPE_CHECKING, Never

from jsoncontract.codes import SUITE_CODES, RuleMeta, code_rule
from jsoncontract.project import portable_path, project_root
from jsoncontract.reporters.findings import FindingSet
from jsoncontract.reporters.github import Annotation, AnnotationWriter
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from jsoncontract.reporters.sarif import sarif_log
from jsoncontract.reporters.suite_text import totals_counts, totals_head
from jsoncontract.suites.model import Status, as_finding, case_line, group_by_suite

if TYPE_CHECKING:
    from jsoncontract.suites.model import CaseOutcome, TestReport

# -- junit ----------------------------------------------------------------------------------


def failure_text(outcome: CaseOutcome) -> str:
    """What was expected, what happened (every error), and the hint."""
    lines = [f"expected: {outcome.case.expect.describe()}"] if outcome.case is not None else []
    actual = outcome.actual
    if actual is not None:
        lines.append(f"actual: {actual.describe()}")
        lines.extend(f"  {f.code} at {f.path or '/'}: {f.message}" for f in actual.errors[1:])
    if outcome.server is not None:
        lines.append(f"server: {outcome.server.text}")
    if outcome.hint:
        lines.append(f"hint: {outcome.hint}")
    return "\n".join(lines)


def _case(outcome: CaseOutcome, root: str | None = None) -> JUnitCase:
    suite, case = outcome.suite, outcome.case
    junit = JUnitCase(
        name=outcome.name,
        classname=suite.tool,
        time=outcome.seconds,
        file=portable_path(suite.file, root),
        line=case_line(suite, case),
    )
    if outcome.server is not None:
        junit.system_out = f"server: {outcome.server.text}"
    if outcome.status is Status.SKIPPED:
        junit.skipped = outcome.message
    elif not outcome.ok:
        kind = outcome.mismatch.value if outcome.mismatch is not None else outcome.status.value
        junit.failure = JUnitFailure(outcome.message, kind, failure_text(outcome))
    return junit


class JUnitTestReporter(Reporter[Never, "TestReport"]):
    """JUnit XML: a suite per suite file, a case per case."""

    def close(self, report: TestReport) -> None:
        """Write the XML."""
        suites = []
        root = self.options.root if self.options.root is not None else str(project_root())
        for suite, outcomes in group_by_suite(report.outcomes):
            cases = [_case(o, root) for o in outcomes]
            suites.append(JUnitSuite(suite.tool, cases, sum(c.time for c in cases)))
        self.stream.write(render_junit(suites, name="jsoncontract test").encode("utf-8"))


# -- github ---------------------------------------------------------------------------------


class GithubTestReporter(Reporter[Never, "TestReport"]):
    """One annotation per case that did not pass, then a line with the totals."""

    def close(self, report: TestReport) -> None:
        """Write the workflow commands and the totals."""
        annotations = []
        root = self.options.root if self.options.root is not None else str(project_root())
        for outcome in report.outcomes:
            if outcome.ok:
                continue
            suite, case = outcome.suite, outcome.case
            kind = "contract weakness" if outcome.status is Status.WEAKNESS else "fixture failed"
            annotations.append(
                Annotation(
                    "error",
                    outcome.message + (f"\nhint: {outcome.hint}" if outcome.hint else ""),
                    file=portable_path(suite.file, root),
                    line=case_line(suite, case),
                    title=f"{kind}: {suite.tool} › {outcome.name}",
                )
            )
        writer = AnnotationWriter(
            self.stream, command=self.options.command or "test", max_shown=self.options.max_shown
        )
        writer.write(annotations)
        writer.close()
        summary = report.summary
        totals = f"jsoncontract test: {totals_head(summary)}, {totals_counts(summary)}\n"
        self.stream.write(totals.encode("utf-8"))


# -- findings (sarif) -----------------------------------------------------------------------


def rule_metadata() -> dict[str, RuleMeta]:
    """One rule per kind of mismatch, from the catalog of codes."""
    return {
        code: replace(code_rule(code), name=kind.replace("_", "-"), tags=("fixture-suite",))
        for kind, code in SUITE_CODES.items()
    }


class TestFindingsReporter(Reporter[Never, "TestReport"]):
    """A fixture run as one :class:`FindingSet`, for the formats made of findings: a
    finding per case that did not pass, a rule per kind of mismatch."""

    __test__ = False  # not a pytest test class, despite the name

    def close(self, report: TestReport) -> None:
        """Write the rendered findings."""
        findings = [as_finding(o) for o in report.outcomes if not o.ok]
        found = FindingSet(
            findings,
            rule_metadata(),
            root=self.options.root,
            command=self.options.command or "test",
        )
        self.stream.write(self.render(found))

    @abstractmethod
    def render(self, found: FindingSet) -> bytes:
        """The report of ``found``."""


class SarifTestReporter(TestFindingsReporter):
    """The SARIF log of the cases that did not pass."""

    def render(self, found: FindingSet) -> bytes:
        """The SARIF log."""
        return sarif_log(found)
