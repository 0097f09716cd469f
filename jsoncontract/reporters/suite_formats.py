"""The report formats of ``jsoncontract test`` and ``jsoncontract fixtures``, by name.

Each is a function ``(report, stream, options) -> None`` writing bytes; the CI formats turn
cases into the shared renderers' values (JUnit cases, annotations, SARIF results). The CLI
offers exactly the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract.reporters.suite_github import write_test_github
from jsoncontract.reporters.suite_json import write_fixtures_json, write_test_json
from jsoncontract.reporters.suite_junit import write_test_junit
from jsoncontract.reporters.suite_sarif import write_test_sarif
from jsoncontract.reporters.suite_text import write_fixtures_text, write_test_text

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions

Writer = Callable[[Any, IO[bytes], "ReportOptions"], None]

TEST_REPORTERS: Final[dict[str, Writer]] = {
    "text": write_test_text,
    "json": write_test_json,
    "junit": write_test_junit,
    "github": write_test_github,
    "sarif": write_test_sarif,
}
FIXTURES_REPORTERS: Final[dict[str, Writer]] = {
    "text": write_fixtures_text,
    "json": write_fixtures_json,
}
