"""``rules --check`` reports: text, json, sarif and github.

Each reporter is a :class:`~jsoncontract.reporters.interface.Reporter` that takes the whole
:class:`~jsoncontract.business.rules.RulesCheck` at :meth:`close` (the check builds its
report at once), writes bytes, and decides nothing.

Text is for people: one line per diagnostic, ``file:line:col: severity CODE rule 'id'
(tool t): message`` (clickable in terminals and editors), its hint, then the rules that
fell behind their tools (the stale report), then the summary; ``--verbose`` adds the
estimated cost of every expression. JSON is ``{"version": 1, "summary", "diagnostics",
"stale", "expressions"}``. SARIF and GitHub annotations carry every diagnostic with its
place, through the shared finding renderers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Never

import orjson

from jsoncontract import codes
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import SEVERITY_STYLE, Line, LineWriter, Style, note, plural

if TYPE_CHECKING:
    from jsoncontract.business.diagnostics import RuleDiagnostic
    from jsoncontract.business.rules import RulesCheck
    from jsoncontract.codes import RuleMeta

#: Where each code is explained.
DOCS_URL: Final = (
    "https://github.com/jsoncontract/jsoncontract/blob/main/docs/business-rules.md"
    "#checking-rules-without-traffic"
)


def _plural(count: int, noun: str) -> str:
    return plural(count, noun).replace(str(count), f"{count:,}", 1)


def diagnostic_lines(item: RuleDiagnostic) -> list[Line]:
    """The line of one diagnostic, and its hint."""
    who = f"rule {item.rule!r} (tool {item.tool}): " if item.rule is not None else ""
    lines: list[Line] = [
        [
            (item.where, Style.LOCATION),
            (": ", ""),
            (item.severity.value, SEVERITY_STYLE[item.severity]),
            (" ", ""),
            (item.code, Style.CODE),
            (" ", ""),
            (who, Style.TOOL),
            (item.message, ""),
        ]
    ]
    if item.hint:
        lines.append(note("hint", item.hint))
    return lines


def stale_line(item: RuleDiagnostic) -> Line:
    """One entry of the stale report: which rule, what it lost, what it probably is now."""
    if item.code == codes.RULES_UNKNOWN_TOOL:
        what = f"tool {item.tool!r} is not in the tool set"
    elif item.code == codes.RULES_FIELD_PATH:
        what = f"{item.tool}/{item.rule}: fieldPath {item.subject} points at no field"
    elif item.subject is not None and item.subject.startswith("/"):
        what = f"{item.tool}/{item.rule}: scope {item.subject} points at no field"
    else:
        what = f"{item.tool}/{item.rule}: {item.subject} is not in the schema"
    now = f" (now {item.suggestion!r}?)" if item.suggestion else ""
    return [("  ", ""), (what, ""), (now, "cyan"), (f"  {item.where}", Style.DIM)]


class TextRulesCheckReporter(Reporter[Never, "RulesCheck"]):
    """Diagnostics, the stale report, and the summary, for people."""

    def close(self, report: RulesCheck) -> None:
        """Write the whole report."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        lines: list[Line] = []
        if not self.options.quiet:
            for item in report.diagnostics:
                lines.extend(diagnostic_lines(item))
            stale = report.stale
            if stale:
                if lines:
                    lines.append([])
                lines.append([("Rules that fell behind their tools (stale):", "bold yellow")])
                lines.extend(stale_line(item) for item in stale)
            if self.options.verbose and report.costs:
                if lines:
                    lines.append([])
                lines.append([("Estimated worst-case cost of each expression:", Style.CODE)])
                width = max(len(f"{c.tool}/{c.rule} {c.key}") for c in report.costs)
                for cost in report.costs:
                    name = f"{cost.tool}/{cost.rule} {cost.key}"
                    steps = f", {cost.iterations:,} steps" if cost.iterations else ""
                    lines.append(
                        [("  ", ""), (f"{name:<{width}}", ""), (f"  {cost.cost:>9,}{steps}", "")]
                    )
            if lines:
                lines.append([])
        summary = report.summary()
        by = summary["by_severity"]
        errors, warnings = by["error"], by["warning"]
        style = "bold red" if errors else "bold yellow" if warnings else "bold green"
        head = (
            f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
            if errors or warnings
            else "All rules check out"
        )
        budget = summary["cost_budget"]
        detail = (
            f" in {_plural(summary['rules'], 'rule')} for {_plural(summary['tools'], 'tool')} "
            f"({_plural(summary['files'], 'file')}; cost budget "
            f"{f'{budget:,}' if budget is not None else 'off'})"
        )
        lines.append([(head, style), (detail, "")])
        out.write(lines)
        out.close()


class JsonRulesCheckReporter(Reporter[Never, "RulesCheck"]):
    """``{"version": 1, "summary", "diagnostics", "stale", "expressions"}``."""

    def close(self, report: RulesCheck) -> None:
        """Write the whole report."""
        body = {
            "version": 1,
            "summary": report.summary(),
            "diagnostics": [d.to_dict() for d in report.diagnostics],
            "stale": [
                {
                    k: v
                    for k, v in {
                        "code": d.code,
                        "file": d.file,
                        "line": d.line,
                        "tool": d.tool,
                        "rule": d.rule,
                        "subject": d.subject,
                        "suggestion": d.suggestion,
                    }.items()
                    if v is not None
                }
                for d in report.stale
            ],
            "expressions": [c.to_dict() for c in report.costs],
        }
        self.stream.write(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE))


def rule_metas() -> dict[str, RuleMeta]:
    """The SARIF metadata of every diagnostic code: its entry in the catalog of codes."""
    from dataclasses import replace

    from jsoncontract.business.diagnostics import CODES
    from jsoncontract.codes import code_rule

    return {
        code.code: replace(
            code_rule(code.code),
            tags=("business-rules", *(("stale",) if code.stale else ())),
        )
        for code in CODES.values()
    }


class SarifRulesCheckReporter(Reporter[Never, "RulesCheck"]):
    """SARIF 2.1.0, with the metadata of every code that has a result."""

    def close(self, report: RulesCheck) -> None:
        """Write the whole report."""
        from jsoncontract.reporters.findings import FindingSet
        from jsoncontract.reporters.sarif import sarif_log

        used = {d.code for d in report.diagnostics}
        metas = {code: meta for code, meta in rule_metas().items() if code in used}
        findings = [d.to_finding() for d in report.diagnostics]
        found = FindingSet(
            findings, metas, root=self.options.root, command=self.options.command or "rules"
        )
        self.stream.write(sarif_log(found))


class GithubRulesCheckReporter(Reporter[Never, "RulesCheck"]):
    """GitHub Actions annotations, one line per diagnostic."""

    def close(self, report: RulesCheck) -> None:
        """Write the whole report."""
        from jsoncontract.reporters.github import AnnotationWriter, annotations_from_findings

        names = {code: meta.name for code, meta in rule_metas().items()}
        findings = [d.to_finding() for d in report.diagnostics]
        writer = AnnotationWriter(
            self.stream, command=self.options.command or "rules", max_shown=self.options.max_shown
        )
        writer.write(annotations_from_findings(findings, names, root=self.options.root))
        writer.close()
