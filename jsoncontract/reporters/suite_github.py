"""``test --format github``: GitHub Actions workflow commands.

Each case that did not pass becomes one ``::error`` annotation on the line of the suite
file where the case is written, titled ``tool › case``; a contract weakness is an error
too (it fails the run). A last ``::notice`` gives the totals. Messages are one line on the
wire: ``%``, CR and LF are escaped, and ``,`` and ``:`` as well inside properties.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from jsoncontract.suites.model import Status

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.suites.model import TestReport


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def write_test_github(report: TestReport, stream: IO[bytes], options: ReportOptions) -> None:
    """Write one annotation per case that did not pass, then the totals."""
    lines = []
    for outcome in report.outcomes:
        if outcome.status in (Status.PASSED, Status.SKIPPED):
            continue
        suite, case = outcome.suite, outcome.case
        props = [f"file={_property(suite.file)}"]
        if case is not None:
            line = suite.line_of(case)
            if line is not None:
                props.append(f"line={line}")
        kind = "contract weakness" if outcome.status is Status.WEAKNESS else "fixture failed"
        props.append(f"title={_property(f'{kind}: {suite.tool} › {outcome.name}')}")
        text = outcome.message + (f"\nhint: {outcome.hint}" if outcome.hint else "")
        lines.append(f"::error {','.join(props)}::{_data(text)}")
    s = report.summary
    lines.append(
        f"::notice title=jsoncontract test::{s.cases} cases in {s.suites} suites: {s.passed} "
        f"passed, {s.failed} failed, {s.weaknesses} weaknesses, {s.skipped} skipped, "
        f"{s.errors} suite errors"
    )
    stream.write(("\n".join(lines) + "\n").encode("utf-8"))
