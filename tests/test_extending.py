"""``docs/extending.md`` does what it says: the toy dialect and the toy format it shows are
added to temporary copies of the tables and read captures, tool definitions and reports
through them; every file, table and helper it names exists."""

from __future__ import annotations

import importlib
import io
import re
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from jsoncontract.capture.registry import DIALECTS
from jsoncontract.model import Hop, SchemaLocation
from jsoncontract.reporters import render

REPO = Path(__file__).resolve().parents[1]
PAGE = (REPO / "docs" / "extending.md").read_text(encoding="utf-8")


def python_blocks() -> list[str]:
    """The page's Python code blocks, in order, dedented."""
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", PAGE, re.DOTALL)]


def section(title: str) -> str:
    start = PAGE.index(f"\n## {title}\n")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start : end if end != -1 else len(PAGE)]


def load_module(
    name: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> ModuleType:
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


def test_every_file_the_page_names_exists() -> None:
    named = set(re.findall(r"`((?:jsoncontract|tests|docs|fixtures)/[\w./<>-]+)`", PAGE))
    assert len(named) > 20
    missing = [p for p in sorted(named) if "<" not in p and not (REPO / p).exists()]
    assert missing == []


def test_each_addition_takes_at_most_three_source_files() -> None:
    for title in ("Adding a capture dialect", "Adding a report format", "Adding a lint rule",
                  "Adding a fixture kind", "Adding a finding code"):  # fmt: skip
        steps = re.findall(r"^\d\. \*\*`(jsoncontract/[^`]+)`\*\*", section(title), re.M)
        one_file = re.findall(r"declared once in \*\*`(jsoncontract/[^`]+)`\*\*", section(title))
        assert 1 <= len(steps) + len(one_file) <= 3, title


# -- the dialect ---------------------------------------------------------------------------

ACME_TOOLS = {
    "tools": [
        {
            "kind": "acme-tool",
            "spec": {
                "name": "ship",
                "description": "Ship an order.",
                "takes": {
                    "type": "object",
                    "properties": {"order": {"type": "string"}, "speed": {"enum": ["slow"]}},
                    "required": ["order"],
                    "additionalProperties": False,
                },
                "gives": {"type": "object"},
            },
        }
    ]
}
ACME_LOG = [
    {"acme": 1, "invocations": [{"ref": "a1", "tool": "ship", "input": {"order": "A1"}}]},
    {"ref": "a2", "tool": "ship", "input": {"order": "A2", "speed": "fast"}},
    {"acme": 1, "invocations": [{"ref": "a3", "input": {}}]},
]


def test_the_dialect_of_the_page_reads_captures_and_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, usage, *_ = python_blocks()
    acme = load_module("acme", module, tmp_path, monkeypatch)
    (tmp_path / "acme-tools.json").write_bytes(orjson.dumps(ACME_TOOLS))
    (tmp_path / "acme-log.jsonl").write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in ACME_LOG))
    monkeypatch.chdir(tmp_path)
    scope: dict[str, Any] = {"acme": acme}
    exec(usage, scope)  # the page's own lines: a registry with the dialect, and check
    report = scope["report"]
    got = [(r.call.call_id, r.call.dialect, r.call.hop, r.stage) for r in report.results]
    assert got == [
        ("a1", "acme", Hop.MODEL, None),
        ("a2", "acme", Hop.MODEL, "schema"),
        ("a3", "acme", Hop.MODEL, "envelope"),
    ]
    codes = [[f.code for f in r.findings] for r in report.results]
    assert codes == [[], ["schema.enum"], ["envelope.malformed"]]
    assert "acme" not in DIALECTS  # the built-in registry is left as it was

    from jsoncontract.tools import load_tool_file

    (tool,) = load_tool_file("acme-tools.json", dialects=scope["registry"])
    assert (tool.name, tool.dialect, tool.description) == ("ship", "acme", "Ship an order.")
    assert tool.input_location == SchemaLocation("/tools/0/spec/takes")
    assert tool.output_location == SchemaLocation("/tools/0/spec/gives")


# -- the format ----------------------------------------------------------------------------


def test_the_format_of_the_page_is_the_one_the_format_tests_add() -> None:
    from tests.reporters.test_adding_a_format import TOY_MODULE

    page = python_blocks()[2]
    toy = TOY_MODULE.split('"""', 2)[2]  # without the module docstring
    assert page.strip() == toy.strip()


def test_the_format_of_the_page_renders_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_repo: Path
) -> None:
    from jsoncontract import check, reporters
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.settings import build_settings
    from jsoncontract.reporters import ReportOptions
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.tools import ToolSet

    load_module("page_tsv", python_blocks()[2], tmp_path, monkeypatch)
    classes = {"check": "TsvCheckReporter", "lint": "TsvLintReporter", "test": "TsvTestReporter"}
    for command, name in classes.items():  # step 2: one line in each table
        table = {**reporters.REPORTERS[command], "tsv": f"page_tsv:{name}"}
        monkeypatch.setitem(reporters.REPORTERS, command, table)

    def rows(command: str, *end: object) -> list[list[str]]:
        stream = io.BytesIO()
        render(command, "tsv", stream, ReportOptions(), *end)
        return [line.split("\t") for line in stream.getvalue().decode().splitlines()]

    checked = check(["fixtures/captures/faults"], tools=ToolSet.from_paths(["fixtures/tools"]))
    findings = [f for r in checked.results for f in r.findings]
    assert [r[1] for r in rows("check", checked.summary, checked.results)] == [
        f.code for f in findings
    ]
    linted = Linter(build_settings(None)).lint_paths(["fixtures/lint/weak-tools.json"])
    assert len(rows("lint", linted)) == len(linted.findings) == 20
    runner = SuiteRunner(ToolSet.from_paths(["fixtures/suites/weak/tools.json"]))
    tested = runner.run_files([Path("fixtures/suites/weak/create_ticket.suite.json")])
    assert [r[:2] for r in rows("test", tested)] == [["error", "suite.accepted"]] * 3


# -- the other sections name what exists --------------------------------------------------


def test_the_lint_rule_section_names_what_exists() -> None:
    from jsoncontract.lint import codes, rule
    from jsoncontract.lint.rules import descriptions

    text = section("Adding a lint rule")
    for name in ("NodeRule", "ToolRule", "FileRule", "RunRule", "Issue", "Fix", "Family", "ALL"):
        assert f"`{name}`" in text and hasattr(rule, name), name
    assert hasattr(descriptions, "ToolDescriptionMissing") and hasattr(codes, "REDIRECTS")
    assert "`RULES`" in text and codes.RULES


def test_the_fixture_kind_section_names_what_exists() -> None:
    from jsoncontract.suites import derive, kinds

    text = section("Adding a fixture kind")
    for name in ("MAKERS", "each_node", "Draft", "Skip", "Expectation"):
        assert f"`{name}" in text and hasattr(derive, name), name
    assert "`CaseKind`" in text and "`DERIVED_KINDS`" in text and kinds.DERIVED_KINDS


def test_the_command_section_names_what_exists() -> None:
    from jsoncontract.cli import app, options
    from jsoncontract.pipeline import settings

    text = section("Adding a command")
    assert "`COMMAND_MODULES`" in text and app.COMMAND_MODULES
    for name in ("business_gate", "write_report", "exit_code"):
        assert f"cli.options.{name}" in text and hasattr(options, name), name
    assert hasattr(settings, "check_settings")
