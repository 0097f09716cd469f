"""The kinds table: every kind the generator derives has one maker (business cases come
from the rules engine), and derives its cases in the order the kinds are listed."""

from __future__ import annotations

from jsoncontract.suites.derive import MAKERS, derive
from jsoncontract.suites.kinds import DERIVED_KINDS, CaseKind


def test_every_derived_kind_has_one_maker_in_order() -> None:
    assert list(MAKERS) == [k for k in DERIVED_KINDS if k is not CaseKind.BUSINESS]
    assert CaseKind.REGRESSION not in DERIVED_KINDS  # recorded from captures, not derived


def test_cases_are_derived_kind_by_kind() -> None:
    drafts, skips = derive({"a": 1}, [], [CaseKind.STRING_ARGUMENTS, CaseKind.VALID])
    assert [(d.name, d.kind) for d in drafts] == [
        ("valid", CaseKind.VALID),
        ("valid.mcp", CaseKind.VALID),
        ("string-arguments", CaseKind.STRING_ARGUMENTS),
    ]
    assert skips == []
