"""``-p llama-cpp`` on the schemas of the llama.cpp and agent reports: a ``maxLength: 65536``
nested in an array of objects (llama.cpp issue 26596), ``^\\d+$``, and an unanchored ``\\S``:
one error each, at the line of the keyword, with a hint; ``--fix`` rewrites the two patterns
and leaves the bound (lowering it would change the contract)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jsoncontract.lint.engine import Linter
from jsoncontract.lint.engines.schema import ANY
from jsoncontract.lint.fix import fix_source
from jsoncontract.lint.settings import build_settings
from jsoncontract.model import Severity

REPORTS = Path(__file__).parent / "reports" / "llama-cpp-reports.json"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_each_reported_schema_gives_one_error_at_its_line() -> None:
    text = REPORTS.read_text(encoding="utf-8")
    settings = build_settings(None, profiles=["ollama"])
    report = Linter(settings).lint_paths([REPORTS])
    errors = [f for f in report.findings if f.finding.severity is Severity.ERROR]
    by_tool = {f.finding.tool: f for f in errors}
    assert len(errors) == 3 and len(by_tool) == 3
    expected = {
        "write_report": ('"maxLength": 65536', "JC204"),
        "get_order": ('"pattern": "^\\\\d+$"', "JC203"),
        "send_message": ('"pattern": "\\\\S"', "JC203"),
    }
    for tool, (needle, code) in expected.items():
        finding = by_tool[tool]
        assert finding.finding.code == code
        assert finding.finding.source is not None
        assert finding.finding.source.line == line_of(text, needle)
        assert finding.finding.hint


def test_fix_rewrites_the_patterns_and_keeps_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    shutil.copy(REPORTS, path)
    linter = Linter(build_settings(None, profiles=["llama-cpp"], select=["engines"]))
    fixed = fix_source(linter, str(path), path.read_bytes())
    tools = {t["name"]: t["inputSchema"] for t in json.loads(fixed.after)["tools"]}
    assert tools["get_order"]["properties"]["id"]["pattern"] == "^[0-9]+$"
    anchored = tools["send_message"]["properties"]["text"]["pattern"]
    assert anchored.startswith("^" + ANY + "(?:[^") and anchored.endswith(")" + ANY + "$")
    body = tools["write_report"]["properties"]["sections"]["items"]["properties"]["body"]
    assert body["maxLength"] == 65536
    path.write_text(fixed.after, encoding="utf-8")
    left = linter.lint_paths([path])
    assert [f.finding.tool for f in left.findings] == ["write_report"]
