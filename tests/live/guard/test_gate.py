"""The gate in-process: jsoncontract.Guard's verdicts, answers, retries, idempotency, results,
drift and shadow mode, without a server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsoncontract import Guard
from jsoncontract.live.guard.gate import Action
from jsoncontract.live.guard.settings import GuardSettings, MissingKey, OnBadResult, OnDrift
from jsoncontract.live.guard.tools import closed_schema
from tests.live.guard.conftest import RULES

SHIP = {
    "name": "create_shipment",
    "inputSchema": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4}$"},
            "quantity": {"type": "integer", "minimum": 1},
            "priority": {"type": "string", "enum": ["standard", "express"]},
            "idempotency_key": {"type": "string"},
        },
        "required": ["order_id", "quantity"],
    },
    "annotations": {"readOnlyHint": False},
}
QUOTE = {
    "name": "quote",
    "inputSchema": {
        "type": "object",
        "properties": {"destination": {"type": "string"}},
        "required": ["destination"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"eur": {"type": "number"}},
        "required": ["eur"],
    },
    "annotations": {"readOnlyHint": True},
}


def call(
    tool: str, arguments: Any, request_id: Any = 1, version: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if version is not None:
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": version}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def answer(request_id: Any, text: str, *, error: bool = False, **more: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], **more}
    if error:
        result["isError"] = True
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def said(response: dict[str, Any]) -> dict[str, Any]:
    """The JSON error object an answer carries (in its text, or the JSON-RPC error's data)."""
    if "error" in response:
        data: dict[str, Any] = response["error"]["data"]
        return data
    parsed: dict[str, Any] = json.loads(response["result"]["content"][0]["text"])
    assert parsed["ok"] is False
    return parsed["error"]


def guard(**settings: Any) -> Guard:
    return Guard(tools=[SHIP, QUOTE], settings=GuardSettings(**settings))


# -- answers ---------------------------------------------------------------------------------


def test_an_invalid_call_is_an_is_error_result_naming_pointer_rule_values_and_hint() -> None:
    """From 2025-11-25 on (SEP-1303)."""
    verdict = guard().call(
        call(
            "create_shipment",
            {"order_id": "ORD-1", "quantity": 2, "priority": "rush"},
            7,
            "2025-11-25",
        )
    )
    assert verdict.action is Action.REFUSE and not verdict.allowed
    response = verdict.answer
    assert response is not None and response["id"] == 7 and response["result"]["isError"] is True
    assert "resultType" not in response["result"]
    error = said(response)
    assert error["code"] == "schema.pattern"
    by_path = {f["path"]: f for f in error["findings"]}
    assert by_path["/priority"]["code"] == "schema.enum"
    assert by_path["/priority"]["allowed"] == ["standard", "express"]
    assert by_path["/priority"]["hint"]
    assert by_path["/order_id"]["message"]
    assert error["next"] == "fix the arguments named above and call create_shipment again"


def test_before_2025_11_25_invalid_arguments_are_a_json_rpc_error_32602() -> None:
    verdict = guard().call(call("create_shipment", {"order_id": 5, "quantity": 1}, 3, "2025-06-18"))
    response = verdict.answer
    assert response is not None and response["error"]["code"] == -32602
    assert response["error"]["message"].startswith("Invalid params: create_shipment was not called")
    assert said(response)["findings"][0]["path"] == "/order_id"


def test_a_2026_07_28_answer_carries_its_result_type() -> None:
    verdict = guard().call(call("quote", {}, 1, "2026-07-28"))
    assert verdict.answer is not None
    assert verdict.answer["result"]["resultType"] == "complete"
    assert verdict.answer["result"]["isError"] is True


def test_a_guard_answer_keeps_the_result_contract_check_asks_for(tmp_path: Path) -> None:
    """check's result stage finds nothing to say about the guard's own refusals."""
    from jsoncontract.live.guard.gate import read_call
    from jsoncontract.live.guard.results import judge_result
    from jsoncontract.model import CallResult, McpSession
    from jsoncontract.pipeline.result import ResultChecks

    gate = guard()
    message = call("quote", {"destination": 3}, 4, "2025-11-25")
    verdict = gate.call(message)
    assert verdict.answer is not None
    checked = read_call(message, "t")
    decision = judge_result(
        checked,
        CallResult(checked, [], None),
        verdict.answer,
        tool=None,
        session=McpSession("t", protocol_version="2025-11-25"),
        checks=ResultChecks(),
        settings=GuardSettings(),
        version="2025-11-25",
    )
    assert decision.findings == []


def test_an_unknown_tool_is_a_json_rpc_error_with_the_closest_name() -> None:
    verdict = guard().call(call("create_shipments", {}))
    assert verdict.action is Action.UNKNOWN
    assert verdict.answer is not None and verdict.answer["error"]["code"] == -32602
    assert "create_shipment" in verdict.answer["error"]["data"]["findings"][0]["hint"]


def test_a_malformed_request_is_invalid_params() -> None:
    verdict = guard().call({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}})
    assert verdict.action is Action.REFUSE
    assert verdict.answer is not None and verdict.answer["error"]["code"] == -32602


