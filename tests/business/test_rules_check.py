"""Load-time errors and warnings of rules checked against their tool: each one fires on a
rules file written to trigger it, and stays silent on the corrected file."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.business.diagnostics import CODES
from jsoncontract.business.rules import RulesError, check_rules, load_rules
from jsoncontract.model import Severity
from jsoncontract.tools import ToolSet

TOOLS: dict[str, Any] = {
    "tools": [
        {
            "name": "pay",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "maxLength": 32},
                    "amount": {"type": "number"},
                    "note": {"type": "string", "maxLength": 200},
                    "maybe": {"type": ["string", "null"], "maxLength": 50},
                    "tags": {
                        "type": "array",
                        "items": {"type": "string", "maxLength": 10},
                        "maxItems": 5,
                    },
                    "notes": {"type": "array", "items": {"type": "string", "maxLength": 10}},
                    "big": {"type": "array", "items": {"type": "integer"}, "maxItems": 50000},
                    "payee": {
                        "type": "object",
                        "properties": {"iban": {"type": "string", "maxLength": 34}},
                        "required": ["iban"],
                        "additionalProperties": False,
                    },
                },
                "required": ["id", "amount", "maybe", "tags", "notes", "big"],
                "additionalProperties": False,
            },
        }
    ]
}

#: code -> (a rule that triggers it, the same rule corrected). Each is one [[tools.pay]]
#: entry (or a whole file where the tool name matters).
CASES: dict[str, tuple[str, str]] = {
    "rules.invalid": ('id = "Bad Id"\nrule = "true"', 'id = "good-id"\nrule = "true"'),
    "rules.syntax": ('id = "r"\nrule = "self.amount >"', 'id = "r"\nrule = "self.amount > 0"'),
    "rules.undeclared": (
        'id = "r"\nrule = "slef.amount > 0"',
        'id = "r"\nrule = "self.amount > 0"',
    ),
    "rules.unknown-field": (
        'id = "r"\nrule = "self.amout > 0"',
        'id = "r"\nrule = "self.amount > 0"',
    ),
    "rules.type-mismatch": (
        'id = "r"\nrule = "self.id + 1 == 2"',
        "id = \"r\"\nrule = \"self.id + '1' == '21'\"",
    ),
    "rules.number-mixing": (
        'id = "r"\nrule = "self.amount + 1 > 0"',
        'id = "r"\nrule = "double(self.amount) + 1.0 > 0.0"',
    ),
    "rules.result-type": (
        'id = "r"\nrule = "self.id.size()"',
        'id = "r"\nrule = "self.id.size() > 0"',
    ),
    "rules.cost": (
        'id = "r"\nrule = "self.notes.all(n, n != \'\')"',
        'id = "r"\nrule = "self.tags.all(n, n != \'\')"',
    ),
    "rules.optional-field": (
        'id = "r"\nrule = "self.note != \'x\'"',
        'id = "r"\nrule = "!has(self.note) || self.note != \'x\'"',
    ),
    "rules.nullable-field": (
        'id = "r"\nrule = "self.maybe.size() > 0"',
        'id = "r"\nrule = "self.maybe != null && self.maybe.size() > 0"',
    ),
    "rules.field-path": (
        'id = "r"\nrule = "self.amount > 0"\nfieldPath = "/amout"',
        'id = "r"\nrule = "self.amount > 0"\nfieldPath = "/amount"',
    ),
    "rules.iterations": (
        'id = "r"\nrule = "self.big.all(x, x > 0)"',
        'id = "r"\nrule = "self.big.size() < 10"',
    ),
}
#: Codes whose cases are whole files.
FILE_CASES: dict[str, tuple[str, str]] = {
    "rules.unknown-tool": (
        '[[tools.payy]]\nid = "r"\nrule = "true"\n',
        '[[tools.pay]]\nid = "r"\nrule = "true"\n',
    ),
}


@pytest.fixture
def tools(write: Callable[..., Path]) -> ToolSet:
    return ToolSet.from_paths([write("tools.json", TOOLS)])


def _file(code: str, firing: bool) -> str:
    if code in FILE_CASES:
        return FILE_CASES[code][0 if firing else 1]
    return "[[tools.pay]]\n" + CASES[code][0 if firing else 1] + "\n"


def test_every_code_has_a_case() -> None:
    assert set(CASES) | set(FILE_CASES) == set(CODES)


@pytest.mark.parametrize("code", sorted(CODES))
def test_fires(code: str, tools: ToolSet, write: Callable[..., Path]) -> None:
    path = write("rules.toml", _file(code, firing=True))
    report = check_rules([path], tools=tools)
    assert [d.code for d in report.diagnostics] == [code]
    [found] = report.diagnostics
    assert found.severity is CODES[code].severity
    assert found.file == str(path) and found.line is not None
    if code not in ("rules.invalid", "rules.unknown-tool", "rules.result-type"):
        assert found.column is not None
    if code not in ("rules.invalid", "rules.unknown-tool"):
        assert found.rule == "r" and found.tool == "pay"


@pytest.mark.parametrize("code", sorted(CODES))
def test_stays_silent(code: str, tools: ToolSet, write: Callable[..., Path]) -> None:
    path = write("rules.toml", _file(code, firing=False))
    report = check_rules([path], tools=tools)
    assert report.diagnostics == []
    assert report.worst() is None


@pytest.mark.parametrize("code", sorted(CODES))
def test_loading_stops_at_errors_and_keeps_warnings(
    code: str, tools: ToolSet, write: Callable[..., Path]
) -> None:
    path = write("rules.toml", _file(code, firing=True))
    if code == "rules.unknown-tool":  # while loading, rules files may serve several tool sets
        ruleset = load_rules([path], tools=tools)
        [warning] = ruleset.warnings
        assert "rules for tool 'payy', which no tools file defines; did you mean 'pay'?" in warning
    elif CODES[code].severity is Severity.ERROR:
        with pytest.raises(RulesError) as caught:
            load_rules([path], tools=tools)
        assert caught.value.file == str(path) and caught.value.line is not None
    else:
        ruleset = load_rules([path], tools=tools)
        [warning] = ruleset.warnings
        assert re.match(rf"{re.escape(str(path))}:[34]:\d+: rule 'r' \(tool pay\): ", warning)
        ruleset.close()


def test_load_error_names_file_line_column_rule_and_guess(
    tools: ToolSet, write: Callable[..., Path]
) -> None:
    path = write(
        "rules.toml",
        '# amounts\n[[tools.pay]]\nid = "amount-positive"\nrule = "self.amout > 0"\n',
    )
    with pytest.raises(RulesError) as caught:
        load_rules([path], tools=tools)
    assert str(caught.value) == (
        f"{path}:4:14: rule 'amount-positive' (tool pay): self.amout: self has no field "
        "'amout'; did you mean 'amount'?; its fields are id, amount, note, maybe, tags, "
        "notes, big, payee"
    )


def test_a_field_dropped_from_the_schema_fails_the_check(
    write: Callable[..., Path],
) -> None:
    rules = write(
        "rules.toml", '[[tools.pay]]\nid = "iban-known"\nrule = "self.payee.iban != \'\'"\n'
    )
    schema = TOOLS["tools"][0]["inputSchema"]
    before = ToolSet.from_paths([write("before.json", TOOLS)])
    assert [d.code for d in check_rules([rules], tools=before).diagnostics] == [
        "rules.optional-field"
    ]
    renamed = {**schema["properties"]["payee"], "properties": {"account": {"type": "string"}}}
    renamed["required"] = ["account"]
    after_tools = {
        "tools": [
            {
                "name": "pay",
                "inputSchema": {**schema, "properties": {**schema["properties"], "payee": renamed}},
            }
        ]
    }
    after = ToolSet.from_paths([write("after.json", after_tools)])
    report = check_rules([rules], tools=after)
    unknown = [d for d in report.diagnostics if d.code == "rules.unknown-field"]
    assert len(unknown) == 1 and unknown[0].rule == "iban-known"
    assert "self.payee.iban" in unknown[0].message and unknown[0].stale
    assert report.stale == unknown


def test_every_problem_of_every_file_is_reported(
    tools: ToolSet, write: Callable[..., Path]
) -> None:
    first = write("a.toml", '[[tools.pay]]\nid = "a"\nrule = "self.amout > 0"\n')
    second = write(
        "b.toml",
        '[[tools.pay]]\nid = "b"\nrule = "self.id +"\n\n[[tools.pay]]\nid = "c"\n'
        "rule = \"self.ide == 'x'\"\n",
    )
    broken = write("c.toml", "[[tools.pay]\n")
    report = check_rules([first, second, broken], tools=tools)
    assert [(Path(d.file).name, d.code) for d in report.diagnostics] == [
        ("a.toml", "rules.unknown-field"),
        ("b.toml", "rules.syntax"),
        ("b.toml", "rules.unknown-field"),
        ("c.toml", "rules.invalid"),
    ]
    assert report.rules == 3 and report.summary()["by_severity"]["error"] == 4


def test_a_missing_rules_file_cannot_be_checked(tools: ToolSet, tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="rules file not found"):
        check_rules([tmp_path / "nope.toml"], tools=tools)


def test_the_bundled_rules_check_clean(in_repo: Path) -> None:
    tools = ToolSet.from_paths(["fixtures/tools"])
    report = check_rules(["fixtures/rules/shipping.toml"], tools=tools)
    assert report.diagnostics == []
    assert report.rules == 9 and report.tools == 2
    assert max(c.cost for c in report.costs) < 1000


def test_dataset_rows_are_typed_from_the_data(tools: ToolSet, write: Callable[..., Path]) -> None:
    write("orders.csv", "order_id,status\nA-1,open\nA-2,shipped\n")
    write("rows.json", '[{"code": "X", "label": "x"}, {"code": "Y"}]')
    rules = write(
        "rules.toml",
        '[data.orders]\ncsv = "orders.csv"\nkey = "order_id"\n'
        '[data.rows]\njson = "rows.json"\nkey = "code"\n'
        '[[tools.pay]]\nid = "open"\nrule = "data.orders.get(self.id).status == \'open\'"\n'
        '[[tools.pay]]\nid = "typo"\nrule = "data.orders.get(self.id).stauts == \'open\'"\n'
        '[[tools.pay]]\nid = "json"\nrule = "data.rows.get(self.id).label != \'\'"\n',
    )
    report = check_rules([rules], tools=tools)
    assert [(d.rule, d.code) for d in report.diagnostics] == [("typo", "rules.unknown-field")]
    assert "did you mean 'status'?" in report.diagnostics[0].message


def test_the_two_misfires_that_used_to_fail_every_call(write: Callable[..., Path]) -> None:
    tools = ToolSet.from_paths(
        [
            write(
                "order.json",
                {
                    "tools": [
                        {
                            "name": "create_order",
                            "inputSchema": {
                                "type": "object",
                                "properties": {
                                    "order_id": {"type": "string"},
                                    "amount_cents": {"type": "integer"},
                                },
                                "required": ["order_id", "amount_cents"],
                                "additionalProperties": False,
                            },
                        }
                    ]
                },
            )
        ]
    )
    rules = write(
        "rules.toml",
        '[[tools.create_order]]\nid = "positive"\nrule = "self.amount_cent > 0"\n\n'
        '[[tools.create_order]]\nid = "plus"\nrule = "self.order_id + 1 == 2"\n',
    )
    misspelt, mistyped = check_rules([rules], tools=tools).diagnostics
    assert (misspelt.code, misspelt.rule, misspelt.line, misspelt.column) == (
        "rules.unknown-field", "positive", 3, 14,
    )  # fmt: skip
    assert "did you mean 'amount_cents'?" in misspelt.message
    assert (mistyped.code, mistyped.rule, mistyped.line, mistyped.column) == (
        "rules.type-mismatch", "plus", 7, 23,
    )  # fmt: skip
    assert "self.order_id (string), 1 (int)" in mistyped.message
