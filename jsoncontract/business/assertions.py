"""CEL assertions beside business rules: expressions over variables a caller declares, with
their types (lint's ``[[lint.rules]]``, whose ``self`` is a piece of a tool definition).

Each expression goes through the business rules' machinery once, when it loads: the CEL
runtime parses and type-checks it (:mod:`jsoncontract.business._cel`), then the
schema-aware checker (:mod:`jsoncontract.business.celcheck`) reads it with the declared
types: an unknown field of a closed object (with the closest name), an operator applied to
kinds it has no overload for, a result that is not a bool. Evaluation is the business
rules' too: one activation per value, errors returned, never raised.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jsoncontract.business._cel import CelCompileError
from jsoncontract.business.celcheck import RESULT_TYPE, Binding, CelChecker, Problem
from jsoncontract.business.celtypes import CelType, Kind
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.business._cel import CelEnvironment, Expression


class AssertionError_(CelCompileError):
    """An expression that cannot be used: ``kind`` is ``syntax`` (it does not parse),
    ``type`` (an undeclared variable, an operator on the wrong kinds, a field the type does
    not have) or ``result`` (it does not give a bool); ``line`` and ``column`` are 1-based
    in the expression."""

    def __init__(self, message: str, kind: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message, line, column)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Assertion:
    """A compiled, checked expression; ``warnings`` are what the checker found that does
    not stop it (a field read without a guard the type does not promise)."""

    source: str
    expression: Expression
    warnings: tuple[str, ...] = ()


class Assertions:
    """Compiles and evaluates assertions over a fixed set of typed variables.

    Arguments:
        variables: each variable's type (``DYN`` for a JSON value of any kind).
    """

    def __init__(self, variables: Mapping[str, CelType]) -> None:
        from jsoncontract.business._cel import CelEnvironment

        self.types = dict(variables)
        self._env: CelEnvironment = CelEnvironment({}, tuple(variables))

    def compile(self, source: str) -> Assertion:
        """Parse and check ``source``, which must give a bool.

        Raises:
            AssertionError_: what is wrong, and where in the expression.
        """
        from jsoncontract.business.celast import AstError, line_column, read_checked

        try:
            expression = self._env.compile(source)
        except CelCompileError as exc:
            kind = "syntax" if "Syntax error" in exc.message else "type"
            message = exc.message.replace("Syntax error: ", "")
            raise AssertionError_(message, kind, exc.line, exc.column) from None
        if expression.result_type not in ("BOOL", "DYN"):
            found = expression.result_type.lower()
            raise AssertionError_(f"it must give a bool, but it gives {found}", "result")
        try:
            ast = read_checked(expression.checked.serialize(), source)
        except AstError:  # pragma: no cover - a runtime whose serialisation this cannot read
            return Assertion(source, expression)
        bindings = {name: Binding(kind, (name,)) for name, kind in self.types.items()}
        checked = CelChecker(ast, bindings).check()
        problems: list[Problem] = list(checked.problems)
        if checked.type.kind not in (Kind.BOOL, Kind.DYN) and not checked.errors:
            problems.append(
                Problem(
                    RESULT_TYPE,
                    Severity.ERROR,
                    f"it must give a bool, but it gives {checked.type.describe()}",
                    0,
                )
            )
        for problem in problems:
            if problem.severity is Severity.ERROR:
                line, column = line_column(source, problem.offset)
                kind = "result" if problem.code == RESULT_TYPE else "type"
                hint = f" ({problem.hint})" if problem.hint else ""
                raise AssertionError_(problem.message + hint, kind, line, column)
        warnings = tuple(p.message for p in problems)
        return Assertion(source, expression, warnings)

    def evaluate(self, assertion: Assertion, values: Mapping[str, Any]) -> tuple[Any, str | None]:
        """``(value, None)``, or ``(None, why)`` when the evaluation failed (a missing
        key, a value of the wrong kind at run time)."""
        activation = self._env.activation(dict(values))
        return self._env.evaluate(assertion.expression, activation)


__all__ = ["Assertion", "AssertionError_", "Assertions"]
