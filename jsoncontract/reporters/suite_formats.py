"""The report formats of ``jsoncontract test`` and ``jsoncontract fixtures``, by name.

Test cases are not lint findings, so these renderers are their own: each is a function
``(report, stream, options) -> None`` writing bytes. The CLI offers exactly the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract.reporters.suite_github import write_test_github
from jsoncontract.reporters.suite_json import write_fixtures_json, write_test_json
from jsoncontract.reporters.suite_junit import write_test_junit
from jsoncontract.reporters.suite_text import write_fixtures_text, write_test_text

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions

Writer = Callable[[Any, IO[bytes], "ReportOptions"], None]

TEST_REPORTERS: Final[dict[str, Writer]] = {
    "text": write_test_text,
    "json": write_test_json,
    "junit": write_test_junit,
    "github": write_test_github,
}
FIXTURES_REPORTERS: Final[dict[str, Writer]] = {
    "text": write_fixtures_text,
    "json": write_fixtures_json,
}
