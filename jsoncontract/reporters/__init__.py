"""Reporters: turning results into text, JSON and CI formats.

Lookup is by format name; the CLI offers exactly the keys of each table.
"""

from __future__ import annotations

from typing import Final

from jsoncontract.reporters.check_json import JsonCheckReporter, JsonlCheckReporter
from jsoncontract.reporters.check_text import TextCheckReporter
from jsoncontract.reporters.diff_interface import DiffReporter, DiffReportOptions
from jsoncontract.reporters.diff_json import JsonDiffReporter, PatchDiffReporter
from jsoncontract.reporters.diff_text import TextDiffReporter
from jsoncontract.reporters.interface import CheckReporter, ReportOptions

CHECK_REPORTERS: Final[dict[str, type[CheckReporter]]] = {
    "text": TextCheckReporter,
    "json": JsonCheckReporter,
    "jsonl": JsonlCheckReporter,
}

DIFF_REPORTERS: Final[dict[str, type[DiffReporter]]] = {
    "text": TextDiffReporter,
    "json": JsonDiffReporter,
    "patch": PatchDiffReporter,
}

__all__ = [
    "CHECK_REPORTERS",
    "DIFF_REPORTERS",
    "CheckReporter",
    "DiffReportOptions",
    "DiffReporter",
    "ReportOptions",
]
