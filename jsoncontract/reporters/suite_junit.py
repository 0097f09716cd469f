"""``test --format junit``: JUnit XML for CI test reports.

Built on the shared renderer (:mod:`jsoncontract.reporters.junit`): one ``<testsuite>`` per
suite file (named after its tool), one ``<testcase>`` per case (``classname`` the tool,
``name`` the case, ``file`` and ``line`` where it is written). A case that did not pass has a
``<failure>`` whose ``type`` is the mismatch kind (``accepted`` for a contract weakness,
``tool_missing`` for a suite whose tool is gone); a skipped case has ``<skipped>``.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from jsoncontract.suites.model import Status, group_by_suite

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.suites.model import CaseOutcome, TestReport


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


def _case(outcome: CaseOutcome) -> JUnitCase:
    suite, case = outcome.suite, outcome.case
    junit = JUnitCase(
        name=outcome.name,
        classname=suite.tool,
        time=outcome.seconds,
        file=suite.file,
        line=suite.line_of(case) if case is not None else None,
    )
    if outcome.server is not None:
        junit.system_out = f"server: {outcome.server.text}"
    if outcome.status is Status.SKIPPED:
        junit.skipped = outcome.message
    elif not outcome.ok:
        kind = outcome.mismatch.value if outcome.mismatch is not None else outcome.status.value
        junit.failure = JUnitFailure(outcome.message, kind, failure_text(outcome))
    return junit


def write_test_junit(report: TestReport, stream: IO[bytes], options: ReportOptions) -> None:
    """Write the JUnit XML report."""
    suites = []
    for suite, outcomes in group_by_suite(report.outcomes):
        cases = [_case(o) for o in outcomes]
        suites.append(JUnitSuite(suite.tool, cases, sum(c.time for c in cases)))
    stream.write(render_junit(suites, name="jsoncontract test").encode("utf-8"))
