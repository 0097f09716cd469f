"""``test --format sarif``: fixture failures as SARIF 2.1.0 results, for code scanning.

Each case that did not pass is a result on the line of the suite file where it is written;
its rule is the kind of mismatch (``suite.accepted`` for a contract weakness,
``suite.wrong_reason``, ``suite.tool_missing``...), described in the driver. Built on the
shared renderer (:mod:`jsoncontract.reporters.sarif`).
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Final

from jsoncontract.model import Finding, Severity, Source
from jsoncontract.reporters.findings import RuleMeta
from jsoncontract.reporters.sarif import render_sarif
from jsoncontract.suites.model import Mismatch

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.suites.model import CaseOutcome, TestReport

#: What each mismatch means, as SARIF rule descriptions.
SUMMARIES: Final = {
    Mismatch.ACCEPTED: "a negative case the contract accepts: the contract is weaker than the "
    "case says it should be",
    Mismatch.UNEXPECTED_FAILURE: "a case expected to pass fails",
    Mismatch.WRONG_STAGE: "a negative case fails at another gate than expected",
    Mismatch.WRONG_REASON: "a negative case fails for another reason than expected",
    Mismatch.WRONG_PATH: "a negative case fails for the expected reason at another place",
    Mismatch.WRONG_FIELDS: "a call carries other argument fields than recorded",
    Mismatch.WRONG_TOOL: "a captured call goes to another tool than recorded",
    Mismatch.WRONG_HOP: "a captured call is at another hop than expected",
    Mismatch.NO_CALL: "a capture holds no call the case can check",
    Mismatch.TOOL_MISSING: "a suite's tool is not in the tool list",
}


def rule_metadata() -> dict[str, RuleMeta]:
    """One SARIF rule per mismatch kind."""
    return {
        f"suite.{kind.value}": RuleMeta(
            code=f"suite.{kind.value}",
            name=kind.value.replace("_", "-"),
            summary=summary,
            severity=Severity.ERROR,
            tags=("fixture-suite",),
        )
        for kind, summary in SUMMARIES.items()
    }


def as_finding(outcome: CaseOutcome) -> Finding:
    """A case that did not pass, as a finding on its line of the suite file."""
    suite, case = outcome.suite, outcome.case
    expect = case.expect if case is not None else None
    return Finding(
        code=outcome.code or "suite.passed",
        severity=Severity.ERROR,
        message=f"{suite.tool} › {outcome.name}: {outcome.message}",
        path=(expect.path or "") if expect is not None else "",
        tool=suite.tool,
        keyword=expect.keyword if expect is not None else None,
        source=Source(suite.file, suite.line_of(case) if case is not None else None),
        hint=outcome.hint,
    )


def write_test_sarif(report: TestReport, stream: IO[bytes], options: ReportOptions) -> None:
    """Write the SARIF log of the cases that did not pass."""
    findings = [as_finding(o) for o in report.outcomes if not o.ok]
    stream.write(render_sarif(findings, rule_metadata()).encode("utf-8"))
