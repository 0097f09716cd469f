"""The CI formats of every command: SARIF validated against the official schema and checked
for GitHub's documented limits and fields, and ``diff`` in github, sarif and junit."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BUNDLED

RUNS = {
    **BUNDLED,
    "lint": ["lint", "--no-config", "-p", "all", "fixtures/lint/weak-tools.json"],
    "rules": [
        "rules",
        "--check",
        "--no-config",
        "-t",
        "fixtures/tools",
        "fixtures/rules-stale/shipping.toml",
    ],
}


LIVE = ["--", sys.executable, "tests/live/servers/workbench.py"]
SARIF_RUNS = {
    **RUNS,
    "mcp lint": ["mcp", "lint", "--no-config", *LIVE],
    "mcp probe": ["mcp", "probe", "--no-config", "--timeout", "1", *LIVE],
    "mcp test": ["mcp", "test", "--no-config", "fixtures/suites/example", *LIVE],
}


@pytest.mark.parametrize("command", list(SARIF_RUNS))
def test_sarif_of_every_command_is_what_github_takes(
    command: str,
    run_cli: Callable[..., Any],
    in_repo: Path,
    github_sarif: Callable[..., dict[str, Any]],
) -> None:
    args = SARIF_RUNS[command]
    end = args.index("--") if "--" in args else len(args)  # options before a server's command
    result = run_cli(*args[:end], "--format", "sarif", *args[end:])
    assert result.code in ((0, 1) if command == "mcp lint" else (1,)), result.stderr
    log = github_sarif(result.stdout)
    category = command.replace(" ", "-")
    assert log["runs"][0]["automationDetails"]["id"] == f"jsoncontract/{category}/"


@pytest.mark.parametrize("fmt", ["github", "sarif", "junit"])
def test_diff_ci_formats(
    fmt: str,
    run_cli: Callable[..., Any],
    in_repo: Path,
    golden: Callable[[str, str], None],
) -> None:
    result = run_cli(*RUNS["diff"], "--format", fmt)
    assert result.code == 1, result.stderr
    text = result.stdout
    if fmt == "github":
        lines = text.splitlines()
        assert lines[-1] == "jsoncontract diff: 5 calls diffed, 1 agree, 3 differ, 1 unpaired"
        assert any(
            line.startswith("::error file=fixtures/diff/trace.jsonl,line=13,title=dropped::")
            for line in lines
        )
    elif fmt == "junit":
        root = ET.fromstring(text)
        names = [case.get("name") for case in root.iter("testcase")]
        assert len(names) == len(set(names)) == 5
        assert root.get("failures") == "4"
    else:
        assert '"ruleId": "dropped"' in text
    golden(f"diff/trace.{fmt}.{ {'github': 'txt', 'sarif': 'json', 'junit': 'xml'}[fmt] }", text)
