"""What checking a rules file finds: one :class:`RuleDiagnostic` per problem, by code.

Loading rules for ``check`` stops at the first error (exit 2) and prints warnings;
``jsoncontract rules --check`` reports every diagnostic of every file, with its place
(file, line, column), the tool and the rule, in text, JSON, SARIF or GitHub annotations.
Each code is one entry of :data:`CODES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from jsoncontract.model import Finding, Severity, Source


@dataclass(frozen=True, slots=True)
class Code:
    """One kind of diagnostic: its code, a kebab-case name and what it means."""

    code: str
    name: str
    summary: str
    severity: Severity
    stale: bool = False  # a sign that the rule fell behind its tool (tool gone, field renamed)


CODES: Final = {
    c.code: c
    for c in (
        Code(
            "rules.invalid",
            "invalid-rules-file",
            "The rules file cannot be used: unreadable, not TOML, against the rules schema, "
            "reference data that does not load, a Python rule that does not import, an id "
            "used twice.",
            Severity.ERROR,
        ),
        Code(
            "rules.syntax",
            "cel-syntax-error",
            "An expression that is not valid CEL.",
            Severity.ERROR,
        ),
        Code(
            "rules.undeclared",
            "cel-check-error",
            "An expression the CEL checker rejects before any schema is consulted: an "
            "undeclared variable or dataset, an unknown function, literals of the wrong "
            "types.",
            Severity.ERROR,
        ),
        Code(
            "rules.unknown-tool",
            "rule-for-unknown-tool",
            "Rules for a tool that no tools file defines (renamed or removed): they never run.",
            Severity.ERROR,
            stale=True,
        ),
        Code(
            "rules.unknown-field",
            "unknown-field",
            "A rule reads a field, or is scoped to one, that the tool's schema cannot have "
            "(misspelt, renamed or removed).",
            Severity.ERROR,
            stale=True,
        ),
        Code(
            "rules.type-mismatch",
            "type-mismatch",
            "An operator or function applied to kinds it has no overload for, iteration "
            "over something that is not a list or a map, or a comparison that can never "
            "hold.",
            Severity.ERROR,
        ),
        Code(
            "rules.number-mixing",
            "number-mixing",
            "Arithmetic on a JSON number (an int or a double, as written) that fails for one "
            "of the two.",
            Severity.ERROR,
        ),
        Code(
            "rules.result-type",
            "wrong-result-type",
            "A rule that does not give a bool, or a message expression that does not give "
            "a string.",
            Severity.ERROR,
        ),
        Code(
            "rules.cost",
            "over-cost-budget",
            "The estimated worst-case cost of an expression, from the schema's bounds, is "
            "over the budget.",
            Severity.ERROR,
        ),
        Code(
            "rules.optional-field",
            "optional-field-read",
            "A field the schema does not require, read without has(), the ? syntax or a "
            "scope: the rule fails on calls without it.",
            Severity.WARNING,
        ),
        Code(
            "rules.nullable-field",
            "nullable-field-used",
            "A value the schema allows to be null, used where null fails, without a null check.",
            Severity.WARNING,
        ),
        Code(
            "rules.field-path",
            "unknown-field-path",
            "A fieldPath that points at a field the schema cannot have: findings would "
            "point there.",
            Severity.WARNING,
            stale=True,
        ),
        Code(
            "rules.iterations",
            "may-exceed-iterations",
            "A rule whose worst case runs more comprehension steps than the runtime allows "
            "in one evaluation: on such calls it is reported as not evaluated.",
            Severity.WARNING,
        ),
    )
}


@dataclass(frozen=True, slots=True)
class RuleDiagnostic:
    """One problem in a rules file.

    ``subject`` is what it is about (a field path such as ``self.amount_cent``, a tool
    name), ``suggestion`` the name probably meant.
    """

    code: str
    severity: Severity
    message: str
    file: str
    line: int | None = None
    column: int | None = None
    tool: str | None = None
    rule: str | None = None
    hint: str | None = None
    subject: str | None = None
    suggestion: str | None = None

    @property
    def stale(self) -> bool:
        """Whether it says the rule fell behind its tool."""
        found = CODES.get(self.code)
        return found is not None and found.stale

    @property
    def where(self) -> str:
        """``file:line:column`` (as much as is known)."""
        return str(Source(self.file, self.line, self.column))

    def to_dict(self) -> dict[str, Any]:
        """The diagnostic in the JSON report (absent parts left out)."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity._value_,
            "message": self.message,
            "file": self.file,
        }
        for key in ("line", "column", "tool", "rule", "hint", "subject", "suggestion"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def to_finding(self) -> Finding:
        """The diagnostic as a finding, for the SARIF and GitHub renderers."""
        prefix = f"rule {self.rule!r}: " if self.rule is not None else ""
        return Finding(
            code=self.code,
            severity=self.severity,
            message=prefix + self.message,
            tool=self.tool,
            source=Source(self.file, self.line, self.column),
            hint=self.hint,
        )

    def text(self) -> str:
        """One line: ``file:line:col: rule 'id' (tool t): message``."""
        who = f"rule {self.rule!r} (tool {self.tool}): " if self.rule is not None else ""
        return f"{self.where}: {who}{self.message}"
