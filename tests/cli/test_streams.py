"""Ordinary situations are one-line errors with the right exit code: closed standard
streams, a reader that goes away, an unreadable directory, an error after part of a report."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

Run = Callable[..., Any]
CHECK = ["check", "--no-config", "--tools", "fixtures/tools"]


def _shell(command: str) -> subprocess.CompletedProcess[str]:
    """``jsoncontract`` run by a shell (which can close streams) from the repository."""
    env = {k: v for k, v in os.environ.items() if k != "JSONCONTRACT_DEBUG"}
    script = command.replace("jsoncontract", f"{sys.executable} -m jsoncontract")
    return subprocess.run(
        ["bash", "-c", script], cwd=REPO, capture_output=True, text=True, env=env, check=False
    )


def test_stdin_closed_with_a_named_file_still_checks() -> None:
    done = _shell(
        "jsoncontract " + " ".join(CHECK) + " fixtures/captures/trace.jsonl <&- >/dev/null; "
        "echo code=$?"
    )
    assert "code=1" in done.stdout, done.stderr
    assert "internal error" not in done.stderr


def test_stdin_closed_when_reading_stdin_is_one_line_exit_2() -> None:
    done = _shell("jsoncontract " + " ".join(CHECK) + " - <&-; echo code=$?")
    assert "code=2" in done.stdout
    assert done.stderr == (
        "jsoncontract: error: standard input is closed; name the input file instead of -\n"
    )


def test_stdout_closed_is_one_line_exit_2() -> None:
    done = _shell("jsoncontract " + " ".join(CHECK) + " fixtures/captures/trace.jsonl >&-")
    assert done.returncode == 2
    assert done.stderr == (
        "jsoncontract: error: standard output is closed; write the report to a file with -o\n"
    )


def test_stderr_closed_keeps_exit_2() -> None:
    done = _shell("jsoncontract " + " ".join(CHECK) + " missing.json 2>&-; echo code=$?")
    assert done.stdout.strip() == "code=2"


def test_a_reader_that_goes_away_is_not_a_failure(tmp_path: Path) -> None:
    trace = tmp_path / "long.jsonl"
    ok = (REPO / "fixtures" / "captures" / "openai-chat" / "stream-ok.jsonl").read_text()
    trace.write_text(ok * 2000)
    done = _shell(
        "jsoncontract " + " ".join(CHECK) + f" -f jsonl {trace} | head -1 >/dev/null; "
        "echo code=${PIPESTATUS[0]}"
    )
    assert done.stdout.strip() == "code=0", done.stderr
    assert done.stderr == ""


def test_no_partial_report_before_an_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json\n")
    done = _shell("jsoncontract " + " ".join(CHECK) + f" fixtures/captures/trace.jsonl {bad}")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1


def test_a_directory_that_cannot_be_read_is_one_line_exit_2(
    run_cli: Run, in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as a user without the right (the suite runs as root, whom permissions do not stop)
    real = Path.is_dir

    def is_dir(self: Path) -> bool:
        if "locked" in self.parts:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    result = run_cli(*CHECK, "locked/trace.jsonl")
    assert result.code == 2
    assert (
        result.stderr == "jsoncontract: error: locked/trace.jsonl: cannot read: Permission denied\n"
    )


def test_error_lines_are_one_line_short_and_masked(run_cli: Run, in_repo: Path) -> None:
    key = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
    result = run_cli(*CHECK, f"missing-{key}\n" + "x" * 5000 + ".json")
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and len(result.stderr) < 1100
    assert key not in result.stderr
