"""Adding a report format: a toy format for ``check``, ``lint`` and ``test`` is one renderer
of a FindingSet plus one two-line class per command, and one line in each command's
table. The command line and the config schema offer it with nothing else changed."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract import check
from jsoncontract.lint.engine import Linter
from jsoncontract.lint.settings import build_settings
from jsoncontract.reporters import ReportOptions, render, reporter_class
from jsoncontract.reporters.check_ci import CheckFindingsReporter
from jsoncontract.reporters.lint_ci import LintFindingsReporter
from jsoncontract.reporters.suite_ci import TestFindingsReporter
from jsoncontract.suites.runner import SuiteRunner
from jsoncontract.tools import ToolSet

REPO = Path(__file__).resolve().parents[2]
#: The toy format's module, as a project adding a format would write it.
TOY_MODULE = '''
"""``--format tsv``: one line per finding, tab-separated, for ``cut`` and spreadsheets."""

from jsoncontract.reporters.check_ci import CheckFindingsReporter
from jsoncontract.reporters.findings import FindingSet
from jsoncontract.reporters.lint_ci import LintFindingsReporter
from jsoncontract.reporters.suite_ci import TestFindingsReporter


def render_tsv(found: FindingSet) -> bytes:
    """severity, code, rule name, file:line, message."""
    return "".join(
        f"{f.severity.value}\\t{f.code}\\t{found.rules[f.code].name}\\t{f.source or ''}\\t"
        f"{f.message.splitlines()[0]}\\n"
        for f in found.findings
    ).encode()


class TsvCheckReporter(CheckFindingsReporter):
    def render(self, found: FindingSet) -> bytes:
        return render_tsv(found)


class TsvLintReporter(LintFindingsReporter):
    def render(self, found: FindingSet) -> bytes:
        return render_tsv(found)


class TsvTestReporter(TestFindingsReporter):
    def render(self, found: FindingSet) -> bytes:
        return render_tsv(found)
'''
REGISTERED = {"check": "TsvCheckReporter", "lint": "TsvLintReporter", "test": "TsvTestReporter"}


@pytest.fixture
def toy_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy module importable, and the three tables listing it, for this test only."""
    from jsoncontract import reporters

    (tmp_path / "toy_tsv.py").write_text(TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toy_tsv", raising=False)
    for command, name in REGISTERED.items():
        table = {**reporters.REPORTERS[command], "tsv": f"toy_tsv:{name}"}
        monkeypatch.setitem(reporters.REPORTERS, command, table)


def _render(command: str, end: Any, results: Iterable[Any] = ()) -> list[list[str]]:
    stream = io.BytesIO()
    render(command, "tsv", stream, ReportOptions(), end, results)
    return [line.split("\t") for line in stream.getvalue().decode().splitlines()]


def test_the_toy_classes_are_the_command_adapters(toy_tables: None) -> None:
    for command, base in (
        ("check", CheckFindingsReporter),
        ("lint", LintFindingsReporter),
        ("test", TestFindingsReporter),
    ):
        assert reporter_class(command, "tsv").__mro__[1] is base
    assert reporter_class("check", "tsv").__module__ == "toy_tsv"


def test_a_check_report(toy_tables: None, in_repo: Path) -> None:
    report = check(["fixtures/captures"], tools=ToolSet.from_paths(["fixtures/tools"]))
    rows = _render("check", report.summary, report.results)
    findings = [f for r in report.results for f in r.findings]
    assert len(rows) == len(findings) == sum(report.summary.by_severity.values()) > 10
    first = findings[0]
    assert rows[0] == [
        first.severity.value,
        first.code,
        first.code.replace(".", "-").replace("_", "-"),
        str(first.source),
        first.message.splitlines()[0],
    ]


def test_a_lint_report(toy_tables: None, in_repo: Path) -> None:
    report = Linter(build_settings(None)).lint_paths(["fixtures/lint/weak-tools.json"])
    rows = _render("lint", report)
    assert len(rows) == len(report.findings) == 20
    assert rows[0][:2] == ["warning", "JC010"]
    assert rows[0][2:4] == [report.findings[0].rule, "fixtures/lint/weak-tools.json:4:7"]


def test_a_test_report(toy_tables: None, in_repo: Path) -> None:
    runner = SuiteRunner(ToolSet.from_paths(["fixtures/suites/weak/tools.json"]))
    report = runner.run_files([Path("fixtures/suites/weak/create_ticket.suite.json")])
    rows = _render("test", report)
    assert [row[:3] for row in rows] == [["error", "suite.accepted", "accepted"]] * 3
    assert rows[0][3] == "fixtures/suites/weak/create_ticket.suite.json:152"


def test_the_command_line_and_the_config_offer_it(tmp_path: Path) -> None:
    (tmp_path / "toy_tsv.py").write_text(TOY_MODULE)
    driver = tmp_path / "run.py"
    driver.write_text(
        textwrap.dedent(
            f"""
            import sys
            from jsoncontract import reporters
            for command, name in {REGISTERED!r}.items():
                reporters.REPORTERS[command]["tsv"] = "toy_tsv:" + name
            from jsoncontract.cli import main
            main(sys.argv[1:])
            """
        )
    )
    config = tmp_path / "jsoncontract.toml"
    config.write_text(f'tools = ["{REPO / "fixtures/tools"}"]\n[check]\nformat = "tsv"\n')

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(driver), *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(tmp_path), "PATH": "", "COLUMNS": "100"},
            check=False,
        )

    checked = run("check", "--config", str(config), "fixtures/captures/faults/schema-enum.json")
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.startswith("error\tschema.enum\tschema-enum\tfixtures/captures/faults/")
    linted = run("lint", "--no-config", "-f", "tsv", "fixtures/lint/weak-tools.json")
    assert linted.returncode == 0 and len(linted.stdout.splitlines()) == 20, linted.stderr
    tested = run(
        "test", "--no-config", "-f", "tsv", "--tools", "fixtures/suites/weak/tools.json",
        "fixtures/suites/weak",
    )  # fmt: skip
    assert tested.returncode == 1 and tested.stdout.count("suite.accepted") == 3
    helped = run("lint", "--help")
    assert "tsv" in helped.stdout
    refused = run("diff", "-f", "tsv", "a.json", "b.json")
    assert (
        refused.returncode == 2 and "'tsv' is not one of 'text', 'json', 'patch'" in refused.stderr
    )
