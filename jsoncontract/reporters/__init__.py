"""Reporters: turning results into text, JSON and CI formats.

Lookup is by format name; the CLI offers exactly the keys of each table.
"""

from __future__ import annotations

from typing import Final

from jsoncontract.reporters.check_json import JsonCheckReporter, JsonlCheckReporter
from jsoncontract.reporters.check_text import TextCheckReporter
from jsoncontract.reporters.interface import CheckReporter, ReportOptions

CHECK_REPORTERS: Final[dict[str, type[CheckReporter]]] = {
    "text": TextCheckReporter,
    "json": JsonCheckReporter,
    "jsonl": JsonlCheckReporter,
}

#: ``lint`` formats (the writers live in :mod:`jsoncontract.reporters.lint`).
LINT_FORMATS: Final = ("text", "json", "sarif", "junit", "github")

__all__ = ["CHECK_REPORTERS", "LINT_FORMATS", "CheckReporter", "ReportOptions"]
