"""The engine profiles on the command line: umbrellas, ``--engine-check`` and its errors."""

from __future__ import annotations

import json
from pathlib import Path

from jsoncontract.lint.settings import parse_profiles

REPORTS = str(Path(__file__).parent / "reports" / "llama-cpp-reports.json")


def test_umbrellas_name_the_engines_they_run() -> None:
    assert parse_profiles(["vllm"], origin="-p") == ("xgrammar", "llguidance", "outlines")
    assert parse_profiles(["generic,ollama"], origin="-p") == ("generic", "llama-cpp")


def test_engine_check_without_an_engine_profile_exits_2(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("lint", "--no-config", REPORTS, "--engine-check")
    assert result.code == 2
    assert "--engine-check compiles with the engines of engine profiles" in result.stderr


def test_engine_check_names_what_it_cannot_compile_with(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("lint", "--no-config", REPORTS, "-p", "ollama", "--engine-check")
    assert result.code == 2 and "none of the engines" in result.stderr
    result = run_cli(
        "lint", "--no-config", REPORTS, "-p", "llguidance,llama-cpp", "--engine-check", "-f", "json"
    )
    assert result.code == 1, result.stderr  # the llama-cpp errors of the reports
    assert "llama-cpp has no Python package to compile with" in result.stderr
    assert json.loads(result.stdout)["summary"]["profiles"] == ["llguidance", "llama-cpp"]
