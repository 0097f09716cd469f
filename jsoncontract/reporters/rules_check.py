"""``rules --check`` reports: text, json, sarif and github.

Each reporter takes the whole :class:`~jsoncontract.business.rules.RulesCheck` at
:meth:`close` (the check builds its report at once), writes bytes, and decides nothing.

Text is for people: one line per diagnostic, ``file:line:col: severity CODE rule 'id'
(tool t): message`` (clickable in terminals and editors), its hint, then the rules that
fell behind their tools (the stale report), then the summary; ``--verbose`` adds the
estimated cost of every expression. JSON is ``{"version": 1, "summary", "diagnostics",
"stale", "expressions"}``. SARIF and GitHub annotations carry every diagnostic with its
place, through the shared finding renderers.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Final

import orjson

from jsoncontract.model import Severity
from jsoncontract.reporters.check_text import LineWriter, Segment

if TYPE_CHECKING:
    from jsoncontract.business.diagnostics import RuleDiagnostic
    from jsoncontract.business.rules import RulesCheck
    from jsoncontract.reporters.findings import RuleMeta
    from jsoncontract.reporters.interface import ReportOptions

_STYLE: Final = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
#: Where each code is explained.
DOCS_URL: Final = (
    "https://github.com/jsoncontract/jsoncontract/blob/main/docs/business-rules.md"
    "#checking-rules-without-traffic"
)


class RulesCheckReporter:
    """Writes one ``rules --check`` report.

    Arguments:
        stream: where to write (binary; left open).
        options: presentation choices.
    """

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        self.stream = stream
        self.options = options

    def close(self, report: RulesCheck) -> None:  # pragma: no cover - each format overrides
        """Write the whole report."""
        raise NotImplementedError


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def diagnostic_lines(item: RuleDiagnostic) -> list[list[Segment]]:
    """The line of one diagnostic, and its hint."""
    who = f"rule {item.rule!r} (tool {item.tool}): " if item.rule is not None else ""
    lines: list[list[Segment]] = [
        [
            (item.where, "bold"),
            (": ", ""),
            (item.severity.value, _STYLE[item.severity]),
            (" ", ""),
            (item.code, "bold"),
            (" ", ""),
            (who, "magenta"),
            (item.message, ""),
        ]
    ]
    if item.hint:
        lines.append([("    hint: ", "dim"), (item.hint, "dim")])
    return lines


def stale_line(item: RuleDiagnostic) -> list[Segment]:
    """One entry of the stale report: which rule, what it lost, what it probably is now."""
    if item.code == "rules.unknown-tool":
        what = f"tool {item.tool!r} is not in the tool set"
    elif item.code == "rules.field-path":
        what = f"{item.tool}/{item.rule}: fieldPath {item.subject} points at no field"
    elif item.subject is not None and item.subject.startswith("/"):
        what = f"{item.tool}/{item.rule}: scope {item.subject} points at no field"
    else:
        what = f"{item.tool}/{item.rule}: {item.subject} is not in the schema"
    now = f" (now {item.suggestion!r}?)" if item.suggestion else ""
    return [("  ", ""), (what, ""), (now, "cyan"), (f"  {item.where}", "dim")]


class TextRulesCheckReporter(RulesCheckReporter):
    """Diagnostics, the stale report, and the summary, for people."""

    def close(self, report: RulesCheck) -> None:
        out = LineWriter(self.stream, self.options)
        lines: list[list[Segment]] = []
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
                lines.append([("Estimated worst-case cost of each expression:", "bold")])
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


class JsonRulesCheckReporter(RulesCheckReporter):
    """``{"version": 1, "summary", "diagnostics", "stale", "expressions"}``."""

    def close(self, report: RulesCheck) -> None:
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
    """The SARIF metadata of every diagnostic code."""
    from jsoncontract.business.diagnostics import CODES
    from jsoncontract.reporters.findings import RuleMeta

    return {
        code.code: RuleMeta(
            code=code.code,
            name=code.name,
            summary=code.summary,
            severity=code.severity,
            help_markdown=code.summary,
            help_uri=DOCS_URL,
            tags=("business-rules", *(("stale",) if code.stale else ())),
        )
        for code in CODES.values()
    }


class SarifRulesCheckReporter(RulesCheckReporter):
    """SARIF 2.1.0, with the metadata of every code that has a result."""

    def close(self, report: RulesCheck) -> None:
        from jsoncontract.reporters.sarif import render_sarif

        used = {d.code for d in report.diagnostics}
        metas = {code: meta for code, meta in rule_metas().items() if code in used}
        findings = [d.to_finding() for d in report.diagnostics]
        self.stream.write(render_sarif(findings, metas).encode())


class GithubRulesCheckReporter(RulesCheckReporter):
    """GitHub Actions annotations, one line per diagnostic."""

    def close(self, report: RulesCheck) -> None:
        from jsoncontract.reporters.github import annotations_from_findings, render_github

        names = {code: meta.name for code, meta in rule_metas().items()}
        annotations = annotations_from_findings([d.to_finding() for d in report.diagnostics], names)
        self.stream.write(render_github(annotations).encode())
