"""Business rules that read ``result``: typed from the tool's outputSchema, run only on calls
with a successful result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jsoncontract import check
from jsoncontract.business import BusinessRules, load_rules
from jsoncontract.business.rules import RulesError, check_rules
from jsoncontract.tools import ToolSet
from tests.pipeline.traffic import exchange, initialize, request, run, tools_file

REFUND = {"payment_id": "pay_1", "amount": 25, "idempotency_key": "k"}
RULE = """
[[tools.refund_payment]]
id = "refund-amount"
rule = "result.amount == args.amount"
message = "the refund's result amount differs from the requested amount"
"""


def _gate(where: Path, text: str) -> BusinessRules:
    rules = where / "rules.toml"
    rules.write_text(text)
    return BusinessRules(load_rules([rules], tools=ToolSet.from_paths([tools_file(where)])))


def test_a_result_invariant(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        *exchange(1, "refund_payment", REFUND, structured={"refund_id": "r1", "amount": 25}),
        *exchange(2, "refund_payment", REFUND, structured={"refund_id": "r2", "amount": 2.5}),
        *exchange(
            3, "refund_payment", REFUND, text='{"ok": false, "error": {"code": "X"}}', error=True
        ),
        request(4, "refund_payment", REFUND),
    ]
    report = run(tmp_path, lines, business=_gate(tmp_path, RULE))
    found = [
        [f.code for f in r.findings if f.code.startswith("business.refund")] for r in report.results
    ]
    # the error result and the unanswered call say nothing of the rule
    assert found == [[], ["business.refund-amount"], [], []]
    assert report.results[1].findings[0].message == (
        "the refund's result amount differs from the requested amount"
    )


def test_result_from_a_json_text_at_the_model_hop(tmp_path: Path) -> None:
    history = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "refund"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_r",
                        "type": "function",
                        "function": {
                            "name": "refund_payment",
                            "arguments": json.dumps(REFUND),
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_r",
                "content": '{"refund_id": "r", "amount": 20}',
            },
        ],
    }
    report = run(tmp_path, [history], name="h.jsonl", business=_gate(tmp_path, RULE))
    assert [f.code for f in report.results[0].findings] == ["business.refund-amount"]


def test_result_is_typed_from_the_output_schema(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULE.replace("result.amount ==", "result.amount + 'x' =="))
    with pytest.raises(RulesError, match=r"result\.amount"):
        load_rules([rules], tools=ToolSet.from_paths([tools_file(tmp_path)]))
    rules.write_text(RULE.replace("result.amount", "result.amont"))
    report = check_rules([rules], tools=ToolSet.from_paths([tools_file(tmp_path)]))
    assert any("did you mean 'amount'" in d.message for d in report.diagnostics)


def test_a_tool_without_output_schema_reads_result_dynamically(tmp_path: Path) -> None:
    rule = '[[tools.lookup_order]]\nid = "open"\nrule = "result.status == \'open\'"\n'
    lines = [
        *exchange(1, "lookup_order", {"order_id": "O-1"}, text='{"status": "open"}'),
        *exchange(2, "lookup_order", {"order_id": "O-2"}, text='{"status": "closed"}'),
        *exchange(3, "lookup_order", {"order_id": "O-3"}, text="closed, sorry"),
    ]
    report = run(tmp_path, lines, business=_gate(tmp_path, rule))
    assert [[f.code for f in r.findings if f.code == "business.open"] for r in report.results] == [
        [],
        ["business.open"],
        [],
    ]


def test_rules_without_result_run_on_every_call(tmp_path: Path) -> None:
    rule = '[[tools.lookup_order]]\nid = "prefix"\nrule = "args.order_id.startsWith(\'O-\')"\n'
    capture = tmp_path / "t.jsonl"
    capture.write_text(json.dumps(request(1, "lookup_order", {"order_id": "X"})) + "\n")
    report = check([capture], tools=[tools_file(tmp_path)], business=_gate(tmp_path, rule))
    assert [f.code for f in report.results[0].findings] == ["business.prefix"]
