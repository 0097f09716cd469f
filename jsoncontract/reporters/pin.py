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
        for finding in findings:
            where = str(finding.source) if finding.source else "?"
            lines = [located_finding(where, finding.severity, finding.code, finding.message)]
            if finding.hint:
                lines.append(note("hint", finding.hint))
            out.write(lines)
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
