"""Rules, config and context files that a hostile or careless hand wrote: endless devices,
deep nesting, a rule that prints. Each is a one-line exit 2 or a clean report."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Run = Callable[..., Any]
CHECK = ["check", "--no-config", "--tools", "fixtures/tools"]
CALL = "fixtures/business/shipment-ok.json"


def _one_line_exit_2(result: Any) -> None:
    assert result.code == 2, result.stdout
    assert result.stderr.count("\n") == 1 and "internal error" not in result.stderr
    assert result.stdout == ""


def test_context_from_an_endless_device_stops_at_its_limit(run_cli: Run, in_repo: Path) -> None:
    started = time.perf_counter()
    result = run_cli(
        *CHECK, "--rules", "fixtures/rules/shipping.toml", "--context", "@/dev/zero", CALL
    )
    assert time.perf_counter() - started < 10
    _one_line_exit_2(result)
    assert "over the 1 MB limit" in result.stderr


def test_rules_from_an_endless_device_stop_at_their_limit(run_cli: Run, in_repo: Path) -> None:
    result = run_cli(*CHECK, "--rules", "/dev/zero", CALL)
    _one_line_exit_2(result)
    assert "over the 8 MiB limit" in result.stderr


def test_config_from_an_endless_device_stops_at_its_limit(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("check", "--config", "/dev/zero", "--tools", "fixtures/tools", CALL)
    _one_line_exit_2(result)


def test_an_empty_config_is_no_settings_while_reads_stay_bounded(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_bytes(b"")
    result = run_cli("check", "--config", str(config), "--tools", "fixtures/tools", CALL)
    assert result.code == 0, result.stderr


def test_a_rules_file_nested_100k_deep(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    rules = tmp_path / "deep.toml"
    rules.write_text("version = 1\nx = " + "[" * 100_000 + "]" * 100_000 + "\n")
    result = run_cli(*CHECK, "--rules", str(rules), CALL)
    _one_line_exit_2(result)
    assert "nested too deeply" in result.stderr


def test_a_config_nested_100k_deep(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text("x = " + "{a=" * 100_000 + "1" + "}" * 100_000 + "\n")
    result = run_cli("check", "--config", str(config), "--tools", "fixtures/tools", CALL)
    _one_line_exit_2(result)
    assert "nested too deeply" in result.stderr


def test_a_python_rule_that_prints_leaves_the_json_report_whole(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    (tmp_path / "noisy_rules.py").write_text(
        "def noisy(arguments, context):\n    print('debugging', arguments)\n    return None\n"
    )
    rules = tmp_path / "rules.toml"
    rules.write_text(
        'version = 1\n[[tools.update_shipment]]\nid = "noisy"\npython = "noisy_rules:noisy"\n'
    )
    result = run_cli(*CHECK, "--rules", str(rules), "-f", "json", CALL)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["calls"] == 1
    assert "debugging" in result.stderr
