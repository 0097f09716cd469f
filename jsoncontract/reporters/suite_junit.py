"""``test --format junit``: JUnit XML for CI test reports.

One ``<testsuite>`` per suite file (named after its tool), one ``<testcase>`` per case
(``classname`` the tool, ``name`` the case, ``file`` and ``line`` where it is written). A
failed case has a ``<failure>`` whose ``type`` is the mismatch kind (``accepted`` for a
contract weakness), a suite whose tool is gone one ``<error>``, a skipped case
``<skipped>``. Characters XML 1.0 cannot carry are written as ``\\xNN``.
"""

from __future__ import annotations

import re
from typing import IO, TYPE_CHECKING, Final
from xml.sax.saxutils import escape, quoteattr

from jsoncontract.suites.model import Status, group_by_suite

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.suites.model import CaseOutcome, TestReport

_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _attr(text: str) -> str:
    return quoteattr(_clean(text))


def _body(outcome: CaseOutcome) -> str:
    lines = [f"expected: {outcome.case.expect.describe()}"] if outcome.case is not None else []
    if outcome.actual is not None:
        lines.append(f"actual: {outcome.actual.describe()}")
        lines.extend(
            f"  {f.code} at {f.path or '/'}: {f.message}" for f in outcome.actual.errors[1:]
        )
    if outcome.hint:
        lines.append(f"hint: {outcome.hint}")
    return escape(_clean("\n".join(lines)))


def _testcase(outcome: CaseOutcome) -> str:
    suite, case = outcome.suite, outcome.case
    attrs = f"name={_attr(outcome.name)} classname={_attr(suite.tool)} file={_attr(suite.file)}"
    if case is not None:
        line = suite.line_of(case)
        if line is not None:
            attrs += f' line="{line}"'
    attrs += f' time="{outcome.seconds:.6f}"'
    status = outcome.status
    if status is Status.PASSED:
        return f"    <testcase {attrs}/>\n"
    if status is Status.SKIPPED:
        inner = f"<skipped message={_attr(outcome.message)}/>"
    else:
        tag = "error" if status is Status.ERROR else "failure"
        kind = outcome.mismatch.value if outcome.mismatch is not None else status.value
        inner = (
            f"<{tag} type={_attr(kind)} message={_attr(outcome.message)}>{_body(outcome)}</{tag}>"
        )
    return f"    <testcase {attrs}>\n      {inner}\n    </testcase>\n"


def write_test_junit(report: TestReport, stream: IO[bytes], options: ReportOptions) -> None:
    """Write the JUnit XML report."""
    groups = group_by_suite(report.outcomes)
    summary = report.summary
    total_time = sum(o.seconds for o in report.outcomes)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        f'<testsuites name="jsoncontract test" tests="{summary.cases + summary.errors}" '
        f'failures="{summary.failed + summary.weaknesses}" errors="{summary.errors}" '
        f'skipped="{summary.skipped}" time="{total_time:.6f}">\n',
    ]
    for suite, outcomes in groups:
        failures = sum(1 for o in outcomes if o.status in (Status.FAILED, Status.WEAKNESS))
        errors = sum(1 for o in outcomes if o.status is Status.ERROR)
        skipped = sum(1 for o in outcomes if o.status is Status.SKIPPED)
        seconds = sum(o.seconds for o in outcomes)
        parts.append(
            f'  <testsuite name={_attr(suite.tool)} tests="{len(outcomes)}" '
            f'failures="{failures}" errors="{errors}" skipped="{skipped}" '
            f'time="{seconds:.6f}" file={_attr(suite.file)}>\n'
        )
        parts.extend(_testcase(o) for o in outcomes)
        parts.append("  </testsuite>\n")
    parts.append("</testsuites>\n")
    stream.write("".join(parts).encode("utf-8"))
