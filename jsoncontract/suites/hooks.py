"""The hook through which business rules add cases to generated suites.

A schema cannot say that an end date comes after a start date; a business rule can, and
it knows how to break itself. Anything with the :class:`ViolationSource` shape (the
business-rules engine is meant to be one) is asked, for each tool, for arguments that
break one rule, starting from the generated valid instance. Each answer becomes a case
named ``business:<rule>`` that expects a failure at the business stage with code
``business.<rule>`` at the answer's path. The generator checks that the arguments still
pass the schema first, and skips (with the reason) an answer that does not.

A source that also has the :class:`PassSource` shape is asked for arguments on which each
rule is evaluated and holds: each answer becomes a case ``business-ok:<rule>`` that
expects the call to pass, so a suite shows every rule both firing and silent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from jsoncontract import codes

if TYPE_CHECKING:
    from jsoncontract.model import ToolContract


@dataclass(frozen=True, slots=True)
class RuleViolation:
    """Arguments that break one business rule of a tool.

    Arguments:
        rule: the rule id (the case is named ``business:<rule>``).
        arguments: the whole arguments object, valid against the schema, breaking the rule.
        path: the JSON Pointer the rule's finding points at.
        code: the finding code expected; ``business.<rule>`` by default.
        description: written into the case, for reviewers.
    """

    rule: str
    arguments: Any
    path: str = ""
    code: str | None = None
    description: str | None = None

    @property
    def expected_code(self) -> str:
        """The finding code the case expects."""
        return self.code or codes.business_code(self.rule)


@dataclass(frozen=True, slots=True)
class RulePass:
    """Arguments on which one business rule is evaluated and holds (and the whole call
    passes).

    Arguments:
        rule: the rule id (the case is named ``business-ok:<rule>``).
        arguments: the whole arguments object, valid against the schema.
        description: written into the case, for reviewers.
    """

    rule: str
    arguments: Any
    description: str | None = None


@runtime_checkable
class PassSource(Protocol):
    """Writes arguments on which business rules hold (see the module docstring)."""

    def passes(self, tool: ToolContract, valid: Any) -> Iterable[RulePass]:
        """Arguments on which each rule of ``tool`` that can be satisfied is evaluated and
        holds, near ``valid`` (never change it)."""
        ...  # pragma: no cover


@runtime_checkable
class ViolationSource(Protocol):
    """Writes arguments that break business rules (see the module docstring)."""

    def violations(self, tool: ToolContract, valid: Any) -> Iterable[RuleViolation]:
        """Arguments breaking each rule of ``tool`` that can be broken from ``valid``.

        ``valid`` is the generated valid instance; return changed copies, never change it.
        """
        ...  # pragma: no cover