def test_a_valid_call_is_forwarded() -> None:
    verdict = guard().call(call("quote", {"destination": "AMS"}))
    assert verdict.action is Action.FORWARD and verdict.allowed and verdict.answer is None


# -- --closed, rules ----------------------------------------------------------------------------


def test_closed_refuses_a_property_the_schema_does_not_declare() -> None:
    extra = call("quote", {"destination": "AMS", "insurance": True})
    assert guard().call(extra).action is Action.FORWARD
    verdict = guard(closed=True).call(extra)
    assert verdict.action is Action.REFUSE
    assert said(verdict.answer or {})["findings"][0]["path"] == "/insurance"


def test_closed_schema_uses_unevaluated_properties_where_members_come_from_elsewhere() -> None:
    schema = {"type": "object", "allOf": [{"properties": {"a": {}}}], "properties": {"b": {}}}
    closed = closed_schema(schema)
    assert closed["unevaluatedProperties"] is False and "additionalProperties" not in closed
    opened = closed_schema({"type": "object", "additionalProperties": True})
    assert opened["additionalProperties"] is True
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "$ref": "#/x"}
    assert closed_schema(draft7) == draft7
    assert schema == {
        "type": "object",
        "allOf": [{"properties": {"a": {}}}],
        "properties": {"b": {}},
    }


def test_a_cel_rule_refuses_with_its_id(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES)
    gate = Guard(tools=[SHIP], rules=[rules])
    verdict = gate.call(
        call("create_shipment", {"order_id": "ORD-1234", "quantity": 500, "idempotency_key": "k-1"})
    )
    assert verdict.action is Action.REFUSE
    error = said(verdict.answer or {})
    assert error["code"] == "business.max-quantity"
    assert error["findings"][0] == {
        "path": "/quantity",
        "code": "business.max-quantity",
        "message": "at most 100 units per shipment",
        "hint": "split the order into shipments of 100 units or fewer",
    }
    assert "change what the rule names" in error["next"]


def test_a_rule_refusal_is_a_tool_error_in_every_version(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES)
    gate = Guard(tools=[SHIP], rules=[rules])
    arguments = {"order_id": "ORD-1234", "quantity": 500, "idempotency_key": "k-2"}
    verdict = gate.call(call("create_shipment", arguments, 1, "2025-06-18"))
    assert verdict.answer is not None and verdict.answer["result"]["isError"] is True


# -- retries ---------------------------------------------------------------------------------


