"""The result of a lint run: located findings, what was suppressed, and the summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from jsoncontract.model import BaselineState, Finding, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.baseline import Baseline
    from jsoncontract.codes import RuleMeta
    from jsoncontract.lint.context import Suppression
    from jsoncontract.lint.rule import Fix


class LintFinding:
    """A lint finding: the fields of a :class:`~jsoncontract.model.Finding` plus what only
    lint knows about it.

    ``rule`` is the rule's kebab-case name, ``profiles`` the selected profiles the finding
    matters for, ``fix`` the mechanical repair ``--fix`` would apply and ``refused`` why a
    fixable rule offers none here. The core :class:`~jsoncontract.model.Finding` is built on
    first use of :attr:`finding` (a large run reports tens of thousands of findings, and
    the JSON report does not need the objects).
    """

    __slots__ = (
        "_finding",
        "baseline",
        "code",
        "column",
        "file",
        "fix",
        "hint",
        "keyword",
        "line",
        "message",
        "path",
        "profiles",
        "refused",
        "rule",
        "schema_path",
        "severity",
        "tool",
    )

    def __init__(
        self,
        code: str,
        severity: Severity,
        message: str,
        path: str,
        *,
        rule: str,
        profiles: tuple[str, ...],
        file: str,
        line: int | None = None,
        column: int | None = None,
        tool: str | None = None,
        keyword: str | None = None,
        schema_path: str | None = None,
        hint: str | None = None,
        fix: Fix | None = None,
        refused: str | None = None,
    ) -> None:
        self.code = code
        self.severity = severity
        self.message = message
        self.path = path
        self.rule = rule
        self.profiles = profiles
        self.file = file
        self.line = line
        self.column = column
        self.tool = tool
        self.keyword = keyword
        self.schema_path = schema_path
        self.hint = hint
        self.fix = fix
        self.refused = refused
        self.baseline: BaselineState | None = None
        self._finding: Finding | None = None

    @property
    def finding(self) -> Finding:
        """The finding as the core model (and every finding renderer) knows it."""
        if self._finding is None:
            self._finding = Finding(
                code=self.code,
                severity=self.severity,
                message=self.message,
                path=self.path,
                tool=self.tool,
                keyword=self.keyword,
                schema_path=self.schema_path,
                source=Source(self.file, self.line, self.column, self.path),
                hint=self.hint,
            )
        if self._finding.baseline is not self.baseline:
            self._finding = replace(self._finding, baseline=self.baseline)
        return self._finding

    def to_dict(self) -> dict[str, Any]:
        """The finding as the JSON report writes it (the fields of ``Finding.to_dict``, then
        ``rule``, ``profiles``, ``fixable`` and the fix or why there is none)."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": str.__str__(self.severity),
            "message": self.message,
            "path": self.path,
        }
        if self.tool is not None:
            out["tool"] = self.tool
        if self.keyword is not None:
            out["keyword"] = self.keyword
        if self.schema_path is not None:
            out["schema_path"] = self.schema_path
        source: dict[str, Any] = {"file": self.file}
        if self.line is not None:
            source["line"] = self.line
        if self.column is not None:
            source["column"] = self.column
        out["source"] = source
        if self.hint is not None:
            out["hint"] = self.hint
        out["rule"] = self.rule
        out["profiles"] = list(self.profiles)
        out["fixable"] = self.fix is not None
        if self.fix is not None:
            out["fix"] = self.fix.title
        if self.refused is not None:
            out["fix_refused"] = self.refused
        if self.baseline is not None:
            out["baseline"] = self.baseline._value_
        return out


@dataclass(slots=True)
class LintReport:
    """Every finding of a run, in file order, and the totals."""

    profiles: tuple[str, ...]
    mcp_version: str | None
    files: list[str] = field(default_factory=list)
    tools: int = 0
    #: file -> names of its tools, in order (JUnit lists tools without findings too)
    tools_by_file: dict[str, list[str]] = field(default_factory=dict)
    findings: list[LintFinding] = field(default_factory=list)
    suppressed: list[tuple[LintFinding, Suppression]] = field(default_factory=list)
    unused_suppressions: list[Suppression] = field(default_factory=list)
    fixed: int = 0
    #: file -> the seconds spent linting each of its tools (in ``tools_by_file`` order)
    tool_seconds: dict[str, list[float]] = field(default_factory=dict)
    #: file -> the seconds spent on the whole file (reading, loading, every rule)
    file_seconds: dict[str, float] = field(default_factory=dict)
    #: what ``files`` are, in the text summary (``server`` for a live server's tools)
    unit: str = "file"
    #: files found in a directory that hold no tool definition, with why: ``(file, why)``
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: what reports say of the project's own rules that ran, by code
    user_rules: dict[str, RuleMeta] = field(default_factory=dict)

    def mark_baseline(self, baseline: Baseline) -> None:
        """Mark every finding with whether ``baseline`` holds it (suppressed ones stay as
        they are)."""
        matcher = baseline.matcher()
        for item in self.findings:
            item.baseline = matcher.state(item.finding)

    def worst(self) -> Severity | None:
        """The most severe finding (not counting those a baseline holds), or ``None`` when
        there is none."""
        return Severity.worst(
            item.severity for item in self.findings if item.baseline is not BaselineState.UNCHANGED
        )

    def summary(self) -> dict[str, Any]:
        """The ``summary`` object of the JSON report."""
        by_severity: Counter[str] = Counter()
        by_code: Counter[str] = Counter()
        fixable = 0
        tools_with_findings: set[tuple[str, str]] = set()
        for item in self.findings:
            by_severity[item.severity] += 1
            by_code[item.code] += 1
            if item.fix is not None:
                fixable += 1
            if item.tool is not None:  # a finding about the file itself is no tool's
                tools_with_findings.add((item.file, item.tool))
        out: dict[str, Any] = {
            "files": len(self.files),
            "tools": self.tools,
            "tools_with_findings": len(tools_with_findings),
            "findings": len(self.findings),
            "by_severity": {s.value: by_severity.get(s.value, 0) for s in Severity},
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
        states = Counter(item.baseline for item in self.findings if item.baseline is not None)
        if states:
            out["baseline"] = {s.value: states.get(s, 0) for s in BaselineState}
        return out

    def to_dict(self) -> dict[str, Any]:
        """The whole JSON report."""
        return {
            "version": 1,
            "summary": self.summary(),
            "findings": [item.to_dict() for item in self.findings],
        }
