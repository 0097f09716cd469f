"""The result of a lint run: located findings, what was suppressed, and the summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.rule import Fix
    from jsoncontract.lint.settings import Suppression
    from jsoncontract.model import Finding

_SEVERITIES = (Severity.ERROR, Severity.WARNING, Severity.INFO)


@dataclass(frozen=True, slots=True)
class LintFinding:
    """A :class:`~jsoncontract.model.Finding` plus what only lint knows about it.

    ``rule`` is the rule's kebab-case name, ``profiles`` the selected profiles the finding
    matters for, ``fix`` the mechanical repair ``--fix`` would apply and ``refused`` why a
    fixable rule offers none here.
    """

    finding: Finding
    rule: str
    profiles: tuple[str, ...]
    fix: Fix | None = None
    refused: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The finding as the JSON report writes it."""
        out = self.finding.to_dict()
        out["rule"] = self.rule
        out["profiles"] = list(self.profiles)
        out["fixable"] = self.fix is not None
        if self.fix is not None:
            out["fix"] = self.fix.title
        if self.refused is not None:
            out["fix_refused"] = self.refused
        return out


@dataclass(slots=True)
class LintReport:
    """Every finding of a run, in file order, and the totals."""

    profiles: tuple[str, ...]
    mcp_version: str | None
    files: list[str] = field(default_factory=list)
    tools: int = 0
    findings: list[LintFinding] = field(default_factory=list)
    suppressed: list[tuple[LintFinding, Suppression]] = field(default_factory=list)
    unused_suppressions: list[Suppression] = field(default_factory=list)
    fixed: int = 0

    def worst(self) -> Severity | None:
        """The most severe finding, or ``None`` when there is none."""
        worst: Severity | None = None
        for item in self.findings:
            severity = item.finding.severity
            if worst is None or severity.rank > worst.rank:
                worst = severity
                if severity is Severity.ERROR:
                    break
        return worst

    def summary(self) -> dict[str, Any]:
        """The ``summary`` object of the JSON report."""
        by_severity: Counter[str] = Counter()
        by_code: Counter[str] = Counter()
        fixable = 0
        tools_with_findings: set[tuple[str | None, str | None]] = set()
        for item in self.findings:
            finding = item.finding
            by_severity[finding.severity.value] += 1
            by_code[finding.code] += 1
            if item.fix is not None:
                fixable += 1
            tools_with_findings.add((finding.source.file if finding.source else None, finding.tool))
        out: dict[str, Any] = {
            "files": len(self.files),
            "tools": self.tools,
            "tools_with_findings": len(tools_with_findings),
            "findings": len(self.findings),
            "by_severity": {s.value: by_severity.get(s.value, 0) for s in _SEVERITIES},
            "by_code": dict(sorted(by_code.items())),
            "fixable": fixable,
            "suppressed": len(self.suppressed),
            "profiles": list(self.profiles),
        }
        if self.mcp_version is not None:
            out["mcp_version"] = self.mcp_version
        if self.fixed:
            out["fixed"] = self.fixed
        if self.unused_suppressions:
            out["unused_suppressions"] = [s.to_dict() for s in self.unused_suppressions]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The whole JSON report."""
        return {
            "version": 1,
            "summary": self.summary(),
            "findings": [item.to_dict() for item in self.findings],
        }
