"""``lint --format json``: ``{"version": 1, "summary": {...}, "findings": [...]}``.

The summary comes first; findings are serialised in chunks, so a catalog with tens of
thousands of findings never holds its whole report as one list of dictionaries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Never

import orjson

from jsoncontract.reporters.interface import Reporter

if TYPE_CHECKING:
    from jsoncontract.lint.report import LintReport

_CHUNK: int = 4096


class JsonLintReporter(Reporter[Never, "LintReport"]):
    """The JSON ``lint`` report."""

    def close(self, report: LintReport) -> None:
        """Write the summary, then every finding."""
        stream = self.stream
        dumps = orjson.dumps
        head = dumps({"version": 1, "summary": report.summary()})
        stream.write(head[:-1] + b',"findings":[')
        findings = report.findings
        for start in range(0, len(findings), _CHUNK):
            chunk = dumps([item.to_dict() for item in findings[start : start + _CHUNK]])
            if start:
                stream.write(b",")
            stream.write(chunk[1:-1])
        stream.write(b"]}\n")
