"""``--format markdown`` for check, lint, test and diff, and the summary GitHub Actions
collects from ``GITHUB_STEP_SUMMARY``: golden files, escaping, GitHub's 1 MiB per step."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.reporters import ReportOptions, reporter_class
from jsoncontract.reporters.markdown import MarkdownDoc, md
from tests.conftest import BUNDLED

RUNS = BUNDLED


@pytest.mark.parametrize("command", list(RUNS))
def test_markdown_golden(
    command: str, run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli(*RUNS[command], "--format", "markdown")
    assert result.code == (0 if command == "lint" else 1), result.stderr  # lint: warnings
    assert result.stdout.startswith(f"## jsoncontract {command}: ")
    golden(f"markdown/{command}.md", result.stdout)


def test_what_a_capture_says_cannot_become_markdown() -> None:
    hostile = "a | b [click](https://example.com) ![x](y) <img src=x> `code` **bold** &amp;\nnext"
    text = md(hostile)
    assert "\n" not in text
    assert "|" not in text.replace("\\|", "")
    for mark in ("[", "]", "<", ">", "`", "*"):
        assert mark not in text.replace("\\" + mark, "")
    assert "&amp;amp;" in text


def test_check_markdown_escapes_capture_text(tmp_path: Path, in_repo: Path) -> None:
    from jsoncontract import check

    capture = tmp_path / "hostile.json"
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "read_file|<b>x</b>", "arguments": {"path": "a"}},
    }
    capture.write_text(json.dumps(call))
    report = check([str(capture)], tools=["fixtures/tools"])
    stream = io.BytesIO()
    reporter_class("check", "markdown")(stream, ReportOptions()).write(
        report.summary, report.results
    )
    text = stream.getvalue().decode()
    assert "read\\_file\\|\\<b\\>x\\</b\\>" in text
    assert "<b>" not in text


def test_a_document_is_cut_at_a_whole_part() -> None:
    doc = MarkdownDoc(budget=400)
    assert doc.add("# title\n")
    added = 0
    while doc.add("| a row that takes some room in the summary |\n"):
        added += 1
    assert 0 < added < 10 and doc.cut
    out = io.BytesIO()
    doc.write(out)
    text = out.getvalue().decode()
    assert len(text.encode()) <= 400
    assert text.endswith("`--format json` lists everything._\n")


def test_step_summary_is_appended_whatever_the_format(
    run_cli: Callable[..., Any],
    in_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("## an earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli(*RUNS["lint"], "--format", "sarif")
    assert result.code == 0
    assert json.loads(result.stdout)["version"] == "2.1.0"  # the report asked for, unchanged
    result = run_cli(*RUNS["check"], "--format", "json", "-o", str(tmp_path / "r.json"))
    assert result.code == 1
    text = summary.read_text()
    assert text.startswith("## an earlier step\n## jsoncontract lint: ")
    assert "\n## jsoncontract check: ❌ 33 of 62 calls failed\n" in text


def test_step_summary_stays_within_a_mebibyte(
    run_cli: Callable[..., Any],
    in_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_bytes(b"x" * (1024 * 1024 - 6000))  # what earlier commands left room for
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run_cli(*RUNS["check"], "--max-shown", "0", "-q").code == 1
    assert summary.stat().st_size <= 1024 * 1024
    assert summary.read_text().endswith("`--format json` lists everything._\n")
    summary.write_bytes(b"x" * (1024 * 1024 - 100))
    result = run_cli(*RUNS["check"], "-q")
    assert "GITHUB_STEP_SUMMARY is full" in result.stderr
    assert summary.stat().st_size == 1024 * 1024 - 100
