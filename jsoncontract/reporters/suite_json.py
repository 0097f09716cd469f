"""``test --format json`` and ``fixtures --format json``: one object each, for machines.

``test``: ``{"version": 1, "summary": {...}, "results": [...]}`` with one result per case
(``tool``, ``case``, ``status``, ``mismatch``, ``message``, ``source``, ``tags``,
``expected``, ``actual``, ``hint``), plus ``updates`` after ``--update``.
``fixtures``: ``{"version": 1, "summary": {...}, "tools": [...], ...}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Never

import orjson

from jsoncontract.reporters.interface import Reporter

if TYPE_CHECKING:
    from jsoncontract.suites.generate import GenerationReport
    from jsoncontract.suites.model import TestReport


class JsonTestReporter(Reporter[Never, "TestReport"]):
    """The ``test`` JSON report."""

    def close(self, report: TestReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))


class JsonFixturesReporter(Reporter[Never, "GenerationReport"]):
    """The ``fixtures`` JSON report."""

    def close(self, report: GenerationReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))
