"""The kinds table: every kind the generator derives from the arguments has one maker
(business cases come from the rules engine, result cases from the output schema), and
derives its cases in the order the kinds are listed."""

from __future__ import annotations

from jsoncontract.suites.derive import MAKERS, derive
from jsoncontract.suites.kinds import DERIVED_KINDS, RESULT_KINDS, CaseKind


def test_every_derived_kind_has_one_maker_in_order() -> None:
    made_elsewhere = {CaseKind.BUSINESS, *RESULT_KINDS}  # from the rules, the output schema
    assert list(MAKERS) == [k for k in DERIVED_KINDS if k not in made_elsewhere]
    assert CaseKind.REGRESSION not in DERIVED_KINDS  # recorded from captures, not derived


def test_cases_are_derived_kind_by_kind() -> None:
    drafts, skips = derive({"a": 1}, [], [CaseKind.STRING_ARGUMENTS, CaseKind.VALID])
    assert [(d.name, d.kind) for d in drafts] == [
        ("valid", CaseKind.VALID),
        ("valid.mcp", CaseKind.VALID),
        ("string-arguments", CaseKind.STRING_ARGUMENTS),
    ]
    assert skips == []
