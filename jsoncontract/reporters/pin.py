"""``pin --check --format text | json``: drift against the lock.

``text`` writes one line per change, ``file:line:col: error CODE message``, with its hint,
then the verdict (what changed since the lock, or that every tool matches it). ``json`` is
``{"version": 1, "summary": {...}, "findings": [...]}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Never

import orjson

from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import LineWriter, located_finding, note, plural

if TYPE_CHECKING:
    from jsoncontract.pin import DriftReport


class TextPinReporter(Reporter[Never, "DriftReport"]):
    """The human-readable drift report."""

    def close(self, report: DriftReport) -> None:
        """Write each change, then the verdict."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        findings = report.findings
        for index, finding in enumerate(findings):
            where = str(finding.source) if finding.source else "?"
            cls = report.class_of(index)
            message = f"[{cls}] {finding.message}" if cls else finding.message
            lines = [located_finding(where, finding.severity, finding.code, message)]
            if finding.hint:
                lines.append(note("hint", finding.hint))
            out.write(lines)
        for change in report.changes:
            out.write(
                [
                    [(f"{change.tool}: the {change.part} in full", "bold")],
                    [("  was: ", "dim"), (change.before or "(none)", "")],
                    [("  now: ", "dim"), (change.after or "(none)", "")],
                    [("  words: ", "dim"), (change.word_diff, "")],
                ]
            )
        if findings:
            summary = report.summary()
            verdict = (
                f"{summary['changed']} changed, {summary['added']} added, "
                f"{summary['removed']} removed since {report.lock}"
            )
            out.write([[], [(verdict, "bold red")]])
        else:
            matches = "matches" if report.tools == 1 else "match"
            out.write([[(f"{plural(report.tools, 'tool')} {matches} {report.lock}", "bold green")]])
        out.close()


class JsonPinReporter(Reporter[Never, "DriftReport"]):
    """The JSON drift report."""

    def close(self, report: DriftReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))


class MarkdownPinReporter(Reporter[Never, "DriftReport"]):
    """For a pull request: the verdict, each change, and each changed text in full with its
    word diff (removed words struck through, added ones in bold)."""

    def close(self, report: DriftReport) -> None:
        """Write the Markdown."""
        summary = report.summary()
        if not report.findings:
            lines = [f"**{plural(report.tools, 'tool')} match `{report.lock}`**"]
        else:
            lines = [
                f"**{summary['changed']} changed, {summary['added']} added, "
                f"{summary['removed']} removed since `{report.lock}`**",
                "",
                "| tool | class | change |",
                "|---|---|---|",
            ]
            lines += [
                f"| `{f.tool or ''}` | {report.class_of(i) or ''} | {_md(f.message)} |"
                for i, f in enumerate(report.findings)
            ]
        for change in report.changes:
            lines += [
                "",
                f"### `{change.tool}`: the {change.part}",
                "",
                f"- was: {_md(change.before or '(none)')}",
                f"- now: {_md(change.after or '(none)')}",
                f"- words: {_md_words(change.word_diff)}",
            ]
        self.stream.write(("\n".join(lines) + "\n").encode())


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_words(diff: str) -> str:
    """``[-old-]`` as ~~old~~ and ``{+new+}`` as **new**."""
    import re

    text = _md(diff)
    text = re.sub(r"\[-(.*?)-\]", r"~~\1~~", text)
    return re.sub(r"\{\+(.*?)\+\}", r"**\1**", text)
