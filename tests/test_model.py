"""The canonical model: severity order and the worst of several severities."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jsoncontract.model import Finding, Severity, Source
from jsoncontract.reporters.junit import suites_from_findings


def test_severities_are_declared_worst_first_and_rank_follows() -> None:
    assert list(Severity) == [Severity.ERROR, Severity.WARNING, Severity.INFO]
    assert [s.rank for s in Severity] == [2, 1, 0]


@pytest.mark.parametrize(
    ("severities", "worst"),
    [
        ([], None),
        ([Severity.INFO], Severity.INFO),
        ([Severity.INFO, Severity.WARNING, Severity.INFO], Severity.WARNING),
        ([Severity.WARNING, Severity.ERROR, Severity.INFO], Severity.ERROR),
    ],
)
def test_worst(severities: list[Severity], worst: Severity | None) -> None:
    assert Severity.worst(severities) is worst
    assert Severity.worst(iter(severities)) is worst


def test_worst_stops_reading_at_the_first_error() -> None:
    read: list[Severity] = []

    def stream() -> Iterator[Severity]:
        for severity in (Severity.INFO, Severity.ERROR, Severity.WARNING):
            read.append(severity)
            yield severity

    assert Severity.worst(stream()) is Severity.ERROR
    assert read == [Severity.INFO, Severity.ERROR]


@pytest.mark.parametrize(
    ("fail_on", "failing"),
    [("info", 3), ("warning", 2), ("error", 1), ("never", 0)],
)
def test_junit_fails_the_cases_at_or_above_the_threshold(fail_on: str, failing: int) -> None:
    findings = [
        Finding(f"c.{s.value}", s, "m", "", tool=s.value, source=Source("f.json")) for s in Severity
    ]
    (suite,) = suites_from_findings(findings, fail_on=fail_on)
    assert sum(case.failure is not None for case in suite.cases) == failing