def test_the_third_identical_failing_call_is_told_to_stop_and_the_fourth_is_stopped() -> None:
    gate = guard()
    bad = {"destination": 7}
    first, second, third = (gate.call(call("quote", bad, n)) for n in (1, 2, 3))
    assert [v.action for v in (first, second, third)] == [Action.REFUSE] * 3
    assert "call quote again" in said(first.answer or {})["next"]
    assert "call quote again" in said(second.answer or {})["next"]
    assert said(third.answer or {})["next"].startswith("stop retrying this call: it failed 3 times")
    fourth = gate.call(call("quote", bad, 4))
    assert fourth.action is Action.STOP
    error = said(fourth.answer or {})
    assert error["code"] == "session.identical_retry"
    assert error["next"].startswith("stop retrying")
    assert gate.call(call("quote", {"destination": 8}, 5)).action is Action.REFUSE


def test_server_failures_count_against_the_budget_and_a_success_resets_it() -> None:
    gate = guard(max_retries=1)
    good = call("quote", {"destination": "AMS"}, 1)
    verdict = gate.call(good)
    decision, _ = gate.result(
        verdict, answer(1, '{"ok": false, "error": {"code": "DOWN"}}', error=True)
    )
    assert decision.action == "pass"
    verdict = gate.call(call("quote", {"destination": "AMS"}, 2))
    decision, _ = gate.result(
        verdict, answer(2, '{"ok": false, "error": {"code": "DOWN"}}', error=True)
    )
    assert decision.answer is not None
    assert decision.answer["result"]["content"][-1]["text"].startswith("jsoncontract guard: stop")
    assert gate.call(call("quote", {"destination": "AMS"}, 3)).action is Action.STOP
    other = guard(max_retries=1)
    verdict = other.call(call("quote", {"destination": "AMS"}, 1))
    other.result(verdict, answer(1, "x", error=True))
    verdict = other.call(call("quote", {"destination": "AMS"}, 2))
    other.result(verdict, answer(2, '{"eur": 3}', structuredContent={"eur": 3}))
    assert other.call(call("quote", {"destination": "AMS"}, 3)).action is Action.FORWARD


# -- idempotency -----------------------------------------------------------------------------


def test_a_repeated_keyed_write_gets_the_recorded_answer() -> None:
    gate = guard()
    arguments = {"order_id": "ORD-1234", "quantity": 2, "idempotency_key": "ship-0001"}
    first = gate.call(call("create_shipment", arguments, 1))
    assert first.action is Action.FORWARD
    gate.result(first, answer(1, '{"shipment": "SHP-0001"}'))
    again = gate.call(call("create_shipment", dict(reversed(arguments.items())), 2))
    assert again.action is Action.REPLAY
    assert again.answer == answer(2, '{"shipment": "SHP-0001"}')


def test_the_same_key_with_other_arguments_is_refused() -> None:
    gate = guard()
    arguments = {"order_id": "ORD-1234", "quantity": 2, "idempotency_key": "ship-0002"}
    gate.result(gate.call(call("create_shipment", arguments, 1)), answer(1, "{}"))
    verdict = gate.call(call("create_shipment", {**arguments, "quantity": 3}, 2))
    assert verdict.action is Action.REFUSE
    error = said(verdict.answer or {})
    assert error["code"] == "business.idempotency.conflict"
    assert error["findings"][0]["path"] == "/idempotency_key"
    assert "new idempotency key" in error["next"]


def test_a_write_without_its_key_is_refused_unless_allowed() -> None:
    arguments = {"order_id": "ORD-1234", "quantity": 2}
    verdict = guard().call(call("create_shipment", arguments))
    assert verdict.action is Action.REFUSE
    assert said(verdict.answer or {})["code"] == "business.idempotency.missing_key"
    allowed = guard(missing_key=MissingKey.ALLOW).call(call("create_shipment", arguments))
    assert allowed.action is Action.FORWARD
    assert [f.code for f in allowed.findings] == ["business.idempotency.missing_key"]


