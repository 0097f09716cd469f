"""``jsoncontract test --update``: accept what the cases do now as what they must do.

Each failed case (and each weakness) gets the expectation its current outcome meets, and
its suite file is rewritten. What cannot be expressed as an expectation is left failing:
a call to another tool, a capture without the call, a suite whose tool is gone.
:func:`apply_updates` then gives the report as it stands after the rewrite.
"""

from __future__ import annotations

from collections.abc import Iterable

from jsoncontract.suites.format import write_suite
from jsoncontract.suites.model import (
    CaseOutcome,
    Expectation,
    Mismatch,
    Status,
    Suite,
    TestReport,
    TestSummary,
    Update,
)

#: Mismatches an expectation cannot absorb.
NOT_UPDATABLE = frozenset(
    {Mismatch.WRONG_TOOL, Mismatch.WRONG_HOP, Mismatch.NO_CALL, Mismatch.TOOL_MISSING}
)


def accept_outcomes(outcomes: Iterable[CaseOutcome], *, write: bool = True) -> list[Update]:
    """Rewrite the expectation of every failed or weak case to its current outcome.

    Arguments:
        write: write the changed suite files (``False`` only computes the updates).

    Returns:
        One :class:`Update` per rewritten case, in report order.
    """
    updates: list[Update] = []
    changed: dict[int, tuple[Suite, dict[int, Expectation]]] = {}
    for outcome in outcomes:
        case = outcome.case
        actual = outcome.actual
        if (
            case is None
            or outcome.status not in (Status.FAILED, Status.WEAKNESS)
            or outcome.mismatch in NOT_UPDATABLE
            or actual is None
        ):
            continue
        now = actual.expectation()
        fields = actual.fields if case.expect.fields is not None else None
        after = Expectation(now.stage, now.code, now.keyword, now.path, fields)
        suite = outcome.suite
        changed.setdefault(id(suite), (suite, {}))[1][case.index] = after
        updates.append(Update(suite.file, suite.tool, case.name, case.expect, after))
    for suite, expectations in changed.values():
        suite.cases = [
            c.with_expectation(expectations[c.index]) if c.index in expectations else c
            for c in suite.cases
        ]
        if write and suite.path is not None:
            write_suite(suite, suite.path)
    return updates


def apply_updates(report: TestReport, *, write: bool = True) -> TestReport:
    """``--update``: accept the current outcomes (:func:`accept_outcomes`), and return the
    report as it stands afterwards.

    Each rewritten case is judged again, on the call it already ran, against its new
    expectation; the other outcomes are kept. The new report lists the rewrites in
    ``updates``; what was left failing still fails in it.

    Arguments:
        write: write the changed suite files (``False`` only computes the new report).
    """
    from jsoncontract.suites.runner import judge

    updates = accept_outcomes(report.outcomes, write=write)
    rewritten = {(u.file, u.case) for u in updates}
    summary = TestSummary(suites=report.summary.suites)
    outcomes: list[CaseOutcome] = []
    for outcome in report.outcomes:
        suite, case = outcome.suite, outcome.case
        if case is not None and outcome.result is not None and (suite.file, case.name) in rewritten:
            seconds = outcome.seconds
            outcome = judge(suite, suite.cases[case.index], outcome.result)
            outcome.seconds = seconds
        summary.add(outcome)
        outcomes.append(outcome)
    return TestReport(summary, outcomes, [*report.updates, *updates])
