"""The kinds of fixture cases: what each generated case exercises.

A kind is the second tag of a generated case and the start of its name. The generator
derives the kinds of :data:`DERIVED_KINDS`, in that order: those of the arguments each by
its maker in :data:`jsoncontract.suites.derive.MAKERS`, the :data:`RESULT_KINDS` from the
tool's output schema (:func:`jsoncontract.suites.derive.derive_results`), ``business`` by
the rules engine's :class:`~jsoncontract.suites.rule_cases.RuleViolations`; ``regression``
cases are recorded from captures. ``fixtures --kind`` and the config's ``[fixtures] kinds``
offer exactly :data:`DERIVED_KINDS`. This module imports nothing, so the command line reads
it for ``--help``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class CaseKind(StrEnum):
    """What a generated case exercises (its second tag and the start of its name)."""

    VALID = "valid"
    MISSING_FIELD = "missing-field"
    WRONG_ENUM = "wrong-enum"
    WRONG_TYPE = "wrong-type"
    EXTRA_FIELD = "extra-field"
    OUT_OF_RANGE = "out-of-range"
    MALFORMED = "malformed"
    STRING_ARGUMENTS = "string-arguments"
    #: the return leg: a result (structured content) from the tool's outputSchema
    RESULT_VALID = "result-valid"
    RESULT_MISSING_FIELD = "result-missing-field"
    RESULT_WRONG_TYPE = "result-wrong-type"
    BUSINESS = "business"
    REGRESSION = "regression"


#: The kinds ``jsoncontract fixtures`` derives from a schema, in the order they are written.
DERIVED_KINDS: Final = tuple(kind for kind in CaseKind if kind is not CaseKind.REGRESSION)
#: The kinds about a call's result, derived from the tool's output schema.
RESULT_KINDS: Final = frozenset(
    (CaseKind.RESULT_VALID, CaseKind.RESULT_MISSING_FIELD, CaseKind.RESULT_WRONG_TYPE)
)