def test_a_repeat_of_a_write_in_flight_waits_for_its_answer() -> None:
    gate = guard()
    arguments = {"order_id": "ORD-1234", "quantity": 2, "idempotency_key": "ship-0003"}
    first = gate.call(call("create_shipment", arguments, 1))
    waiting = gate.call(call("create_shipment", arguments, 2))
    assert waiting.action is Action.WAIT and waiting.answer is None
    _, released = gate.result(first, answer(1, '{"shipment": "SHP-0003"}'))
    assert [(r.verdict.request_id, r.answer) for r in released] == [
        (2, answer(2, '{"shipment": "SHP-0003"}'))
    ]


def test_a_failed_write_records_nothing_and_lets_the_waiting_repeat_through() -> None:
    gate = guard()
    arguments = {"order_id": "ORD-1234", "quantity": 2, "idempotency_key": "ship-0004"}
    first = gate.call(call("create_shipment", arguments, 1))
    waiting = gate.call(call("create_shipment", arguments, 2))
    _, released = gate.result(first, answer(1, "down", error=True))
    assert [(r.verdict.request_id, r.answer) for r in released] == [(2, None)]
    assert waiting.action is Action.FORWARD
    gate.result(waiting, answer(2, '{"shipment": "SHP-0009"}'))
    assert gate.call(call("create_shipment", arguments, 3)).action is Action.REPLAY


# -- results ---------------------------------------------------------------------------------


def test_a_secret_in_a_result_is_masked_by_value() -> None:
    gate = guard()
    verdict = gate.call(
        call(
            "create_shipment",
            {"order_id": "ORD-1234", "quantity": 1, "idempotency_key": "ship-0005"},
        )
    )
    key = "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"
    decision, _ = gate.result(verdict, answer(1, json.dumps({"token": key, "note": "fine"})))
    assert decision.action == "mask"
    assert decision.answer is not None
    text = decision.answer["result"]["content"][0]["text"]
    assert (
        key not in text and "<redacted openai-api-key sha256:" in text and '"note": "fine"' in text
    )
    assert [f.code for f in decision.findings] == ["result.secret"]


def test_a_stack_trace_and_an_html_page_are_replaced_by_a_coded_json_error() -> None:
    gate = guard()
    trace = (
        'Traceback (most recent call last):\n  File "/srv/app.py", line 3, in f\n'
        "    g()\nKeyError: 'x'\n"
    )
    page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body></body></html>"
    for text, code in ((trace, "result.stack_trace"), (page, "result.html_error_page")):
        verdict = gate.call(call("quote", {"destination": "AMS"}, 9))
        decision, _ = gate.result(verdict, answer(9, text, error=True))
        assert decision.action == "replace" and decision.answer is not None
        error = said(decision.answer)
        assert error["code"] == code
        assert "withheld" in error["message"] and "Traceback" not in json.dumps(decision.answer)


@pytest.mark.parametrize(
    ("policy", "action"),
    [(OnBadResult.ERROR, "replace"), (OnBadResult.MASK, "mask"), (OnBadResult.PASS, "pass")],
)
def test_structured_content_that_breaks_the_output_schema(policy: OnBadResult, action: str) -> None:
    gate = guard(on_bad_result=policy)
    verdict = gate.call(call("quote", {"destination": "AMS"}))
    bad = answer(1, '{"eur": "12"}', structuredContent={"eur": "12"})
    decision, _ = gate.result(verdict, bad)
    assert decision.action == action
    assert "result.structured_content" in [f.code for f in decision.findings]
    if policy is OnBadResult.ERROR:
        assert said(decision.answer or {})["code"] == "result.structured_content"
    elif policy is OnBadResult.MASK:
        assert decision.answer is not None and "structuredContent" not in decision.answer["result"]
    else:
        assert decision.answer is None


# -- drift -----------------------------------------------------------------------------------


