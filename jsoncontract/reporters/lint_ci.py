"""``lint --format sarif | github | junit``: lint findings in the formats CI systems read.

- ``sarif``: SARIF 2.1.0 with the metadata and the documentation of every rule that has a
  result (suppressed findings included, with their reason);
- ``github``: one workflow annotation per finding, titled with the rule's code and name;
- ``junit``: a suite per file, a case per tool, each finding at or above ``--fail-on`` a
  failing case of its own.

:class:`LintFindingsReporter` is how a lint report becomes a
:class:`~jsoncontract.reporters.findings.FindingSet`, for every format made of findings.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Never

from jsoncontract.reporters.findings import FindingSet, RuleMeta
from jsoncontract.reporters.github import annotations_from_findings, render_github
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.junit import render_junit, suites_from_findings
from jsoncontract.reporters.sarif import sarif_log

if TYPE_CHECKING:
    from collections.abc import Collection

    from jsoncontract.lint.report import LintReport


def rule_metadata(codes: Collection[str]) -> dict[str, RuleMeta]:
    """The metadata (and documentation) of the rules with these codes, in catalog order."""
    from jsoncontract.lint.codes import all_rules
    from jsoncontract.lint.docs import rule_meta

    return {code: rule_meta(rule) for code, rule in all_rules().items() if code in codes}


class LintFindingsReporter(Reporter[Never, "LintReport"]):
    """A lint report as one :class:`FindingSet`, for the formats made of findings: its
    findings, those suppressed by configuration with the reason, and the metadata of every
    rule among them."""

    def close(self, report: LintReport) -> None:
        """Write the rendered findings."""
        used = {item.code for item in report.findings}
        used.update(item.code for item, _ in report.suppressed)
        found = FindingSet(
            [item.finding for item in report.findings],
            rule_metadata(used),
            [(item.finding, s.reason) for item, s in report.suppressed],
        )
        self.stream.write(self.render(found))

    @abstractmethod
    def render(self, found: FindingSet) -> bytes:
        """The report of ``found``."""


class SarifLintReporter(LintFindingsReporter):
    """SARIF 2.1.0 with the metadata (and help) of every rule that has a result."""

    def render(self, found: FindingSet) -> bytes:
        """The SARIF log."""
        return sarif_log(found)


class GithubLintReporter(LintFindingsReporter):
    """GitHub Actions annotations, one line per finding, titled ``CODE rule-name``."""

    def render(self, found: FindingSet) -> bytes:
        """The workflow commands."""
        names = {code: meta.name for code, meta in found.rules.items()}
        return render_github(annotations_from_findings(found.findings, names)).encode()


class JUnitLintReporter(Reporter[Never, "LintReport"]):
    """JUnit XML: a suite per file, a case per tool, failing findings as failed cases."""

    def close(self, report: LintReport) -> None:
        """Write the XML."""
        suites = suites_from_findings(
            [item.finding for item in report.findings],
            files=report.files,
            tools_by_file=dict(report.tools_by_file),
            fail_on=self.options.fail_on,
        )
        self.stream.write(render_junit(suites, name="jsoncontract lint").encode())
