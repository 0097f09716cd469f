"""Every bundled capture produces exactly the calls and findings listed in its expectations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsoncontract import check
from jsoncontract.tools import ToolSet

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "fixtures" / "captures"
EXPECTED: dict[str, list[dict[str, Any]]] = json.loads(
    (REPO / "tests" / "golden" / "captures-expected.json").read_text()
)["files"]


@pytest.fixture(scope="module")
def tools() -> ToolSet:
    return ToolSet.from_paths([REPO / "fixtures" / "tools"])


def test_every_capture_file_has_expectations() -> None:
    on_disk = {p.relative_to(CAPTURES).as_posix() for p in CAPTURES.rglob("*") if p.is_file()}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_capture(name: str, tools: ToolSet) -> None:
    report = check([CAPTURES / name], tools=tools)
    got = []
    for result in report.results:
        entry: dict[str, Any] = {
            "tool": result.call.tool,
            "hop": result.call.hop.value if result.call.hop else None,
            "call_id": result.call.call_id,
            "ok": result.ok,
        }
        if not result.ok:
            errors = [f for f in result.findings if f.severity.value == "error"]
            entry["stage"] = result.stage.value if result.stage else None
            entry["codes"] = [f.code for f in errors]
            entry["paths"] = [f.path for f in errors]
        got.append(entry)
    expected = [{k: v for k, v in e.items() if k != "line"} for e in EXPECTED[name]]
    assert got == expected
    lines = [e.get("line") for e in EXPECTED[name]]
    if any(line is not None for line in lines):
        assert [r.call.source.line for r in report.results] == lines
