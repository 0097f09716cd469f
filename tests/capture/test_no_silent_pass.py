"""A capture that holds nothing is never a silent "0 calls": an empty JSON Lines file is
exit 2, random bytes named .sse are exit 2, a stream of nothing but [DONE] is a warning,
and a run that read no call fails with ``input.no_calls`` (``--allow-empty`` lets it pass),
on every path: one process, workers, the library, ``diff --trace``, the pytest plugin. A
document that looks like LLM traffic no dialect reads is ``envelope.not_read``, wherever it
sits. And a line that is not JSON is quoted without the secret it may hold."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]
CHECK = ["check", "--no-config", "--tools", "fixtures/tools"]


@pytest.mark.parametrize("content", [b"", b"  \n\n \t\n"])
def test_an_empty_jsonl_file_is_exit_2(
    run_cli: Run, in_repo: Path, tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(content)
    result = run_cli(*CHECK, str(path))
    assert result.code == 2
    assert result.stderr == f"jsoncontract: error: {path}: file is empty\n"


def test_random_bytes_named_sse_are_exit_2(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "stream.sse"
    path.write_bytes(bytes(range(256)) * 4 + os.urandom(1000).replace(b"data:", b""))
    result = run_cli(*CHECK, str(path))
    assert result.code == 2
    assert "not a Server-Sent Events stream" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_stream_of_only_done_is_a_warning(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "stream.sse"
    path.write_text("data: [DONE]\n\n")
    result = run_cli(*CHECK, "-f", "json", "--fail-on", "warning", str(path))
    assert result.code == 1
    report = json.loads(result.stdout)
    codes = [f["code"] for r in report["results"] for f in r["findings"]]
    assert codes == ["envelope.no_tool_call"]


@pytest.mark.parametrize(
    "line",
    [
        "OPENAI_API_KEY=sk-" + "abcdefghijklmnopqrstuvwx123",
        "password=" + "hunter2hunter2",
        "Authorization: Bearer " + "abc123def456ghi789jkl",
    ],
)
def test_a_line_that_is_not_json_is_quoted_without_its_secret(
    run_cli: Run, in_repo: Path, tmp_path: Path, line: str
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(line + "\n")
    secret = line.split("=", 1)[-1].split("Bearer ")[-1]
    for fmt in ("text", "json", "jsonl", "github", "sarif", "junit"):
        result = run_cli(*CHECK, "-f", fmt, str(path))
        assert result.code == 1
        assert secret not in result.stdout + result.stderr, fmt
        assert secret[:12] not in result.stdout, fmt


EMPTY_EXPORT = b'{"resourceSpans": []}\n'


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_a_run_that_reads_no_call_fails(
    run_cli: Run, in_repo: Path, tmp_path: Path, jobs: str, fmt: str
) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_bytes(EMPTY_EXPORT)
    result = run_cli(*CHECK, "--jobs", jobs, "-f", fmt, str(path))
    assert result.code == 1, result.stderr
    assert "input.no_calls" in result.stdout
    if fmt == "json":
        (finding,) = json.loads(result.stdout)["findings"]
        assert finding == {
            "code": "input.no_calls",
            "severity": "error",
            "message": "no tool call was read from the 1 file of the run",
            "path": "",
            "hint": "check that these are the captures you meant; --allow-empty accepts a run "
            "without calls",
        }
    allowed = run_cli(*CHECK, "--jobs", jobs, "-f", fmt, "--allow-empty", str(path))
    assert allowed.code == 0
    assert "input.no_calls" not in allowed.stdout


def test_documents_that_held_no_call_are_counted_in_the_message(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(EMPTY_EXPORT)
    trace = tmp_path / "noise.jsonl"
    trace.write_text('{"level": "info"}\nnot json\n')
    result = run_cli(*CHECK, "-f", "json", str(empty), str(trace))
    assert result.code == 1
    report = json.loads(result.stdout)
    assert [f["code"] for r in report["results"] for f in r["findings"]] == [
        "envelope.no_tool_call",
        "envelope.unknown_dialect",
        "parse.invalid_json",
    ]
    assert report["findings"][0]["message"] == (
        "no tool call was read from the 2 files of the run (3 documents held none: see their "
        "findings)"
    )


def test_one_call_is_enough(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    message = Path("fixtures/captures/trace.jsonl").read_bytes().splitlines(keepends=True)[4]
    path.write_bytes(EMPTY_EXPORT + message)  # an export without spans, and an Anthropic call
    result = run_cli(*CHECK, "-f", "json", str(path))
    assert result.code == 0, result.stdout
    assert json.loads(result.stdout)["findings"] == []


def test_the_config_may_allow_an_empty_run(run_cli: Run, tmp_path: Path) -> None:
    (tmp_path / "jsoncontract.toml").write_text(
        f'tools = ["{Path("fixtures/tools").resolve()}"]\n[check]\nallow_empty = true\n'
        "[diff]\nallow_empty = true\n"
    )
    path = tmp_path / "spans.jsonl"
    path.write_bytes(EMPTY_EXPORT)
    config = str(tmp_path / "jsoncontract.toml")
    assert run_cli("check", "--config", config, str(path)).code == 0
    assert run_cli("diff", "--config", config, "--trace", str(path)).code == 0


def test_the_library_reports_an_empty_run_unless_allowed(in_repo: Path, tmp_path: Path) -> None:
    from jsoncontract import check

    path = tmp_path / "spans.jsonl"
    path.write_bytes(EMPTY_EXPORT)
    report = check([path], tools=["fixtures/tools"])
    assert not report.ok
    assert [f.code for f in report.findings] == ["input.no_calls"]
    assert check([path], tools=["fixtures/tools"], allow_empty=True).ok


def test_diff_of_a_trace_without_calls_fails(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_bytes(EMPTY_EXPORT)
    result = run_cli("diff", "--no-config", "--trace", str(path), "-f", "json")
    assert result.code == 1
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["input.no_calls"]
    assert run_cli("diff", "--no-config", "--trace", str(path), "--allow-empty").code == 0


def test_a_marked_document_no_dialect_reads_is_a_finding_wherever_it_sits(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    """Named, found in a directory, or a line of a trace: ``envelope.not_read`` naming what
    it looks like (a reader forced to another dialect stands for one that does not read it),
    and the other files are still read; a file with no mark is skipped as before."""
    message = {"type": "message", "role": "assistant", "content": []}
    folder = tmp_path / "day"
    folder.mkdir()
    (folder / "message.json").write_text(json.dumps(message))
    (folder / "package.json").write_text('{"name": "x"}')
    (folder / "trace.jsonl").write_text(json.dumps(message) + "\n")
    result = run_cli(*CHECK, "--dialect", "gemini", "-f", "json", str(folder))
    assert result.code == 1
    report = json.loads(result.stdout)
    found = [(r["source"]["file"], f["code"]) for r in report["results"] for f in r["findings"]]
    assert found == [
        (str(folder / "message.json"), "envelope.not_read"),
        (str(folder / "trace.jsonl"), "envelope.not_read"),
    ]
    assert "package.json: not a capture in any known dialect" in result.stderr
    named = run_cli(*CHECK, "--dialect", "gemini", str(folder / "message.json"))
    assert named.code == 1
    assert "envelope.not_read" in named.stdout
    assert "--dialect gemini does not read" in named.stdout


def test_a_suite_without_a_case_fails_under_pytest(tmp_path: Path, in_repo: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "empty.suite.json").write_text('{"version": 1, "tool": "get_weather", "cases": []}')
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
            "--rootdir", str(tmp_path), "--jsoncontract-tools", str(in_repo / "fixtures/tools"),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert "the suite of get_weather holds no case; nothing was tested" in done.stdout


def test_the_report_of_a_document_not_read(
    run_cli: Run, in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    args = [*CHECK, "--dialect", "gemini", "fixtures/captures/anthropic/message-ok.json"]
    result = run_cli(*args)
    assert result.code == 1
    golden("check/not-read.txt", result.stdout)
    golden("check/not-read.jsonl", run_cli(*args, "-f", "jsonl").stdout)
