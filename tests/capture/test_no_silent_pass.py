"""A capture that holds nothing is never a silent "0 calls": an empty JSON Lines file is
exit 2, random bytes named .sse are exit 2, a stream of nothing but [DONE] is a warning.
And a line that is not JSON is quoted without the secret it may hold."""

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
