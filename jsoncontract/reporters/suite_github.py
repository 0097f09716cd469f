"""``test --format github``: GitHub Actions workflow commands.

Each case that did not pass becomes one ``::error`` annotation on the line of the suite
file where the case is written, titled with what happened and ``tool › case``; a contract
weakness is an error too (it fails the run). A last plain line (not a workflow command, as
``check`` writes) gives the totals. Built on the shared renderer
(:mod:`jsoncontract.reporters.github`), which escapes for the wire.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from jsoncontract.reporters.findings import portable_path
from jsoncontract.reporters.github import Annotation, render_github
from jsoncontract.reporters.suite_text import totals_counts, totals_head
from jsoncontract.suites.model import Status

if TYPE_CHECKING:
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.suites.model import TestReport


def write_test_github(report: TestReport, stream: IO[bytes], options: ReportOptions) -> None:
    """Write one annotation per case that did not pass, then a line with the totals."""
    annotations = []
    for outcome in report.outcomes:
        if outcome.ok:
            continue
        suite, case = outcome.suite, outcome.case
        kind = "contract weakness" if outcome.status is Status.WEAKNESS else "fixture failed"
        annotations.append(
            Annotation(
                "error",
                outcome.message + (f"\nhint: {outcome.hint}" if outcome.hint else ""),
                file=portable_path(suite.file),
                line=suite.line_of(case) if case is not None else None,
                title=f"{kind}: {suite.tool} › {outcome.name}",
            )
        )
    summary = report.summary
    totals = f"jsoncontract test: {totals_head(summary)}, {totals_counts(summary)}\n"
    stream.write((render_github(annotations) + totals).encode("utf-8"))
