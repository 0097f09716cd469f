"""Worst-case cost from the schema's bounds, and the run-time iteration guard."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.business._cel import CelEnvironment
from jsoncontract.business.celcheck import Binding
from jsoncontract.business.celtypes import SchemaTyper
from jsoncontract.business.cost import DEFAULT_BUDGET, RUNTIME_ITERATIONS, UNBOUNDED_BYTES
from jsoncontract.business.data import Dataset
from jsoncontract.business.static import ExpressionCheck, RuleTypes, check_expression

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 100},
        "free": {"type": "string"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 10},
        "many": {"type": "array", "items": {"type": "string", "maxLength": 20}},
        "big": {"type": "array", "items": {"type": "integer"}, "maxItems": 50_000},
        "grid": {
            "type": "array",
            "maxItems": 200,
            "items": {"type": "array", "maxItems": 200, "items": {"type": "integer"}},
        },
    },
    "required": ["name", "free", "code", "tags", "many", "big", "grid"],
    "additionalProperties": False,
}
_ARGS = SchemaTyper(SCHEMA).type_of(SCHEMA)
_IDS = Dataset("ids", frozenset(f"ID-{i}" for i in range(5000)), None, "ids.json")
_ENV = CelEnvironment({"ids": _IDS})


def _estimate(source: str, budget: int | None = DEFAULT_BUDGET) -> ExpressionCheck:
    types = RuleTypes({"self": Binding(_ARGS, ("args",))}, frozenset())
    return check_expression(
        _ENV.compile(source), types, {"ids": _IDS}, wanted="bool", budget=budget
    )


@pytest.mark.parametrize(
    ("source", "cost"),
    [
        ("self.name == 'x'", 3),  # read self (1) + name (1) + compare one walked character
        ("self.name.startsWith('ab')", 3),
        ("self.name.contains('ab')", 12),  # 10 steps of the name x 1 of the text + 2 reads
        ("self.name.lowerAscii() == 'x'", 13),
        ("self.code.matches('^[A-Z]+$')", 4),  # 1 x ceil(7 x 0.25) + 2 reads
        ("self.tags.all(t, t.size() < 5)", 2 + 1 + 10 * (1 + 1 + 1 + 1 + 1 + 1)),
        ("size(self.tags) < 3 ? true : self.name == 'x'", 3 + 1 + 3),
        # the list literal, then per item: the loop condition (3) and the step (3); the result
        ("[1, 2, 3].exists(x, x == 2)", 10 + 3 * (3 + 3) + 1),
        ("self.code in data.ids", 1 + 1 + 1 + 1),
        ("self.code.lowerAscii() in data.ids", 2 + 1 + 1 + 5000),
        ("cel.bind(n, self.name, n == 'x')", 10 + 2 + 2),  # its empty range is a list literal
    ],
)
def test_costs(source: str, cost: int) -> None:
    outcome = _estimate(source)
    assert outcome.problems == []
    assert outcome.cost == cost


def test_unbounded_list_is_over_budget() -> None:
    outcome = _estimate("self.many.all(t, t.size() < 5)")
    [problem] = outcome.problems
    assert problem.code == "cost" and problem.severity == "error"
    assert "self.many has no maxItems (at #/properties/many)" in problem.message
    assert problem.hint == (
        "add maxItems to the schema at #/properties/many, or raise cost_budget in [business]"
    )
    items = (UNBOUNDED_BYTES - 2) // (2 + 1)
    assert f"{items:,} items are assumed" in problem.message


def test_unbounded_string_is_over_budget() -> None:
    [problem] = _estimate("self.free.contains('x')").problems
    assert "self.free has no maxLength (at #/properties/free)" in problem.message
    assert _estimate("self.free.startsWith('x')").problems == []  # walks only its argument
    assert _estimate("self.free.size() > 1").problems == []


def test_budget_is_configurable() -> None:
    assert _estimate("self.free.contains('x')", budget=None).problems == []
    assert _estimate("self.free.contains('x')", budget=10**9).problems == []
    [problem] = _estimate("self.name.contains('ab')", budget=5).problems
    assert problem.code == "cost" and "even within the schema's bounds" in problem.message


def test_items_of_an_unbounded_string_list_name_the_items() -> None:
    schema = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
        "required": ["xs"],
    }
    args = SchemaTyper(schema).type_of(schema)
    types = RuleTypes({"self": Binding(args, ("args",))}, frozenset())
    outcome = check_expression(
        _ENV.compile("self.xs.all(x, x.contains('a'))"), types, {}, wanted="bool"
    )
    [problem] = outcome.problems
    assert "the items of self.xs has no maxLength (at #/properties/xs/items)" in problem.message


def test_iterations_past_the_runtime_limit_warn() -> None:
    outcome = _estimate("self.big.all(x, x > 0)")
    [problem] = outcome.problems
    assert problem.code == "iterations" and problem.severity == "warning"
    assert f"stops an evaluation at {RUNTIME_ITERATIONS:,}" in problem.message
    nested = _estimate("self.grid.all(row, row.all(x, x >= 0))")
    assert nested.iterations == 200 + 200 * 200
    assert [p.code for p in nested.problems] == ["iterations"]
    assert _estimate("self.tags.all(t, t != '')").iterations == 10
