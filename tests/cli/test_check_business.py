"""`jsoncontract check` with business rules: flags, config, context, reports, exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = (
    "check",
    "--tools",
    "fixtures/tools",
    "--rules",
    "fixtures/rules/shipping.toml",
    "--context",
    '{"role": "support"}',
    "fixtures/business",
)


def test_bundled_example_text_report(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli(*EXAMPLE, "--no-config")
    assert result.code == 1
    assert result.stderr == ""
    golden("business-example.txt", result.stdout)


def test_bundled_example_json_report(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli(*EXAMPLE, "--no-config", "--format", "json")
    assert result.code == 1
    report = json.loads(result.stdout)
    assert report["version"] == 1
    assert report["summary"]["by_stage"]["business"] == 9
    codes = {f["code"] for r in report["results"] for f in r["findings"]}
    assert {
        "business.date-order",
        "business.date-range-max-31-days",
        "business.order-exists",
        "business.order-still-open",
        "business.expedited-needs-ops",
        "business.declared-amount-positive",
        "business.declared-currency-known",
        "business.overnight-notifies-customer",
        "business.postal-code-format",
        "business.idempotency.conflict",
    } == codes
    for result_entry in report["results"]:
        for finding in result_entry["findings"]:
            assert finding["stage"] == "business"
            assert finding["tool"] == result_entry["tool"]
    golden("business-example.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def test_context_from_a_file_changes_the_outcome(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    context = tmp_path / "ctx.json"
    context.write_text('{"role": "ops"}')
    args = (
        "check",
        "--no-config",
        "--tools",
        "fixtures/tools",
        "--rules",
        "fixtures/rules/shipping.toml",
    )
    capture = "fixtures/business/shipment-expedited-needs-ops.json"
    assert run_cli(*args, "--context", f"@{context}", capture).code == 0
    assert run_cli(*args, "--context", '{"role": "support"}', capture).code == 1
    assert run_cli(*args, capture).code == 1  # no role at all


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{role: ops}", "--context is not JSON"),
        ('["ops"]', "--context must be a JSON object, not a list"),
        ("@/nonexistent/ctx.json", "cannot read"),
        ('{"now": "yesterday"}', "now must be an RFC 3339 timestamp"),
    ],
)
def test_bad_context_is_exit_2(
    run_cli: Callable[..., Any], in_repo: Path, value: str, message: str
) -> None:
    result = run_cli(
        "check", "--no-config", "--tools", "fixtures/tools", "--context", value, "fixtures/business"
    )
    assert result.code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_rules_file_is_exit_2_with_location(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    rules = tmp_path / "r.toml"
    rules.write_text('[[tools.searchInvoices]]\nid = "date-order"\nrule = "self.startDate <="\n')
    result = run_cli(
        "check",
        "--no-config",
        "--tools",
        "fixtures/tools",
        "--rules",
        str(rules),
        "fixtures/business",
    )
    assert result.code == 2
    assert result.stdout == ""
    line = result.stderr.strip()
    assert line.startswith(f"jsoncontract: error: {rules}:3:")
    assert "rule 'date-order' (tool searchInvoices): CEL syntax error in rule at column" in line
    assert "\n" not in line


def test_rules_for_an_unknown_tool_warn_on_stderr(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    rules = tmp_path / "r.toml"
    rules.write_text('[[tools.searchInvoice]]\nid = "x"\nrule = "false"\n')
    result = run_cli(
        "check",
        "--no-config",
        "--tools",
        "fixtures/tools",
        "--rules",
        str(rules),
        "fixtures/business/search-ok.json",
    )
    assert result.code == 0
    assert "jsoncontract: warning:" in result.stderr
    assert "did you mean 'searchInvoices'?" in result.stderr


def test_business_config_section(
    run_cli: Callable[..., Any], tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "regions.csv").write_text("code\nLIS\nOPO\n")
    (tmp_path / "rules.toml").write_text(
        '[[tools.update_shipment]]\nid = "tenant"\nrule = "context.tenant == \'acme\' && '
        "self.order_id in data.orders && 'LIS' in data.regions\"\n"
        '[data.orders]\nvalues = ["ORD-204117"]\n'
    )
    (tmp_path / "jsoncontract.toml").write_text(
        f'tools = ["{(repo / "fixtures" / "tools").as_posix()}"]\n'
        "[business]\n"
        'rules = ["rules.toml"]\n'
        'data = { regions = { csv = "regions.csv" } }\n'
        'context = { tenant = "acme", now = "2025-10-31T00:00:00Z" }\n'
        "[business.idempotency]\n"
        'conflict = "warning"\n'
    )
    capture = repo / "fixtures" / "business" / "shipment-ok.json"
    monkeypatch.chdir(tmp_path)
    assert run_cli("check", str(capture)).code == 0
    assert run_cli("check", "--context", '{"tenant": "other"}', str(capture)).code == 1
    (tmp_path / "jsoncontract.toml").write_text("[business]\nrulez = []\n")
    result = run_cli("check", "--tools", str(repo / "fixtures" / "tools"), str(capture))
    assert result.code == 2
    assert "unknown config key 'business.rulez'; did you mean 'rules'?" in result.stderr


def test_idempotency_conflict_alone_needs_no_rules(
    run_cli: Callable[..., Any], in_repo: Path
) -> None:
    result = run_cli(
        "check",
        "--no-config",
        "--tools",
        "fixtures/tools",
        "fixtures/business/trace.jsonl",
        "-f",
        "json",
    )
    report = json.loads(result.stdout)
    codes = [f["code"] for r in report["results"] for f in r["findings"]]
    assert codes == ["business.idempotency.conflict"]
    assert result.code == 1


def test_help_mentions_the_new_options(run_cli: Callable[..., Any]) -> None:
    result = run_cli("check", "--help")
    assert "--rules" in result.stdout and "--context" in result.stdout


def test_cli_modules_do_not_import_the_cel_engine() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from jsoncontract.cli.app import build; build(); "
        "assert 'cel_expr_python' not in sys.modules, 'cel engine imported by --help'; "
        "assert 'jsoncontract.business' not in sys.modules"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
