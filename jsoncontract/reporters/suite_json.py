"""``test --format json`` and ``fixtures --format json``: one object each, for machines.

``test``: ``{"version": 1, "summary": {...}, "results": [...]}`` with one result per case
(``tool``, ``case``, ``status``, ``mismatch``, ``message``, ``source``, ``tags``,
``expected``, ``actual``, ``hint``), plus ``updates`` after ``--update``.
``fixtures``: ``{"version": 1, "summary": {...}, "tools": [...], ...}``.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.suites.generate import GenerationReport
    from jsoncontract.suites.model import TestReport


def write_test_json(report: TestReport, stream: IO[bytes], options: ReportOptions) -> None:
    """Write the ``test`` JSON report."""
    stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))


def write_fixtures_json(
    report: GenerationReport, stream: IO[bytes], options: ReportOptions
) -> None:
    """Write the ``fixtures`` JSON report."""
    stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))
