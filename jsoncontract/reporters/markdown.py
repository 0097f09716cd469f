"""``--format markdown``: a summary for pull requests and GitHub's job summary page.

``check``, ``lint``, ``test`` and ``diff`` write a heading that says the verdict, the totals
as a table, the breakdowns (by stage and tool, by rule, by suite, by kind of difference),
then the items that failed, at most ``--max-shown`` of them (0: all), each with its
location relative to the project root. When ``GITHUB_STEP_SUMMARY`` is set the command line
appends this report to that file as well, within GitHub's 1 MiB per step: a report that
would not fit is cut at a whole item and ends by saying so.

Everything quoted from an input (messages, tool names, pointers, file names) is escaped,
so a capture can neither close a table cell, start a link or an image, nor write HTML.
Findings carry no payload values beyond what their messages quote, and those were hashed
where sensitive when the findings were made.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import IO, TYPE_CHECKING, Final, Never

from jsoncontract.model import STAGE_ORDER, BaselineState, Severity
from jsoncontract.project import portable_path, project_root
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import plural

if TYPE_CHECKING:
    from jsoncontract.diff.model import CallDiff, DiffSummary
    from jsoncontract.lint.report import LintReport
    from jsoncontract.model import CallResult, Finding, Summary
    from jsoncontract.settings import ReportOptions
    from jsoncontract.suites.model import TestReport

#: GitHub's limit for one step's summary.
STEP_SUMMARY_BYTES: Final = 1024 * 1024
_SPECIAL: Final = re.compile(r"([\\`*_\[\]<>|~])")
_CONTROLS: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: What GitHub would turn into a link or a notification: @mentions, #references, and the
#: ``:`` of a bare URL (``https://``) or the ``.`` of ``www.``.
_LINKED: Final = re.compile(r"@(?=[A-Za-z0-9])|#(?=[0-9])|:(?=//)|(?<=\bwww)\.", re.I)
_CUT_NOTE: Final = (
    "\n_The rest of this report was left out to stay within the size of a GitHub step "
    "summary (1 MiB); `--format json` lists everything._\n"
)
_ICON: Final = {Severity.ERROR: "🔴", Severity.WARNING: "🟡", Severity.INFO: "🔵"}


def md(text: object) -> str:
    """``text`` as literal Markdown on one line: what could start emphasis, code, a link
    or an image, HTML, or a new table cell is escaped, ``&`` written as an entity (no
    character reference survives), line breaks as spaces."""
    value = str(text).replace("&", "&amp;")
    value = _SPECIAL.sub(r"\\\1", value)
    value = value.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    # nothing GitHub links by itself: a mention (@team), an issue (#1), a bare URL (a zero
    # width space breaks each, and shows nothing)
    value = _LINKED.sub(lambda m: m.group()[0] + "\u200b" + m.group()[1:], value)
    return _CONTROLS.sub(lambda m: f"\\\\x{ord(m.group()):02x}", value)


def table(head: Sequence[str], rows: Iterable[Sequence[object]], right: Sequence[int] = ()) -> str:
    """A GitHub table; cells are written as given (escape them with :func:`md`), the
    columns in ``right`` aligned right (numbers)."""
    lines = ["| " + " | ".join(head) + " |"]
    lines.append("|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|")
    lines.extend("| " + " | ".join(str(c) for c in row) + " |" for row in rows)
    return "\n".join(lines) + "\n"


class MarkdownDoc:
    """Markdown parts written within a byte budget (0: none): a part that would not fit
    is left out, with everything after it, and a closing note says so."""

    def __init__(self, budget: int = 0) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.budget = budget
        self.cut = False

    def add(self, text: str) -> bool:
        """Add a part; ``False`` (and nothing added) once the budget is spent."""
        if self.cut:
            return False
        size = len(text.encode("utf-8", "backslashreplace"))
        reserve = len(_CUT_NOTE.encode())
        if self.budget and self.size + size + reserve > self.budget:
            self.cut = True
            return False
        self.parts.append(text)
        self.size += size
        return True

    def write(self, stream: IO[bytes]) -> None:
        """The document, with the note of a cut."""
        text = "".join(self.parts) + (_CUT_NOTE if self.cut else "")
        stream.write(text.encode("utf-8", "backslashreplace"))


def _where(file: str, line: int | None, root: str) -> str:
    spelt = portable_path(file, root)
    return md(f"{spelt}:{line}" if line is not None else spelt)


def _root(options: ReportOptions) -> str:
    return options.root if options.root is not None else str(project_root())


def _finding_cell(finding: Finding) -> str:
    text = f"{_ICON[finding.severity]} **{md(finding.code)}** {md(finding.path or '/')}: "
    text += md(finding.message)
    if finding.hint:
        text += f"<br>_hint:_ {md(finding.hint)}"
    if finding.baseline is BaselineState.UNCHANGED:
        text += " _(in the baseline)_"
    return text


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _more(hidden: int, noun: str) -> str:
    return (
        f"\n_{hidden:,} more {noun if hidden == 1 else noun + 's'} not shown (`--max-shown 0` "
        "shows all; "
        "`--format json` lists everything)._\n"
        if hidden
        else ""
    )


# -- check ------------------------------------------------------------------------------------


class MarkdownCheckReporter(Reporter["CallResult", "Summary"]):
    """The ``check`` summary: totals, failures by stage and by tool, the most frequent
    codes, then each call with findings (up to ``--max-shown``)."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._root = _root(options)
        self._rows: list[list[str]] = []
        self._hidden = 0

    def add(self, result: CallResult) -> None:
        """Keep the row of a call with findings (within ``--max-shown``)."""
        if not result.findings:
            return
        limit = self.options.max_shown
        if limit and len(self._rows) >= limit:
            self._hidden += 1
            return
        call = result.call
        self._rows.append(
            [
                _where(call.source.file, call.source.line, self._root),
                md(call.tool or "(no tool)"),
                md(call.hop.value if call.hop else ""),
                md(result.stage.value if result.stage else "ok (warnings)"),
                "<br>".join(_finding_cell(f) for f in result.findings),
            ]
        )

    def close(self, summary: Summary) -> None:
        """Write the document."""
        doc = MarkdownDoc(self.options.max_bytes)
        if summary.failed:
            verdict = f"❌ {summary.failed} of {plural(summary.calls, 'call')} failed"
        else:
            verdict = f"✅ {plural(summary.calls, 'call')} passed"
        doc.add(f"## jsoncontract check: {verdict}\n\n")
        sev = summary.by_severity
        totals = [
            summary.calls,
            summary.ok,
            summary.failed,
            summary.files,
            sev.get("error", 0),
            sev.get("warning", 0),
            sev.get("info", 0),
        ]
        head = ["calls", "ok", "failed", "files", "errors", "warnings", "info"]
        doc.add(table(head, [totals], right=range(7)))
        if summary.baseline:
            doc.add(
                f"\nCompared with a baseline: {summary.baseline.get('new', 0)} new, "
                f"{summary.baseline.get('unchanged', 0)} unchanged (those do not fail the "
                "run).\n"
            )
        for finding in getattr(summary, "findings", None) or ():  # about the run, not a call
            doc.add(f"\n- {_finding_cell(finding)}\n")
        if summary.failed:
            stages = " · ".join(
                f"{s.value} {summary.by_stage.get(s.value, 0)}" for s in STAGE_ORDER
            )
            doc.add(f"\n**Failed at:** {stages}\n")
        if summary.by_tool:
            rows = [
                [md(name), calls, failed]
                for name, (calls, failed) in sorted(
                    summary.by_tool.items(), key=lambda kv: (-kv[1][1], kv[0])
                )
            ]
            doc.add("\n### By tool\n\n" + table(["tool", "calls", "failed"], rows, right=(1, 2)))
        if summary.by_code:
            from jsoncontract.pipeline.codes import describe

            top = sorted(summary.by_code.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
            rows = [[f"**{md(code)}**", count, md(describe(code))] for code, count in top]
            doc.add("\n### Top codes\n\n" + table(["code", "findings", "meaning"], rows, (1,)))
        if self._rows:
            doc.add("\n### Calls with findings\n\n")
            doc.add(table(["where", "tool", "hop", "failed at", "findings"], []))
            for row in self._rows:
                if not doc.add("| " + " | ".join(row) + " |\n"):
                    break
            doc.add(_more(self._hidden, "call"))
        doc.write(self.stream)


# -- lint -------------------------------------------------------------------------------------


class MarkdownLintReporter(Reporter[Never, "LintReport"]):
    """The ``lint`` summary: totals, findings by rule, then the findings (up to
    ``--max-shown``)."""

    def close(self, report: LintReport) -> None:
        """Write the document."""
        options = self.options
        root = _root(options)
        doc = MarkdownDoc(options.max_bytes)
        summary = report.summary()
        sev = summary["by_severity"]
        total = summary["findings"]
        icon = "❌" if sev["error"] else "⚠️" if total else "✅"
        doc.add(
            f"## jsoncontract lint: {icon} {plural(total, 'finding')} in "
            f"{plural(summary['tools'], 'tool')} ({plural(summary['files'], 'file')})\n\n"
        )
        doc.add(
            table(
                ["errors", "warnings", "info", "fixable", "suppressed"],
                [[sev["error"], sev["warning"], sev["info"], summary["fixable"],
                  summary["suppressed"]]],
                right=range(5),
            )
        )  # fmt: skip
        doc.add(f"\nProfiles: {md(', '.join(report.profiles))}\n")
        if "baseline" in summary:
            states = summary["baseline"]
            doc.add(
                f"\nCompared with a baseline: {states['new']} new, {states['unchanged']} "
                "unchanged (those do not fail the run).\n"
            )
        if report.findings:
            counts = Counter(item.code for item in report.findings)
            worst: dict[str, Severity] = {}
            names: dict[str, str] = {}
            for item in report.findings:
                names[item.code] = item.rule
                if item.code not in worst or item.severity.rank > worst[item.code].rank:
                    worst[item.code] = item.severity
            rows = [
                [f"**{md(code)}**", md(names[code]), worst[code].value, count]
                for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            ]
            doc.add(
                "\n### By rule\n\n" + table(["rule", "name", "severity", "findings"], rows, (3,))
            )
            doc.add("\n### Findings\n\n" + table(["where", "tool", "finding"], []))
            limit = options.max_shown
            shown = report.findings[:limit] if limit else report.findings
            for item in shown:
                where = _where(item.file, item.line, root)
                if item.line is not None and item.column is not None:
                    where += f":{item.column}"
                cell = [where, md(item.tool or ""), _finding_cell(item.finding)]
                if not doc.add("| " + " | ".join(cell) + " |\n"):
                    break
            doc.add(_more(len(report.findings) - len(shown), "finding"))
        doc.write(self.stream)


# -- test -------------------------------------------------------------------------------------


class MarkdownTestReporter(Reporter[Never, "TestReport"]):
    """The ``test`` summary: totals by tool, then every case that did not pass (up to
    ``--max-shown``)."""

    __test__ = False  # not a pytest test class, despite the name

    def close(self, report: TestReport) -> None:
        """Write the document."""
        from jsoncontract.reporters.suite_text import totals_counts, totals_head
        from jsoncontract.suites.model import case_line

        options = self.options
        root = _root(options)
        doc = MarkdownDoc(options.max_bytes)
        summary = report.summary
        icon = "✅" if report.ok else "❌"
        doc.add(
            f"## jsoncontract test: {icon} {totals_head(summary)}: {totals_counts(summary)}\n\n"
        )
        by_tool = summary.to_dict()["by_tool"]
        columns = ["cases", "passed", "failed", "weaknesses", "skipped", "errors"]
        rows = [
            [md(tool), *(counts.get(c, 0) for c in columns)] for tool, counts in by_tool.items()
        ]
        doc.add(table(["tool", *columns], rows, right=range(1, 7)))
        failing = [o for o in report.outcomes if not o.ok]
        if failing:
            doc.add("\n### Cases that did not pass\n\n")
            doc.add(table(["case", "tool", "status", "where", "what happened"], []))
            limit = options.max_shown
            shown = failing[:limit] if limit else failing
            for outcome in shown:
                suite = outcome.suite
                text = md(outcome.message)
                if outcome.hint:
                    text += f"<br>_hint:_ {md(outcome.hint)}"
                if outcome.baseline is BaselineState.UNCHANGED:
                    text += " _(in the baseline)_"
                cell = [
                    md(outcome.name),
                    md(suite.tool),
                    md(outcome.mismatch.value if outcome.mismatch else outcome.status.value),
                    _where(suite.file, case_line(suite, outcome.case), root),
                    text,
                ]
                if not doc.add("| " + " | ".join(cell) + " |\n"):
                    break
            doc.add(_more(len(failing) - len(shown), "case"))
        doc.write(self.stream)


# -- diff -------------------------------------------------------------------------------------


class MarkdownDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """The ``diff`` summary: calls by status, differences by kind, then each call that
    does not agree (up to ``--max-shown``) with its hops and changed members side by side."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._root = _root(options)
        self._calls: list[str] = []
        self._hidden = 0

    def add(self, result: CallDiff) -> None:
        """Keep the section of a call that does not agree (or of any, with ``-v``)."""
        if result.ok and not result.findings and not self.options.verbose:
            return
        limit = self.options.max_shown
        if limit and len(self._calls) >= limit:
            self._hidden += 1
            return
        self._calls.append(self._section(result))

    def _section(self, result: CallDiff) -> str:
        from jsoncontract.reporters.diff_text import verdict

        title = f"{result.status.value.upper()} {md(result.tool or '(no tool)')}"
        if result.call_id:
            title += f" · {md(result.call_id)}"
        parts = [f"\n### {title}\n\n"]
        hops = [
            [md(view.hop.value), md(str(view.call.dialect or "")),
             _where(view.call.source.file, view.call.source.line, self._root),
             md(view.matched_by)]
            for view in result.hops
        ]  # fmt: skip
        parts.append(table(["hop", "dialect", "where", "paired by"], hops))
        rows = result.rows(changed_only=True)
        if rows:
            head = ["path", *(view.hop.value for view in result.hops), "verdict"]
            lines = []
            for row in rows:
                cells = []
                for cell in row.cells:
                    if cell is None:
                        cells.append("—")
                    else:
                        path, text = cell
                        shown = f"{path}: " if path != row.path else ""
                        cells.append(md(_cut(shown + text, 200)))
                word, _ = verdict(row.differences)
                lines.append([md(row.path or "/"), *cells, md(word)])
            parts.append("\n" + table(head, lines))
        notes = [
            f"- {_ICON[d.severity]} **{md(d.code.value)}** {md(d.message)}"
            + (f"<br>_hint:_ {md(d.hint)}" if d.hint else "")
            for d in result.differences
        ]
        notes.extend(f"- {_finding_cell(f)}" for f in result.findings)
        if notes:
            parts.append("\n" + "\n".join(notes) + "\n")
        return "".join(parts)

    def close(self, summary: DiffSummary) -> None:
        """Write the document."""
        doc = MarkdownDoc(self.options.max_bytes)
        status = summary.by_status
        icon = "✅" if not summary.failed else "❌"
        words = " · ".join(f"{count} {name}" for name, count in status.items() if count)
        doc.add(
            f"## jsoncontract diff: {icon} {plural(summary.calls, 'call')} diffed: "
            f"{words or 'nothing to compare'}\n\n"
        )
        unexpected = sum(summary.unexpected.values())
        expected = sum(summary.expected.values())
        doc.add(
            table(
                ["calls", "agree", "differ", "unexpected differences", "expected", "findings"],
                [[summary.calls, status.get("agree", 0), status.get("differ", 0), unexpected,
                  expected, sum(summary.finding_severity.values())]],
                right=range(6),
            )
        )  # fmt: skip
        codes = sorted(set(summary.unexpected) | set(summary.expected))
        if codes:
            rows = [
                [md(code), summary.unexpected.get(code, 0), summary.expected.get(code, 0)]
                for code in codes
            ]
            doc.add(
                "\n### Differences by kind\n\n"
                + table(["kind", "unexpected", "expected"], rows, (1, 2))
            )
        for finding in summary.findings:
            doc.add(f"\n- {_finding_cell(finding)}\n")
        for section in self._calls:
            if not doc.add(section):
                break
        doc.add(_more(self._hidden, "call"))
        doc.write(self.stream)


__all__ = [
    "STEP_SUMMARY_BYTES",
    "MarkdownCheckReporter",
    "MarkdownDiffReporter",
    "MarkdownDoc",
    "MarkdownLintReporter",
    "MarkdownTestReporter",
    "md",
    "table",
]
