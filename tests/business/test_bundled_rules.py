"""Every rule of the bundled example (fixtures/rules/shipping.toml), firing and passing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jsoncontract.business import BusinessRules, load_business
from jsoncontract.tools import ToolSet

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "fixtures" / "rules" / "shipping.toml"

SHIPMENT = {"order_id": "ORD-204117", "priority": "standard", "idempotency_key": "k-00000001"}

# (name, tool, arguments, context, expected codes with paths)
SCENARIOS: list[tuple[str, str, dict[str, Any], dict[str, Any], list[tuple[str, str]]]] = [
    (
        "dates in order, one month",
        "searchInvoices",
        {"startDate": "2025-10-01", "endDate": "2025-10-31"},
        {},
        [],
    ),
    (
        "the same day",
        "searchInvoices",
        {"startDate": "2025-10-31", "endDate": "2025-10-31"},
        {},
        [],
    ),
    (
        "end before start",
        "searchInvoices",
        {"startDate": "2025-10-31", "endDate": "2025-10-01"},
        {},
        [("business.date-order", "/endDate")],
    ),
    (
        "31 days is the most",
        "searchInvoices",
        {"startDate": "2025-01-01", "endDate": "2025-01-31"},
        {},
        [],
    ),
    (
        "32 days is too many",
        "searchInvoices",
        {"startDate": "2025-01-01", "endDate": "2025-02-01"},
        {},
        [("business.date-range-max-31-days", "/endDate")],
    ),
    ("order exists", "update_shipment", SHIPMENT, {}, []),
    (
        "order does not exist",
        "update_shipment",
        {**SHIPMENT, "order_id": "ORD-000001"},
        {},
        [("business.order-exists", "/order_id")],
    ),
    (
        "order already shipped",
        "update_shipment",
        {**SHIPMENT, "order_id": "ORD-310443"},
        {},
        [("business.order-still-open", "/order_id")],
    ),
    (
        "expedited by ops",
        "update_shipment",
        {**SHIPMENT, "priority": "expedited"},
        {"role": "ops"},
        [],
    ),
    (
        "expedited by support",
        "update_shipment",
        {**SHIPMENT, "priority": "expedited"},
        {"role": "support"},
        [("business.expedited-needs-ops", "/priority")],
    ),
    (
        "expedited with no role at all",
        "update_shipment",
        {**SHIPMENT, "priority": "expedited"},
        {},
        [("business.expedited-needs-ops", "/priority")],
    ),
    (
        "positive amount in a known currency",
        "update_shipment",
        {**SHIPMENT, "declared_value": {"amount": 12.5, "currency": "CHF"}},
        {},
        [],
    ),
    (
        "zero amount",
        "update_shipment",
        {**SHIPMENT, "declared_value": {"amount": 0, "currency": "EUR"}},
        {},
        [("business.declared-amount-positive", "/declared_value/amount")],
    ),
    (
        "unknown currency",
        "update_shipment",
        {**SHIPMENT, "declared_value": {"amount": 3, "currency": "XAU"}},
        {},
        [("business.declared-currency-known", "/declared_value/currency")],
    ),
    (
        "overnight, customer told",
        "update_shipment",
        {**SHIPMENT, "priority": "overnight", "notify_customer": True},
        {},
        [],
    ),
    (
        "overnight, customer not told (warning)",
        "update_shipment",
        {**SHIPMENT, "priority": "overnight"},
        {},
        [("business.overnight-notifies-customer", "/notify_customer")],
    ),
    (
        "postal code in its country's format (Python rule)",
        "update_shipment",
        {
            **SHIPMENT,
            "address": {"line1": "a", "city": "Porto", "postal_code": "4050-265", "country": "PT"},
        },
        {},
        [],
    ),
    (
        "postal code in another format (Python rule)",
        "update_shipment",
        {
            **SHIPMENT,
            "address": {"line1": "a", "city": "Porto", "postal_code": "4050", "country": "PT"},
        },
        {},
        [("business.postal-code-format", "/address/postal_code")],
    ),
]


@pytest.fixture(scope="module")
def gate(tools: ToolSet) -> BusinessRules:
    built = load_business([RULES], tools=tools)
    assert built.warnings == []
    return built


@pytest.mark.parametrize(
    ("tool", "arguments", "context", "expected"),
    [s[1:] for s in SCENARIOS],
    ids=[s[0] for s in SCENARIOS],
)
def test_bundled_rule(
    gate: BusinessRules,
    tools: ToolSet,
    bz: Any,
    tool: str,
    arguments: dict[str, Any],
    context: dict[str, Any],
    expected: list[tuple[str, str]],
) -> None:
    contract = tools.get(tool)
    assert contract is not None
    call = bz.make_call(tool, arguments, context=context, call_id=None)
    findings = [f for f in gate.check(call, arguments, contract) if f.keyword != "idempotency"]
    assert [(f.code, f.path) for f in findings] == expected
    for finding in findings:
        assert finding.stage is not None and finding.stage.value == "business"
        assert finding.message
        assert finding.schema_path is not None and finding.schema_path.startswith(str(RULES))


def test_every_bundled_rule_is_exercised(gate: BusinessRules) -> None:
    fired = {code for s in SCENARIOS for code, _ in s[4]}
    defined = {rule.code for rules in gate.rules.rules.values() for rule in rules}  # type: ignore[union-attr]
    assert defined == fired


def test_messages_quote_values(gate: BusinessRules, tools: ToolSet, bz: Any) -> None:
    arguments = {"startDate": "2025-07-01", "endDate": "2025-09-30"}
    contract = tools.get("searchInvoices")
    assert contract is not None
    (finding,) = gate.check(bz.make_call("searchInvoices", arguments), arguments, contract)
    assert finding.message == (
        "the range covers 92 days; at most 31 are allowed (both dates included)"
    )
    assert finding.hint == "split the search into calendar months"
    assert finding.severity.value == "error"


def test_readme_shows_real_output() -> None:
    section = (REPO / "docs" / "commands" / "business.md").read_text(encoding="utf-8")
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    produced = (REPO / "tests" / "golden" / "business-example.txt").read_text(encoding="utf-8")
    lines = [line for line in shown.splitlines() if line and line != "..."]
    assert len(lines) > 10
    for line in lines:
        assert line in produced.splitlines(), line
    rules = (REPO / "fixtures" / "rules" / "shipping.toml").read_text(encoding="utf-8")
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    for line in example.splitlines():
        code = line.split("#", 1)[0].strip()
        if code.startswith(("rule =", "id =", "scope =", "python =")):
            assert code in rules, code
