"""What checking a rules file finds: one :class:`RuleDiagnostic` per problem, by code.

Loading rules for ``check`` stops at the first error (exit 2) and prints warnings;
``jsoncontract rules --check`` reports every diagnostic of every file, with its place
(file, line, column), the tool and the rule, in text, JSON, SARIF or GitHub annotations.
Each code is one entry of :data:`CODES`, declared in :mod:`jsoncontract.codes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from jsoncontract import codes
from jsoncontract.model import Finding, Severity, Source


@dataclass(frozen=True, slots=True)
class Code:
    """One kind of diagnostic: its code, a kebab-case name and what it means (its entry in
    the catalog of finding codes, :mod:`jsoncontract.codes`)."""

    code: str
    name: str
    summary: str
    severity: Severity
    stale: bool = False  # a sign that the rule fell behind its tool (tool gone, field renamed)


#: The codes that say a rule fell behind its tool (the tool is gone, a field was renamed).
STALE: Final = frozenset(
    {codes.RULES_UNKNOWN_TOOL, codes.RULES_UNKNOWN_FIELD, codes.RULES_FIELD_PATH}
)

CODES: Final = {
    entry.code: Code(
        entry.code, entry.rule_name, entry.summary, entry.severity, entry.code in STALE
    )
    for entry in codes.CATALOG.of(codes.RULES)
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