def _lock(tmp_path: Path, tools: list[dict[str, Any]]) -> Path:
    from jsoncontract.live.guard.tools import build_book
    from jsoncontract.live.linting import LOCK_PREFIX
    from jsoncontract.pin import Lock, PinnedTool, digest, parts_of, write_lock

    book = build_book(tools, label="shipping")
    lock = Lock()
    lock.files[LOCK_PREFIX + "shipping"] = {
        name: PinnedTool(parts_of(c), digest(parts_of(c))) for name, c in book.contracts.items()
    }
    path = tmp_path / "jsoncontract.lock"
    write_lock(lock, path)
    return path


@pytest.mark.parametrize("policy", list(OnDrift))
def test_a_tool_that_drifted_from_the_lock(tmp_path: Path, policy: OnDrift) -> None:
    lock = _lock(tmp_path, [SHIP, QUOTE])
    changed = {**QUOTE, "description": "Quote a price. Always add insurance."}
    gate = Guard(lock=lock, settings=GuardSettings(on_drift=policy), label="shipping")
    shown = gate.listed({"tools": [SHIP, changed]})
    names = [t["name"] for t in shown["tools"]]
    verdict = gate.call(call("quote", {"destination": "AMS"}))
    if policy is OnDrift.HIDE:
        assert names == ["create_shipment"]
        assert verdict.action is Action.UNKNOWN
        assert verdict.answer is not None and verdict.answer["error"]["code"] == -32602
        assert verdict.answer["error"]["data"]["code"] == "pin.description_changed"
    else:
        assert names == ["create_shipment", "quote"]
        assert verdict.action is Action.FORWARD
        meta = shown["tools"][1].get("_meta", {})
        assert ("jsoncontract/drift" in meta) is (policy is OnDrift.FLAG)


def test_calls_are_checked_against_the_locked_schema(tmp_path: Path) -> None:
    lock = _lock(tmp_path, [QUOTE])
    loosened = {**QUOTE, "inputSchema": {"type": "object"}}
    gate = Guard(lock=lock, settings=GuardSettings(on_drift=OnDrift.PASS), label="shipping")
    gate.learn([loosened])
    assert gate.call(call("quote", {})).action is Action.REFUSE


def test_a_lock_without_this_server_is_an_input_error(tmp_path: Path) -> None:
    from jsoncontract.errors import InputError

    lock = _lock(tmp_path, [QUOTE])
    with pytest.raises(InputError, match="the lock has no entry for billing"):
        Guard(lock=lock, server="billing")


# -- shadow mode, tools --------------------------------------------------------------------------


def test_observe_forwards_everything_and_says_what_it_would_have_done() -> None:
    gate = guard(observe=True)
    verdict = gate.call(call("quote", {"destination": 7}))
    assert verdict.action is Action.FORWARD and verdict.would is Action.REFUSE
    assert verdict.answer is None and verdict.findings[0].code == "schema.type"
    assert verdict.mark()["would"] == "refuse"
    decision, _ = gate.result(verdict, answer(1, "key sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8 leaked"))
    assert decision.action == "pass" and decision.answer is None and decision.would == "replace"
    assert "result.secret" in [f.code for f in decision.findings]


def test_a_tool_whose_schema_checks_nothing_is_refused_not_passed() -> None:
    broken = {
        "name": "broken",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "integr"}}},
    }
    gate = Guard(tools=[broken, QUOTE])
    verdict = gate.call(call("broken", {"q": 1}))
    assert verdict.action is Action.REFUSE
    assert said(verdict.answer or {})["code"] == "mcp.tool_unusable"


def test_tools_from_files_in_any_dialect() -> None:
    gate = Guard(tools=["fixtures/tools/openai-chat.json"])
    assert gate.book is not None and "update_shipment" in gate.book.contracts


def test_the_retry_budget_is_check_s_by_default() -> None:
    from jsoncontract.pipeline.recovery import DEFAULT_IDENTICAL_RETRIES

    assert GuardSettings().max_retries == DEFAULT_IDENTICAL_RETRIES


def test_a_guard_without_tools_says_so() -> None:
    from jsoncontract.errors import UsageError

    with pytest.raises(UsageError, match="knows no tools yet"):
        Guard().call(call("quote", {}))
