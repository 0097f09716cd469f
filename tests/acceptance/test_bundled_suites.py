"""The bundled suites: the example passes, the weak tool shows its weaknesses, and the
committed files are what the generator writes today."""

from __future__ import annotations

from pathlib import Path

from jsoncontract.suites import CaseKind, Status, generate_suites, run_suites
from jsoncontract.tools import ToolSet

REPO = Path(__file__).resolve().parents[2]
SUITES = REPO / "fixtures" / "suites"


def test_example_suites_pass() -> None:
    tools = ToolSet.from_paths([REPO / "fixtures" / "tools"])
    report = run_suites([SUITES / "example"], tools=tools)
    assert report.ok, [o.message for o in report.outcomes if not o.ok]
    assert sorted(report.summary.by_tool) == [
        "get_weather",
        "read_file",
        "searchInvoices",
        "update_shipment",
    ]


def test_example_suites_hold_every_kind() -> None:
    tools = ToolSet.from_paths([REPO / "fixtures" / "tools"])
    report = run_suites([SUITES / "example"], tools=tools)
    kinds = {tag for o in report.outcomes if o.case is not None for tag in o.case.tags}
    derived = {k.value for k in CaseKind} - {CaseKind.BUSINESS.value}
    assert derived <= kinds
    names = {o.name for o in report.outcomes}
    assert "missing-field:/address/line1" in names  # at depth
    assert "extra-field:/declared_value" in names


def test_weak_tool_shows_its_weaknesses() -> None:
    tools = ToolSet.from_paths([SUITES / "weak" / "tools.json"])
    report = run_suites([SUITES / "weak"], tools=tools)
    weak = {o.name for o in report.outcomes if o.status is Status.WEAKNESS}
    assert weak == {"extra-field", "extra-field:/metadata", "priority outside the closed set"}
    assert report.summary.failed == 0


def test_committed_suites_are_up_to_date() -> None:
    for tools, directory in (
        (REPO / "fixtures" / "tools", SUITES / "example"),
        (SUITES / "weak" / "tools.json", SUITES / "weak"),
    ):
        report = generate_suites(ToolSet.from_paths([tools]), directory, check=True)
        stale = {
            t.tool: t.added + t.updated + t.stale for t in report.tools if t.changed or t.stale
        }
        assert not stale, f"regenerate with jsoncontract fixtures: {stale}"
