"""What docs/business-rules.md says about checking rules is what the code does."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.business.celtypes import DATE_LENGTH
from jsoncontract.business.cost import DEFAULT_BUDGET, RUNTIME_ITERATIONS, UNBOUNDED_BYTES
from jsoncontract.business.diagnostics import CODES
from jsoncontract.business.rules import RulesError, load_rules
from jsoncontract.business.static import CONTEXT_SIZE
from jsoncontract.tools import ToolSet

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "business-rules.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = DOC.index(f"\n## {title}\n")
    end = DOC.index("\n## ", start + 1)
    return DOC[start:end]


def test_every_code_is_documented_with_its_severity() -> None:
    table = _section("Checked against the tool's schema")
    check = _section("Checking rules without traffic")
    for code in CODES.values():
        row = re.search(rf"^\| `{re.escape(code.code)}` \| (\w+) \|", table, re.M)
        if row is not None:
            assert row.group(1) == code.severity.value, code.code
        else:
            assert f"`{code.code}`" in check, f"{code.code} is not documented"


def test_figures_match_the_code() -> None:
    cost = _section("Cost")
    assert f"{DEFAULT_BUDGET:,} units per expression" in cost
    assert f"{UNBOUNDED_BYTES // 2**20} MiB" in cost
    assert f"{CONTEXT_SIZE:,} characters or items" in cost
    assert f"the {DATE_LENGTH} characters of a `format: date`" in cost
    assert f"at most {RUNTIME_ITERATIONS:,}\ncomprehension steps" in cost
    config = (REPO / "jsoncontract" / "schemas" / "config" / "business.json").read_text()
    assert '"cost_budget"' in config and "cost_budget = 1000000" in DOC


def test_the_cost_error_shown_is_real(in_repo: Path, write: Callable[..., Path]) -> None:
    shown = re.search(r"jsoncontract: error: (rules\.toml:.*)", _section("Cost"))
    assert shown is not None
    rules = write(
        "rules.toml",
        '[[tools.read_file]]\nid = "no-parent-paths"\nrule = "!self.path.contains(\'..\')"\n',
    )
    with pytest.raises(RulesError) as caught:
        load_rules([rules], tools=ToolSet.from_paths(["fixtures/tools"]))
    assert str(caught.value).replace(str(rules), "rules.toml") == shown.group(1)


def test_the_field_error_shown_is_real(run_cli: Any, in_repo: Path) -> None:
    shown = re.search(r"(jsoncontract: error: fixtures/rules-stale.*)", DOC)
    assert shown is not None
    result = run_cli(
        "check", "--no-config", "--tools", "fixtures/tools",
        "--rules", "fixtures/rules-stale/shipping.toml", "fixtures/business",
    )  # fmt: skip
    assert result.stderr.strip() == shown.group(1)
