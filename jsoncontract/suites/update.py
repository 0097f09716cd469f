"""``jsoncontract test --update``: accept what the cases do now as what they must do.

Each failed case (and each weakness) gets the expectation its current outcome meets, and
its suite file is rewritten. What cannot be expressed as an expectation is left failing:
a call to another tool, a capture without the call, a suite whose tool is gone.
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
