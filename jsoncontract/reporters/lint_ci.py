"""``lint --format sarif | github | junit``: lint findings in the formats CI systems read.

- ``sarif``: SARIF 2.1.0 with the metadata and the documentation of every rule that has a
  result (suppressed findings included, with their reason);
- ``github``: one workflow annotation per finding, titled with the rule's code and name,
  within GitHub's limits per step (:class:`~jsoncontract.reporters.github.AnnotationWriter`);
- ``junit``: a suite per file, a case per tool (timed), failing when one of its findings is
  at or above ``--fail-on``; the cases are the same whatever ``--fail-on`` says.

:class:`LintFindingsReporter` is how a lint report becomes a
:class:`~jsoncontract.reporters.findings.FindingSet`, for every format made of findings.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Never

from jsoncontract.reporters.findings import FindingSet
from jsoncontract.reporters.github import AnnotationWriter, annotations_from_findings
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.junit import render_junit, suites_from_findings
from jsoncontract.reporters.sarif import sarif_log

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from jsoncontract.codes import RuleMeta
    from jsoncontract.lint.report import LintReport


def rule_metadata(
    codes: Collection[str], user: Mapping[str, RuleMeta] | None = None
) -> dict[str, RuleMeta]:
    """The metadata (and documentation) of the rules with these codes, in catalog order,
    then the project's own rules among them (``user``)."""
    from jsoncontract.codes import INPUT, code_rule
    from jsoncontract.lint.codes import all_rules
    from jsoncontract.lint.docs import rule_meta

    metas = {code: rule_meta(rule) for code, rule in all_rules().items() if code in codes}
    metas.update((code, code_rule(code)) for code in sorted(codes) if code.startswith(INPUT.prefix))
    metas.update((code, meta) for code, meta in (user or {}).items() if code in codes)
    return metas


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
            rule_metadata(used, report.user_rules),
            [(item.finding, s.reason) for item, s in report.suppressed],
            root=self.options.root,
            command=self.options.command or "lint",
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
        import io

        names = {code: meta.name for code, meta in found.rules.items()}
        out = io.BytesIO()
        writer = AnnotationWriter(
            out, command=self.options.command or "lint", max_shown=self.options.max_shown
        )
        writer.write(annotations_from_findings(found.findings, names, root=found.root))
        writer.close()
        return out.getvalue()


class JUnitLintReporter(Reporter[Never, "LintReport"]):
    """JUnit XML: a suite per file, a case per tool, failing findings as failed cases."""

    def close(self, report: LintReport) -> None:
        """Write the XML."""
        suites = suites_from_findings(
            [item.finding for item in report.findings],
            files=report.files,
            tools_by_file=report.tools_by_file,
            fail_on=self.options.fail_on,
            root=self.options.root,
            seconds=report.tool_seconds,
            file_seconds=report.file_seconds,
        )
        self.stream.write(render_junit(suites, name="jsoncontract lint").encode())
