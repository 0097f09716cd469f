"""``jsoncontract rules --check``: formats, exit codes, configuration, errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]
STALE = "fixtures/rules-stale/shipping.toml"
CHECK = ("rules", "--check", "--no-config", "--tools", "fixtures/tools")


def test_the_bundled_rules_check_clean(run_cli: Run, in_repo: Path, golden: Any) -> None:
    result = run_cli(*CHECK, "fixtures/rules/shipping.toml")
    assert result.code == 0 and result.stderr == ""
    assert result.stdout == (
        "All rules check out in 9 rules for 2 tools (1 file; cost budget 1,000,000)\n"
    )
    verbose = run_cli(*CHECK, "-v", "fixtures/rules/shipping.toml")
    golden("rules-check/bundled-verbose.txt", verbose.stdout)


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("text", "stale.txt"), ("json", "stale.json"), ("sarif", "stale.sarif.json"),
     ("github", "stale.github.txt")],
)  # fmt: skip
def test_stale_rules_in_every_format(
    run_cli: Run, in_repo: Path, golden: Any, fmt: str, name: str
) -> None:
    result = run_cli(*CHECK, "--format", fmt, STALE)
    assert result.code == 1 and result.stderr == ""
    golden(f"rules-check/{name}", result.stdout)


def test_json_report(run_cli: Run, in_repo: Path) -> None:
    report = json.loads(run_cli(*CHECK, "-f", "json", STALE).stdout)
    assert report["version"] == 1
    summary = report["summary"]
    assert summary["by_severity"] == {"error": 7, "warning": 2, "info": 0}
    assert summary["stale"] == 4 and summary["rules"] == 8
    dropped, renamed = (d for d in report["diagnostics"] if d["code"] == "rules.unknown-field")
    assert dropped["rule"] == "declared-amount-positive" and dropped["tool"] == "update_shipment"
    assert (dropped["line"], dropped["column"]) == (15, 14) and "suggestion" not in dropped
    assert renamed["rule"] == "postal-code-given" and renamed["suggestion"] == "postal_code"
    assert {s["code"] for s in report["stale"]} == {
        "rules.unknown-field",
        "rules.field-path",
        "rules.unknown-tool",
    }


def test_sarif_is_valid(run_cli: Run, in_repo: Path, repo: Path) -> None:
    import jsonschema

    schema = json.loads((repo / "tests" / "reporters" / "sarif-schema-2.1.0.json").read_text())
    log = json.loads(run_cli(*CHECK, "-f", "sarif", STALE).stdout)
    jsonschema.Draft7Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 9
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 15, "startColumn": 14}


def test_exit_codes_follow_fail_on(run_cli: Run, in_repo: Path, write: Callable[..., Path]) -> None:
    warning_only = write(
        "w.toml", '[[tools.update_shipment]]\nid = "w"\nrule = "self.notify_customer"\n'
    )
    assert run_cli(*CHECK, str(warning_only)).code == 0
    assert run_cli(*CHECK, "--fail-on", "warning", str(warning_only)).code == 1
    assert run_cli(*CHECK, "--fail-on", "never", STALE).code == 0


def test_cost_budget_flag_and_config(
    run_cli: Run, repo: Path, write: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = write("r.toml", '[[tools.read_file]]\nid = "p"\nrule = "!self.path.contains(\'..\')"\n')
    tools = str(repo / "fixtures" / "tools")
    over = run_cli("rules", "--check", "--no-config", "--tools", tools, str(rules))
    assert over.code == 1 and "rules.cost" in over.stdout
    raised = run_cli(
        "rules", "--check", "--no-config", "--tools", tools, "--cost-budget", "100000000",
        str(rules),
    )  # fmt: skip
    assert raised.code == 0 and "cost budget 100,000,000" in raised.stdout
    write(
        "jsoncontract.toml",
        f'tools = ["{Path(tools).as_posix()}"]\n[business]\nrules = ["r.toml"]\n'
        "cost_budget = 100000000\n",
    )
    monkeypatch.chdir(rules.parent)
    from_config = run_cli("rules", "--check")
    assert from_config.code == 0 and "cost budget 100,000,000" in from_config.stdout
    assert "1 rule for 1 tool" in from_config.stdout


def test_quiet_prints_the_summary_only(run_cli: Run, in_repo: Path) -> None:
    result = run_cli(*CHECK, "-q", STALE)
    assert result.code == 1
    assert result.stdout == (
        "7 errors, 2 warnings in 8 rules for 3 tools (1 file; cost budget 1,000,000)\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("rules", "--check", "--no-config", "--tools", "fixtures/tools"), "no rules files"),
        (("rules", "-f", "sarif"), "--format sarif applies to --check"),
        (("rules", "JC020", "JC021"), "name one rule"),
        (("rules", "--tools", "fixtures/tools"), "--tools applies to --check"),
        (("rules", "--check", "-p", "gemini", "fixtures/rules/shipping.toml"),
         "--profile applies to the rule catalog, not to --check"),
        (("rules", "--check", "--no-config", "--tools", "fixtures/tools", "nope.toml"),
         "nope.toml: rules file not found"),
        (("rules", "--check", "--no-config", "fixtures/rules/shipping.toml"),
         "no tool definitions"),
    ],
)  # fmt: skip
def test_usage_errors_exit_2(
    run_cli: Run, in_repo: Path, args: tuple[str, ...], message: str
) -> None:
    result = run_cli(*args)
    assert result.code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_check_stops_at_a_rule_that_does_not_fit_its_tool(run_cli: Run, in_repo: Path) -> None:
    result = run_cli(
        "check", "--no-config", "--tools", "fixtures/tools", "--rules", STALE, "fixtures/business"
    )
    assert result.code == 2
    assert result.stderr.strip() == (
        "jsoncontract: error: fixtures/rules-stale/shipping.toml:15:14: rule "
        "'declared-amount-positive' (tool update_shipment): self.amount_cents: self has no "
        "field 'amount_cents'; its fields are amount, currency"
    )


def test_readme_shows_real_output(run_cli: Run, in_repo: Path) -> None:
    text = Path("docs/commands/business.md").read_text(encoding="utf-8")
    section = text.split("## Rules checked against the schema, without traffic", 1)[1]
    command = section.split("```sh\n", 1)[1].split("```", 1)[0].strip()
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    args = command.split()
    assert args[0] == "jsoncontract"
    result = run_cli(*args[1:])
    assert result.code == 1
    assert result.stdout == shown
