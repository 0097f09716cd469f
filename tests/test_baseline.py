"""Baselines: a previous JSON report or SARIF log; only new findings count toward the exit
code; SARIF says each result's ``baselineState``; the fingerprint survives line moves."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from jsoncontract import check
from jsoncontract.baseline import Baseline
from jsoncontract.errors import InputError, UsageError
from jsoncontract.lint import lint
from jsoncontract.model import BaselineState, CheckReport
from jsoncontract.reporters import ReportOptions, reporter_class

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
WEAK = REPO / "fixtures" / "lint" / "weak-tools.json"


def rendered(command: str, fmt: str, end: Any, results: Any = (), root: Path | None = None) -> str:
    stream = io.BytesIO()
    options = ReportOptions(color=False, root=str(root) if root else None)
    reporter_class(command, fmt)(stream, options).write(end, results)
    return stream.getvalue().decode()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copy(WEAK, tmp_path / "tools.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_lint_only_new_findings_count(project: Path, fmt: str) -> None:
    before = lint(["tools.json"])
    assert before.worst() is not None
    (project / "baseline").write_text(rendered("lint", fmt, before))
    baseline = Baseline.load(project / "baseline", command="lint")
    assert baseline.command == "lint" and len(baseline) == len(before.findings)
    # the same findings, moved down two lines and reworded: still the baseline's
    text = (project / "tools.json").read_text()
    (project / "tools.json").write_text("\n\n" + text)
    again = lint(["tools.json"], baseline=baseline)
    assert {item.baseline for item in again.findings} == {BaselineState.UNCHANGED}
    assert again.worst() is None
    assert again.summary()["baseline"] == {"new": 0, "unchanged": len(before.findings)}
    # one new open object: only it is new, and it alone decides the exit code
    tools = json.loads(text)
    tools["tools"][0]["inputSchema"]["properties"]["extra"] = {"type": "object"}
    (project / "tools.json").write_text(json.dumps(tools, indent=2))
    changed = lint(["tools.json"], baseline=baseline)
    new = [item for item in changed.findings if item.baseline is BaselineState.NEW]
    assert new and all("/extra" in item.path for item in new)
    assert changed.worst() is not None
    sarif = json.loads(rendered("lint", "sarif", changed))
    states = [r["baselineState"] for r in sarif["runs"][0]["results"]]
    assert states.count("new") == len(new) and states.count("unchanged") == len(before.findings)
    report = json.loads(rendered("lint", "json", changed))
    assert {f["baseline"] for f in report["findings"]} == {"new", "unchanged"}


def test_a_finding_held_once_absorbs_one_occurrence(project: Path) -> None:
    report = lint(["tools.json"])
    item = report.findings[0]
    baseline = Baseline.of([item.finding])
    matcher = baseline.matcher()
    assert matcher.state(item.finding) is BaselineState.UNCHANGED
    assert matcher.state(item.finding) is BaselineState.NEW


@pytest.fixture
def captures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copytree(REPO / "fixtures" / "tools", tmp_path / "tools")
    shutil.copy(REPO / "fixtures" / "captures" / "trace.jsonl", tmp_path / "trace.jsonl")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif"])
def test_check_compares_with_a_json_jsonl_or_sarif_report(captures: Path, fmt: str) -> None:
    first = check(["trace.jsonl"], tools=["tools"])
    assert first.summary.worst() is not None
    (captures / "baseline").write_text(rendered("check", fmt, first.summary, first.results))
    baseline = Baseline.load(captures / "baseline", command="check")
    again = check(["trace.jsonl"], tools=["tools"], baseline=baseline)
    assert again.summary.worst(new=True) is None
    assert again.summary.worst() is first.summary.worst()
    held = sum(len(r.findings) for r in first.results)
    assert again.summary.to_dict()["baseline"] == {"new": 0, "unchanged": held}
    # a new broken call appended to the trace is the only new finding
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 999,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": ""}},
        }
    )
    with (captures / "trace.jsonl").open("a") as stream:
        stream.write(line + "\n")
    third = check(["trace.jsonl"], tools=["tools"], baseline=baseline)
    new = [f for r in third.results for f in r.findings if f.baseline is BaselineState.NEW]
    assert [f.code for f in new] == ["schema.minLength"]
    run = [f.code for f in third.summary.findings if f.baseline is BaselineState.NEW]
    assert run == ["session.missing_result"]  # the new call got no answer, either
    assert third.summary.worst(new=True) is not None
    sarif = json.loads(rendered("check", "sarif", third.summary, third.results))
    states = [r["baselineState"] for r in sarif["runs"][0]["results"]]
    assert states.count("new") == 2


def test_sarif_baselines_work_from_anywhere_in_the_project(
    captures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = check(["trace.jsonl"], tools=["tools"])
    (captures / "baseline.sarif").write_text(
        rendered("check", "sarif", first.summary, first.results)
    )
    (captures / "sub").mkdir()
    monkeypatch.chdir(captures / "sub")
    baseline = Baseline.load("../baseline.sarif")
    again = check(["../trace.jsonl"], tools=["../tools"], baseline=baseline)
    assert again.summary.worst(new=True) is None


def test_test_reports_compare_too(in_repo: Path, tmp_path: Path) -> None:
    from jsoncontract.suites.format import find_suite_files
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.tools.toolset import ToolSet

    def run() -> Any:
        tools = ToolSet.from_paths(["fixtures/suites/weak/tools.json"])
        files = find_suite_files(["fixtures/suites/weak"])
        return SuiteRunner(tools).run_files(files)

    first = run()
    assert first.new_failures == 3
    for fmt in ("json", "sarif"):
        path = tmp_path / f"baseline-{fmt}"
        path.write_text(rendered("test", fmt, first))
        baseline = Baseline.load(path, command="test")
        again = run()
        again.mark_baseline(baseline)
        assert again.new_failures == 0
        assert {o.baseline for o in again.outcomes if not o.ok} == {BaselineState.UNCHANGED}
        assert json.loads(rendered("test", "json", again))["results"][-1]["baseline"]


def test_a_report_of_another_command_is_refused(project: Path) -> None:
    (project / "lint.json").write_text(rendered("lint", "json", lint(["tools.json"])))
    with pytest.raises(UsageError, match="is a lint report; check compares with a check report"):
        Baseline.load("lint.json", command="check")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"hello": 1}', "not a jsoncontract report"),
        ("not json\nat all", "line 1 is not JSON"),
        (
            '{"runs": [{"results": [{"ruleId": "x", "message": {"text": "m"}}]}]}',
            "without a jsoncontract fingerprint",
        ),
    ],
)
def test_what_is_no_report_is_refused(project: Path, content: str, message: str) -> None:
    (project / "b.json").write_text(content)
    with pytest.raises(InputError, match=message):
        Baseline.load("b.json")


def test_a_sarif_baseline_cut_to_the_limit_says_so(project: Path) -> None:
    from jsoncontract.reporters.sarif import render_sarif

    report = lint(["tools.json"])
    findings = [item.finding for item in report.findings]
    text = render_sarif(findings, {}, command="lint", max_results=3)
    (project / "cut.sarif").write_text(text)
    baseline = Baseline.load("cut.sarif")
    assert len(baseline) == 2
    assert baseline.notes and "cut to GitHub's limit" in baseline.notes[0]


def test_check_report_has_no_baseline_member_without_one(in_repo: Path) -> None:
    report: CheckReport = check(["fixtures/captures/trace.jsonl"], tools=["fixtures/tools"])
    assert "baseline" not in report.summary.to_dict()
    assert all("baseline" not in f.to_dict() for r in report.results for f in r.findings)


def test_the_command_line_fails_only_on_new_findings(
    project: Path, run_cli: Any, tmp_path: Path
) -> None:
    assert run_cli("lint", "--no-config", "tools.json", "-f", "sarif", "-o", "base.sarif").code == 0
    strict = ("--fail-on", "warning")
    assert run_cli("lint", "--no-config", "tools.json", *strict).code == 1
    held = run_cli("lint", "--no-config", "tools.json", *strict, "--baseline", "base.sarif")
    assert held.code == 0, held.stdout
    assert "20 in the baseline (they do not fail the run)" in held.stdout
    assert "(in the baseline)" in held.stdout
    tools = json.loads((project / "tools.json").read_text())
    tools["tools"][0]["inputSchema"]["properties"]["extra"] = {"type": "object"}
    (project / "tools.json").write_text(json.dumps(tools))
    new = run_cli("lint", "--no-config", "tools.json", *strict, "--baseline", "base.sarif")
    assert new.code == 1
    wrong = run_cli(
        "check", "--no-config", "-t", "tools.json", "tools.json", "--baseline", "base.sarif"
    )
    assert wrong.code == 2 and "is a lint report; check compares with a check report" in (
        wrong.stderr
    )


def test_check_and_test_take_a_baseline(run_cli: Any, in_repo: Path, tmp_path: Path) -> None:
    base = str(tmp_path / "check.json")
    check_args = ("check", "--no-config", "-t", "fixtures/tools", "fixtures/captures/trace.jsonl")
    assert run_cli(*check_args, "-f", "json", "-o", base).code == 1
    held = run_cli(*check_args, "--baseline", base)
    assert held.code == 0, held.stdout
    assert "in the baseline (they do not fail the run)" in held.stdout
    suites = (
        "test",
        "--no-config",
        "-t",
        "fixtures/suites/weak/tools.json",
        "fixtures/suites/weak",
    )
    report = str(tmp_path / "test.json")
    assert run_cli(*suites, "-f", "json", "-o", report).code == 1
    assert run_cli(*suites, "--baseline", report).code == 0


def test_a_baseline_never_makes_the_run_look_at_a_path(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect 18: the files a baseline's findings name were each looked up on disk (lstat),
    so a baseline chose paths for the run to touch."""
    import os

    lure = str(tmp_path / "lure" / "secret-place.json")
    finding = {"code": "schema.enum", "severity": "error", "message": "", "path": "/x"}
    report = {
        "version": 1,
        "summary": {"calls": 1},
        "results": [{"ok": False, "findings": [dict(finding, source={"file": lure})]}],
        "findings": [dict(finding, source={"file": "../../lure/other.json"})],
    }
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(report))
    looked: list[str] = []
    real = os.path.lexists

    def watched(path: Any) -> bool:
        looked.append(str(path))
        return real(path)

    monkeypatch.setattr(os.path, "lexists", watched)
    capture = FIXTURES / "captures" / "faults" / "schema-enum.json"
    result = run_cli(
        "check",
        "--no-config",
        "-t",
        str(FIXTURES / "tools"),
        str(capture),
        "--baseline",
        str(baseline),
    )
    assert result.code == 1, result.stderr
    assert not [p for p in looked if "lure" in p], looked


def test_a_suppressed_sarif_result_is_not_in_the_baseline(tmp_path: Path) -> None:
    """A SARIF baseline result that carries ``suppressions`` (silenced, not accepted) does
    not make the same finding of a new run unchanged."""
    from jsoncontract.project import fingerprint

    capture = FIXTURES / "captures" / "faults" / "schema-enum.json"
    report = check([capture], tools=[FIXTURES / "tools"])
    (finding,) = report.results[0].findings
    key = fingerprint(finding, lexical=True)
    result = {"ruleId": finding.code, "partialFingerprints": {"jsoncontract/v1": key}}
    for suppressed, state in ((True, BaselineState.NEW), (False, BaselineState.UNCHANGED)):
        entry = dict(result, suppressions=[{"kind": "inSource"}]) if suppressed else result
        log = {"version": "2.1.0", "runs": [{"automationDetails": {"id": "jsoncontract/check/"},
                                            "results": [entry]}]}  # fmt: skip
        path = tmp_path / "baseline.sarif"
        path.write_text(json.dumps(log))
        matcher = Baseline.load(path).matcher()
        assert matcher.state(finding) is state, suppressed
