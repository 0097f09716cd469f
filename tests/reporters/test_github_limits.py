"""GitHub's limits: 30,000 failing calls give one SARIF run of at most 25,000 results (the
last a notice saying how many were left out) and no more annotations than a step shows."""

from __future__ import annotations

import io
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import Finding, Severity, Source
from jsoncontract.reporters.github import Annotation, AnnotationWriter
from jsoncontract.reporters.sarif import LEFT_OUT, render_sarif

CALLS = 30_000
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def huge_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose trace holds 30,000 MCP calls of read_file, each with an encoding
    outside its enum; every tenth also has an unknown member (two errors), and every
    hundredth a wrong type."""
    root = tmp_path_factory.mktemp("huge")
    (root / ".git").mkdir()
    shutil.copytree(REPO / "fixtures" / "tools", root / "tools")
    path = root / "trace.jsonl"
    lines = []
    for i in range(CALLS):
        arguments: dict[str, Any] = {"path": f"docs/{i}.md", "encoding": "latin-1"}
        if i % 10 == 0:
            arguments["mode"] = "fast"
        if i % 100 == 0:
            arguments["max_bytes"] = "many"
        call = {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": arguments},
        }
        lines.append(json.dumps(call))
    path.write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture
def huge_trace(huge_project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(huge_project)
    return huge_project / "trace.jsonl"


@pytest.mark.slow
def test_sarif_of_30000_failing_calls_is_cut_to_githubs_limit(
    huge_trace: Path, run_cli: Callable[..., Any], github_sarif: Callable[..., dict[str, Any]]
) -> None:
    result = run_cli("check", "--no-config", "-t", "tools", "trace.jsonl", "-f", "sarif")
    assert result.code == 1, result.stderr
    started = time.perf_counter()
    log = github_sarif(result.stdout_bytes)
    assert time.perf_counter() - started < 120
    run = log["runs"][0]
    results = run["results"]
    assert len(results) == 25_000
    notice = results[-1]
    assert notice["ruleId"] == LEFT_OUT and notice["level"] == "note"
    found = CALLS + CALLS // 10 + CALLS // 100
    assert notice["message"]["text"].startswith(f"{found - 24_999:,} more results were left out")
    assert "--format json" in notice["message"]["text"]
    assert "region" in notice["locations"][0]["physicalLocation"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["message"]["text"] == notice["message"]["text"]
    kept = [r["ruleId"] for r in results[:-1]]
    assert "schema.type" in kept and "schema.additionalProperties" in kept
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results[:-1]]
    assert lines == sorted(lines)  # in report order


def test_annotations_of_30000_failing_calls_stay_within_a_step(
    huge_trace: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli("check", "--no-config", "-t", "tools", "trace.jsonl", "-f", "github")
    assert result.code == 1
    lines = result.stdout.splitlines()
    commands = [line for line in lines if line.startswith("::")]
    assert len([c for c in commands if c.startswith("::error ")]) == 10
    assert commands[-1].startswith("::notice title=jsoncontract check::")
    found = CALLS + CALLS // 10 + CALLS // 100
    assert f"{found - 10:,} more findings are not annotated" in commands[-1]
    plain = [line for line in lines if not line.startswith("::")]
    assert len(plain) == 50 + 1  # --max-shown lines, then the totals
    assert plain[0].startswith("trace.jsonl:")
    assert plain[0].endswith(
        ': error schema.enum: [read_file] "latin-1" is not one of "utf-8", "base64" '
        "| hint: use one of the listed values"
    )
    assert plain[-1] == f"jsoncontract check: {CALLS} calls in 1 file, 0 ok, {CALLS} failed"


def test_the_most_severe_results_are_kept_in_report_order() -> None:
    findings = [
        Finding(
            f"c{i}",
            Severity.INFO if i % 3 else Severity.ERROR,
            f"m{i}",
            source=Source("a.json", i + 1),
        )
        for i in range(12)
    ]
    log = json.loads(render_sarif(findings, {}, root="/p", command="lint", max_results=5))
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["c0", "c3", "c6", "c9", LEFT_OUT]
    assert results[-1]["message"]["text"].startswith("8 more results were left out")
    assert results[-1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2}


def test_a_report_within_the_limit_has_no_notice() -> None:
    findings = [Finding("c", Severity.ERROR, "m", source=Source("a.json", 1))] * 5
    log = json.loads(render_sarif(findings, {}, root="/p", max_results=5))
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["c"] * 5
    assert "toolExecutionNotifications" not in log["runs"][0]["invocations"][0]


def test_annotation_writer_keeps_a_notice_for_the_last_word() -> None:
    out = io.BytesIO()
    writer = AnnotationWriter(out, command="lint", max_shown=2)
    writer.write(
        Annotation(level, "m", file="a.json", line=1)
        for level in ["notice"] * 12 + ["warning"] * 11
    )
    writer.close()
    lines = out.getvalue().decode().splitlines()
    assert sum(line.startswith("::notice ") for line in lines) == 10  # 9 + the last word
    assert sum(line.startswith("::warning ") for line in lines) == 10
    assert lines[-1].startswith("::notice title=jsoncontract lint::4 more findings")
    assert "2 of them are listed above as plain lines; 2 are not shown" in lines[-1]
    assert [line for line in lines if not line.startswith("::")] == [
        "a.json:1: notice: m",
        "a.json:1: notice: m",
    ]
