"""``jsoncontract rules``: the catalog in text and JSON, one rule's documentation."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from jsoncontract.lint.codes import all_rules

Run = Callable[..., Any]


def test_list_text(run_cli: Run) -> None:
    result = run_cli("rules")
    assert result.code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("JC001 [*] input-schema-root-not-object")
    assert any(line.startswith("JC020 [*] additional-properties-allowed") for line in lines)
    assert f"{len(all_rules())} rules" in result.stdout


def test_list_json(run_cli: Run) -> None:
    report = json.loads(run_cli("rules", "--format", "json").stdout)
    assert report["version"] == 1
    assert report["summary"]["rules"] == len(report["rules"]) == len(all_rules())
    jc020 = next(r for r in report["rules"] if r["code"] == "JC020")
    assert jc020["severities"]["openai-strict"] == "error"
    assert jc020["severities"]["generic"] == "warning"
    assert jc020["fixable"] is True
    assert jc020["docs_url"].endswith("docs/rules/JC020.md")
    jc050 = next(r for r in report["rules"] if r["code"] == "JC050")
    assert jc050["mcp_versions"] == ["2025-06-18", "2025-11-25"]
    assert report["redirects"]["JC013"] == "JC010"
    assert "check" in report["not_lint_rules"]["JC060"]


def test_list_for_a_profile(run_cli: Run) -> None:
    report = json.loads(run_cli("rules", "-p", "gemini", "-f", "json").stdout)
    codes = {r["code"] for r in report["rules"]}
    assert {"JC011", "JC041", "JC042", "JC020"} <= codes
    assert "JC021" not in codes and "JC012" not in codes


def test_one_rule_by_code_or_name(run_cli: Run) -> None:
    by_code = run_cli("rules", "JC020")
    assert by_code.code == 0
    assert by_code.stdout.startswith("# JC020 additional-properties-allowed\n")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead",
                    "## References"):  # fmt: skip
        assert section in by_code.stdout
    assert run_cli("rules", "additional-properties-allowed").stdout == by_code.stdout
    assert run_cli("rules", "jc020").stdout == by_code.stdout


def test_one_rule_json(run_cli: Run) -> None:
    report = json.loads(run_cli("rules", "JC143", "-f", "json").stdout)
    [rule] = report["rules"]
    assert rule["name"] == "description-prompt-injection"
    assert rule["documentation"].startswith("# JC143 ")


def test_redirected_code_shows_its_new_rule(run_cli: Run) -> None:
    assert run_cli("rules", "JC052").stdout.startswith("# JC020 ")


def test_unknown_code(run_cli: Run) -> None:
    result = run_cli("rules", "JC290")
    assert result.code == 2
    assert "unknown rule 'JC290'; did you mean" in result.stderr
    retired = run_cli("rules", "JC060")
    assert retired.code == 2 and "checked on traffic by `check`" in retired.stderr


def test_unknown_mcp_version_is_a_usage_error(run_cli: Run) -> None:
    result = run_cli("rules", "--profile", "mcp", "--mcp-version", "2099-01-01")
    assert result.code == 2
    assert "unknown MCP version '2099-01-01'; known: 2025-06-18" in result.stderr


def test_colour_on_a_terminal(run_cli: Run) -> None:
    result = run_cli("rules", "JC020", "--color")
    assert result.code == 0 and "\x1b[" in result.stdout


def test_help_stays_light() -> None:
    code = (
        "import sys; from jsoncontract.cli.app import build; build(); "
        "heavy = [m for m in ('jsonschema', 'jsonschema_rs', 'deepdiff', 'rich', 'orjson', "
        "'jsoncontract.lint.engine', 'jsoncontract.pin', 'jsoncontract.model', "
        "'jsoncontract.reporters.text', 'jsoncontract.reporters.check_text') "
        "if m in sys.modules]; print(heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


def test_reports_match_their_golden_files(run_cli: Run, golden: Callable[[str, str], None]) -> None:
    for args, name in (
        ((), "list.txt"),
        (("-p", "gemini", "-f", "json"), "list-gemini.json"),
        (("JC020",), "JC020.md"),
        (("JC020", "-f", "json"), "JC020.json"),
    ):
        result = run_cli("rules", *args)
        assert result.code == 0
        text = result.stdout
        golden(
            f"rules/{name}",
            json.dumps(json.loads(text), indent=2) + "\n" if "json" in args else text,
        )
