"""The project's own hygiene: lint, format and type check run as part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_ruff_lint() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "jsoncontract", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_ruff_format() -> None:
    result = _run(
        sys.executable, "-m", "ruff", "format", "--check", "jsoncontract", "tests", "benchmarks"
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict() -> None:
    if shutil.which("mypy") is None and not _run(sys.executable, "-m", "mypy", "--version").stdout:
        pytest.fail("mypy is not installed; install the test extra: pip install -e '.[test]'")
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr
