"""``jsoncontract compat``: every report format (golden files), the config's classes,
``--usage``, and bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliResult, check_github_sarif

Run = Callable[..., CliResult]
PAIR = [
    "fixtures/compat/mcp-server-git-2025.9.25.json",
    "fixtures/compat/mcp-server-git-2026.10.19.json",
]
SUFFIX = {"text": "txt", "json": "json", "markdown": "md", "sarif": "sarif.json",
          "github": "github.txt", "junit": "junit.xml"}  # fmt: skip


@pytest.mark.parametrize("fmt", list(SUFFIX))
def test_every_format_of_the_release_pair(
    run_cli: Run, in_repo: Path, golden: Callable[[str, str], None], fmt: str
) -> None:
    result = run_cli("compat", "--no-config", *PAIR, "-f", fmt)
    assert result.code == 1, result.stderr
    golden(f"compat/mcp-server-git.{SUFFIX[fmt]}", result.stdout)
    if fmt == "sarif":
        check_github_sarif(result.stdout)


def test_verbose_text_lists_the_cosmetic_changes(
    run_cli: Run, in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli("compat", "--no-config", *PAIR, "-v")
    assert "21 cosmetic changes not shown" not in result.stdout
    golden("compat/mcp-server-git-verbose.txt", result.stdout)


def _report(result: CliResult) -> dict[str, Any]:
    assert result.code in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_the_config_gives_a_check_its_class(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text(
        '[compat]\nfail_on = "risky"\n[compat.severity]\n'
        '"compat.bound_tightened" = "risky"\n"compat.title_changed" = "breaking"\n'
    )
    result = run_cli("compat", "--config", str(config), "-f", "json", *PAIR)
    assert result.code == 1
    report = _report(result)
    titles = [c for c in report["changes"] if c["code"] == "compat.title_changed"]
    assert {c["class"] for c in titles} == {"breaking"}
    [bound] = [c for c in report["changes"] if c["code"] == "compat.bound_tightened"]
    assert bound["class"] == "risky"
    assert bound["note"] == "[compat.severity] compat.bound_tightened = risky"
    # --fail-on wins over the config
    assert run_cli("compat", "--config", str(config), *PAIR, "--fail-on", "any").code == 1


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('"compat.bound_tighten" = "risky"', "did you mean 'compat.bound_tightened'"),
        ('"compat.bound_tightened" = "fatal"', '"fatal" is not one of "breaking", "risky"'),
    ],
)
def test_a_bad_class_in_the_config_is_exit_2(
    run_cli: Run, in_repo: Path, tmp_path: Path, table: str, message: str
) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text(f"[compat.severity]\n{table}\n")
    result = run_cli("compat", "--config", str(config), *PAIR)
    assert result.code == 2 and message in result.stderr, result.stderr


def _trace(tmp_path: Path, *calls: tuple[str, dict[str, Any]]) -> Path:
    lines = [
        json.dumps(
            {"jsonrpc": "2.0", "id": i, "method": "tools/call",
             "params": {"name": name, "arguments": arguments}}
        )
        for i, (name, arguments) in enumerate(calls, 1)
    ]  # fmt: skip
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _minitems(report: dict[str, Any]) -> dict[str, Any]:
    [change] = [c for c in report["changes"] if c["pointer"].endswith("/minItems")]
    return change


def test_usage_keeps_a_break_a_captured_call_hits(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    trace = _trace(
        tmp_path,
        ("git_add", {"repo_path": "/r", "files": ["a.txt"]}),
        ("git_add", {"repo_path": "/r", "files": []}),
    )
    result = run_cli("compat", "--no-config", "-f", "json", *PAIR, "--usage", str(trace))
    assert result.code == 1
    report = _report(result)
    change = _minitems(report)
    assert change["class"] == "breaking"
    assert change["note"] == f"captured calls hit it: {trace}:2"
    assert report["usage"] == {"git_add": 2}


def test_usage_downgrades_a_break_no_captured_call_hits(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    sent = _trace(tmp_path, ("git_add", {"repo_path": "/r", "files": ["a.txt"]}))
    report = _report(run_cli("compat", "--no-config", "-f", "json", *PAIR, "--usage", str(sent)))
    change = _minitems(report)
    assert change["class"] == "risky"
    assert change["note"] == "none of the 1 captured calls of 'git_add' hits it"
    assert run_cli("compat", "--no-config", *PAIR, "--usage", str(sent)).code == 0
    never = _trace(tmp_path, ("git_status", {"repo_path": "/r"}))
    report = _report(run_cli("compat", "--no-config", "-f", "json", *PAIR, "--usage", str(never)))
    assert _minitems(report)["note"] == "no captured call calls 'git_add' (1 calls read)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fixtures/compat/mcp-server-git-2025.9.25.json"], "name two sides"),
        ([*PAIR, "fixtures/tools"], "name two sides"),
        ([*PAIR, "--fail-on", "error"], "'error' is not one of"),
        (["nowhere.json", PAIR[1]], "nowhere.json"),
        ([PAIR[0], "fixtures/captures"], "fixtures/captures"),
        ([PAIR[0], "--new-server"], "--new-server needs a command"),
        ([PAIR[0], "--old-server", "x", "--old-server", "y"], "--old-server is given twice"),
        ([*PAIR, "--bogus"], "no such option: --bogus"),
    ],
)
def test_bad_input_is_exit_2(run_cli: Run, in_repo: Path, args: list[str], message: str) -> None:
    result = run_cli("compat", "--no-config", *args)
    assert result.code == 2, (result.stdout, result.stderr)
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_tool_defined_twice_differently_in_one_side_is_exit_2(
    run_cli: Run, tmp_path: Path
) -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    (tmp_path / "a.json").write_text(json.dumps({"tools": [tool]}))
    (tmp_path / "b.json").write_text(
        json.dumps({"tools": [dict(tool, inputSchema={"type": "object", "required": ["x"]})]})
    )
    result = run_cli("compat", "--no-config", str(tmp_path / "a.json"), str(tmp_path))
    assert result.code == 2 and "tool 't' is defined twice" in result.stderr


def test_the_markdown_summary_goes_to_the_job_summary(
    run_cli: Run, in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(page))
    result = run_cli("compat", "--no-config", *PAIR, "-f", "sarif")
    assert result.code == 1
    assert page.read_text().startswith("## 🔴 Tool contract changes: 1 breaking, 1 risky")


def test_an_invalid_schema_in_a_side_is_exit_2(run_cli: Run, tmp_path: Path) -> None:
    broken = {"tools": [{"name": "t", "inputSchema": {"type": "object", "minLength": "x"}}]}
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    (tmp_path / "fine.json").write_text(
        json.dumps({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    )
    result = run_cli(
        "compat", "--no-config", str(tmp_path / "fine.json"), str(tmp_path / "broken.json")
    )
    assert result.code == 2 and "tool 't' input schema" in result.stderr, result.stderr
