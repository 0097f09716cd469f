"""What CI systems key on: JUnit cases that are unique, the same whatever --fail-on says,
and timed; a SARIF result for every suite, with a region; and small wording."""

from __future__ import annotations

import gzip
import json
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def cases(xml: str) -> list[tuple[str, str, str | None, float]]:
    root = ET.fromstring(xml)
    return [
        (
            case.get("classname", ""),
            case.get("name", ""),
            "failure" if case.find("failure") is not None else None,
            float(case.get("time", "0")),
        )
        for case in root.iter("testcase")
    ]


def test_check_junit_cases_are_unique_and_timed(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    # one call id at two hops, and the MCP request sent twice (a retry): the model's call,
    # repeated in the trace, is one call; three calls, three cases
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "a"}},
    }
    record = {
        "hop": "model",
        "tool": "read_file",
        "call_id": "7",
        "payload": {
            "type": "function_call",
            "call_id": "7",
            "name": "read_file",
            "arguments": '{"path": "a"}',
        },
    }
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(json.dumps(x) for x in (record, call, call, record)) + "\n")
    result = run_cli("check", "--no-config", "-t", "fixtures/tools", str(trace), "-f", "junit")
    found = cases(result.stdout)
    names = [name for _, name, _, _ in found]
    assert len(found) == 3 and len(set(names)) == 3, names
    assert names[0] == "read_file model 7" and names[1] == "read_file mcp 7"
    assert names[2].startswith("read_file mcp 7 (line 3, #2)")
    bundled = cases(
        run_cli(
            "check", "--no-config", "-t", "fixtures/tools", "fixtures/captures", "-f", "junit"
        ).stdout
    )
    pairs = Counter((classname, name) for classname, name, _, _ in bundled)
    assert max(pairs.values()) == 1
    assert sum(seconds for *_, seconds in bundled) > 0


@pytest.mark.parametrize("fmt", ["junit"])
def test_lint_junit_cases_do_not_depend_on_fail_on(
    fmt: str, run_cli: Callable[..., Any], in_repo: Path
) -> None:
    runs = {
        level: cases(
            run_cli(
                "lint",
                "--no-config",
                "fixtures/lint/weak-tools.json",
                "-f",
                fmt,
                "--fail-on",
                level,
            ).stdout
        )
        for level in ("error", "warning", "info", "never")
    }
    identity = {level: [(c, n) for c, n, _, _ in found] for level, found in runs.items()}
    assert len({tuple(v) for v in identity.values()}) == 1  # the same cases every time
    failing = {
        level: sum(1 for *_, f, _ in [(c[0], c[1], c[2], c[3]) for c in found] if f)
        for level, found in runs.items()
    }
    assert failing == {"error": 0, "warning": 3, "info": 3, "never": 0}
    assert all(seconds > 0 for *_, seconds in runs["error"])


def test_a_suite_whose_tool_is_gone_has_a_region(
    run_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    shutil.copy(REPO / "fixtures/suites/weak/create_ticket.suite.json", tmp_path / "s.suite.json")
    shutil.copy(REPO / "fixtures/tools/anthropic.json", tmp_path / "tools.json")
    monkeypatch.chdir(tmp_path)
    result = run_cli("test", "--no-config", "-t", "tools.json", "s.suite.json", "-f", "sarif")
    (missing,) = json.loads(result.stdout)["runs"][0]["results"]
    assert missing["ruleId"] == "suite.tool_missing"
    assert missing["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}


def test_summaries_count_in_good_english(run_cli: Callable[..., Any], in_repo: Path) -> None:
    one = "fixtures/captures/faults/schema-enum.json"
    text = run_cli("check", "--no-config", "-t", "fixtures/tools", one).stdout
    assert "1 call in 1 file: 0 ok, 1 failed" in text
    assert "findings: 1 error, 0 warnings, 0 info" in text
    github = run_cli("check", "--no-config", "-t", "fixtures/tools", one, "-f", "github").stdout
    assert github.endswith("jsoncontract check: 1 call in 1 file, 0 ok, 1 failed\n")


def test_gzip_is_named(run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path) -> None:
    tools = tmp_path / "tools.json.gz"
    tools.write_bytes(gzip.compress((REPO / "fixtures/tools/anthropic.json").read_bytes()))
    trace = tmp_path / "trace.jsonl.gz"
    trace.write_bytes(gzip.compress((REPO / "fixtures/captures/trace.jsonl").read_bytes()))
    for args in (("-t", str(tools), "fixtures/captures"), ("-t", "fixtures/tools", str(trace))):
        result = run_cli("check", "--no-config", *args)
        assert result.code == 2
        assert "is gzip-compressed; decompress it first" in result.stderr
        assert "utf8" not in result.stderr and "0x8b" not in result.stderr
    piped = run_cli("check", "--no-config", "-t", "fixtures/tools", "-", stdin=trace.read_bytes())
    assert piped.code == 2 and "the input is gzip-compressed" in piped.stderr


def test_dir_shows_the_public_api() -> None:
    import jsoncontract

    listed = dir(jsoncontract)
    assert {"check", "iter_check", "ToolSet", "Baseline", "Finding", "__version__"} <= set(listed)
    assert "TYPE_CHECKING" not in listed and "annotations" not in listed
