"""The turn and session contracts: each fires on the run that breaks it and stays silent on
the one that keeps it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import Hop, Severity
from jsoncontract.pipeline import codes as code_table
from jsoncontract.pipeline.contracts import CHECKS, SessionContracts, SessionSettings
from jsoncontract.pipeline.recovery import changed_paths
from jsoncontract.settings import Config
from jsoncontract.tools import ToolSet
from tests.pipeline.traffic import (
    TOOLS,
    answer,
    codes,
    exchange,
    failure,
    findings,
    initialize,
    listing,
    request,
    run,
    tools_file,
)

REFUND = {"payment_id": "pay_1", "amount": 12.5, "idempotency_key": "k-1"}


def session_codes(where: Path, lines: list[Any], **options: Any) -> list[str]:
    return codes(run(where, lines, **options), "session.")


def test_every_code_is_in_the_catalog_and_the_config_schema() -> None:
    schema = json.loads(
        (
            Path(__file__).resolve().parents[2] / "jsoncontract/schemas/config/session.json"
        ).read_text()
    )
    assert set(schema["properties"]["severity"]["propertyNames"]["enum"]) == set(
        code_table.SESSION_CODES
    )
    results = json.loads(
        (
            Path(__file__).resolve().parents[2] / "jsoncontract/schemas/config/results.json"
        ).read_text()
    )
    assert set(results["properties"]["severity"]["propertyNames"]["enum"]) == set(
        code_table.RESULT_CODES
    ) - {"result.malformed"}


def test_the_checks_table() -> None:
    assert list(CHECKS) == ["results", "turns", "listings", "pairing", "recovery"]
    gate = SessionContracts()
    assert len(gate.checks) == len(CHECKS) and gate.per_call


def test_a_clean_session_is_silent(tmp_path: Path) -> None:
    lines = [
        *initialize(list_changed=True),
        *listing(1),
        *exchange(2, "get_weather", {"city": "Oslo"}, structured={"temp_c": 4}),
        *exchange(3, "refund_payment", REFUND, structured={"refund_id": "r1", "amount": 12.5}),
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        *listing(4),
        *exchange(5, "lookup_order", {"order_id": "O-1"}, text='{"status": "open"}'),
    ]
    assert session_codes(tmp_path, lines) == []


# -- MCP sessions ---------------------------------------------------------------------------


def test_an_unlisted_tool(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        *listing(1, TOOLS[:1]),
        request(2, "lookup_order", {"order_id": "O"}),
        failure(2, -32602, "Unknown tool: lookup_order"),
    ]
    report = run(tmp_path, lines)
    (found,) = findings(report, "session.unlisted_tool")
    assert (found.tool, found.call_id, found.hop) == ("lookup_order", "2", Hop.MCP)
    assert found.source is not None and found.source.line == 5
    assert report.results[0].ok  # the call itself keeps its stage: run-level finding
    assert not report.ok
    # a session whose capture holds no list is not judged
    assert session_codes(tmp_path, exchange(1, "nope", {})) == []


def test_a_call_on_a_stale_list_and_a_changed_schema(tmp_path: Path) -> None:
    changed = [dict(TOOLS[0], inputSchema={"type": "object", "properties": {"town": {}}})]
    lines = [
        *initialize(list_changed=True),
        *listing(1),
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        *exchange(2, "get_weather", {"city": "Oslo"}, structured={"temp_c": 4}),
        *listing(3, changed + TOOLS[1:]),
        *exchange(4, "get_weather", {"city": "Oslo"}, structured={"temp_c": 4}),
    ]
    assert session_codes(tmp_path, lines) == [
        "session.stale_tool_list",
        "session.input_schema_changed",
    ]


def test_list_changed_without_the_capability(tmp_path: Path) -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    lines = [*initialize(list_changed=False), *listing(1), note, *listing(2), note, *listing(3)]
    assert session_codes(tmp_path, lines) == ["session.list_changed_undeclared"]  # once
    declared = [*initialize(list_changed=True), *listing(1), note, *listing(2)]
    assert session_codes(tmp_path, declared) == []
    unknown = [*listing(1), note, *listing(2)]  # no initialize: capabilities unknown
    assert session_codes(tmp_path, unknown) == []


def test_sessions_are_kept_apart(tmp_path: Path) -> None:
    first = [*initialize(), *listing(1, TOOLS[:1])]
    second = [*initialize(), *listing(1), *exchange(2, "lookup_order", {"order_id": "O"})]
    assert session_codes(tmp_path, first + second) == []


# -- calls without results ------------------------------------------------------------------


def test_calls_without_results(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        request(1, "lookup_order", {"order_id": "O-1"}),
        *exchange(2, "lookup_order", {"order_id": "O-2"}, text='{"status": "open"}'),
        request(3, "lookup_order", {"order_id": "O-3"}),
    ]
    report = run(tmp_path, lines)
    missing = findings(report, "session.missing_result")
    assert [(f.call_id, "later calls did" in f.message) for f in missing] == [
        ("1", True),
        ("3", False),
    ]
    # requests alone (a capture of the host's side only) miss nothing
    alone = [request(1, "lookup_order", {"order_id": "O-1"}), request(2, "send_email", {})]
    assert session_codes(tmp_path, alone) == []


def test_the_last_turn_of_a_conversation_is_not_missing_its_results(tmp_path: Path) -> None:
    def turn(call_id: str, order: str) -> dict[str, Any]:
        arguments = json.dumps({"order_id": order})
        function = {"name": "lookup_order", "arguments": arguments}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": function}],
        }

    history = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "status?"},
            turn("call_1", "O-1"),
            turn("call_2", "O-2"),
            {"role": "tool", "tool_call_id": "call_2", "content": "open"},
            turn("call_3", "O-3"),
        ],
    }
    report = run(tmp_path, [history], name="history.jsonl")
    assert [f.call_id for f in findings(report, "session.missing_result")] == ["call_1"]


# -- side effects in one turn ---------------------------------------------------------------


def _chat_turn(*calls: tuple[str, dict[str, Any]], turn: str = "") -> dict[str, Any]:
    """One response (a turn) with ``calls``; the calls of another ``turn`` have ids of
    their own (one id seen again with the same call is that call seen again)."""
    return {
        "id": f"chatcmpl-{turn}1",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{turn}{n}",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                        for n, (name, arguments) in enumerate(calls)
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }


EMAIL = ("send_email", {"to": "a@example.com", "body": "refunded"})
REFUND_CALL = ("refund_payment", REFUND)
CLOSE = ("close_ticket", {"ticket": "T-1"})
LOOKUP = ("lookup_order", {"order_id": "O-1"})


def test_side_effects_in_one_turn(tmp_path: Path) -> None:
    report = run(tmp_path, [_chat_turn(LOOKUP, REFUND_CALL, EMAIL, CLOSE)], name="turn.jsonl")
    found = findings(report, "session.parallel_side_effects")
    assert [(f.tool, f.call_id) for f in found] == [
        ("send_email", "call_2"),
        ("close_ticket", "call_3"),
    ]
    assert "refund_payment (payment)" in found[0].message
    assert "close_ticket (deletion)" not in found[1].message and "(destructive)" in found[1].message


def test_side_effects_in_separate_turns_and_reads_are_silent(tmp_path: Path) -> None:
    lines = [_chat_turn(REFUND_CALL, LOOKUP), _chat_turn(EMAIL, LOOKUP, turn="b")]
    assert session_codes(tmp_path, lines, name="turns.jsonl") == []


def test_side_effect_settings(tmp_path: Path) -> None:
    lines = [_chat_turn(REFUND_CALL, EMAIL)]
    only_payments = SessionContracts(
        ToolSet.from_paths([tools_file(tmp_path)]), SessionSettings(serial=frozenset({"payment"}))
    )
    assert session_codes(tmp_path, lines, name="t.jsonl", session=only_payments) == []
    listed = SessionContracts.from_config(
        Config(None, {"session": {"side_effects": {"payment": ["lookup_order"]}}}),
        ToolSet.from_paths([tools_file(tmp_path)]),
    )
    two = [_chat_turn(REFUND_CALL, LOOKUP)]
    assert session_codes(tmp_path, two, name="t.jsonl", session=listed) == [
        "session.parallel_side_effects"
    ]


# -- the reaction to an error ---------------------------------------------------------------

ERROR = '{"ok": false, "error": {"code": "DECLINED", "message": "the amount is over the limit"}}'


def test_identical_retries_beyond_the_threshold(tmp_path: Path) -> None:
    lines = [*initialize()]
    for n in range(1, 6):
        lines += exchange(n, "refund_payment", REFUND, text=ERROR, error=True)
    report = run(tmp_path, lines)
    (found,) = findings(report, "session.identical_retry")
    assert found.call_id == "4" and "retry 3 in a row" in found.message
    assert session_codes(tmp_path, lines[:8]) == []  # two retries are allowed
    strict = SessionContracts(settings=SessionSettings(identical_retries=0))
    assert session_codes(tmp_path, lines[:6], session=strict) == ["session.identical_retry"]


def test_a_success_ends_the_streak(tmp_path: Path) -> None:
    lines = [
        *exchange(1, "lookup_order", {"order_id": "O"}, text=ERROR, error=True),
        *exchange(2, "lookup_order", {"order_id": "O"}, text=ERROR, error=True),
        *exchange(3, "lookup_order", {"order_id": "O"}, text='{"status": "open"}'),
        *exchange(4, "lookup_order", {"order_id": "O"}, text='{"status": "open"}'),
        *exchange(5, "lookup_order", {"order_id": "O"}, text='{"status": "open"}'),
    ]
    assert session_codes(tmp_path, lines) == []


def test_a_retry_changing_what_the_error_did_not_name(tmp_path: Path) -> None:
    fixed = dict(REFUND, amount=10, idempotency_key="k-2")
    wandered = dict(REFUND, amount=10, payment_id="pay_2", idempotency_key="k-2")
    lines = [
        *exchange(1, "refund_payment", REFUND, text=ERROR, error=True),
        *exchange(2, "refund_payment", fixed, structured={"refund_id": "r", "amount": 10}),
        *exchange(3, "refund_payment", REFUND, text=ERROR, error=True),
        *exchange(4, "refund_payment", wandered, structured={"refund_id": "r", "amount": 10}),
    ]
    report = run(tmp_path, lines)
    (found,) = findings(report, "session.unrelated_change")
    assert found.call_id == "4" and found.path == "/payment_id"
    assert "changed /amount, which the error named" in found.message
    assert "pay_" not in found.message


def test_an_error_naming_a_path_by_member(tmp_path: Path) -> None:
    error = '{"ok": false, "error": {"code": "INVALID", "field": "amount"}}'
    lines = [
        *exchange(1, "refund_payment", REFUND, text=error, error=True),
        *exchange(2, "refund_payment", dict(REFUND, reason="dup", amount=1), text="ok"),
    ]
    assert [f.path for f in findings(run(tmp_path, lines), "session.unrelated_change")] == [
        "/reason"
    ]


def test_an_error_that_names_nothing_is_not_judged(tmp_path: Path) -> None:
    error = '{"ok": false, "error": {"code": "UNAVAILABLE"}}'
    lines = [
        *exchange(1, "refund_payment", REFUND, text=error, error=True),
        *exchange(2, "refund_payment", dict(REFUND, payment_id="pay_9"), text="ok"),
    ]
    assert session_codes(tmp_path, lines) == []


def test_a_write_retried_under_a_new_key(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        request(1, "refund_payment", REFUND),
        failure(1, -32603, "Internal error: upstream timed out"),
        *exchange(2, "refund_payment", dict(REFUND, idempotency_key="k-2"), text="ok"),
    ]
    report = run(tmp_path, lines)
    (found,) = findings(report, "session.new_idempotency_key")
    assert found.path == "/idempotency_key" and "k-2" not in found.message
    # a read retried with another request id is no write
    reads = [
        *exchange(
            1, "get_weather", {"city": "Oslo", "idempotency_key": "a"}, text=ERROR, error=True
        ),
        *exchange(2, "get_weather", {"city": "Oslo", "idempotency_key": "b"}, text="ok"),
    ]
    assert session_codes(tmp_path, reads) == []


def test_severity_settings_and_off(tmp_path: Path) -> None:
    lines = [*initialize(), *listing(1, TOOLS[:1]), *exchange(2, "lookup_order", {"order_id": "O"})]
    config = Config(None, {"session": {"severity": {"session.unlisted_tool": "warning"}}})
    gate = SessionContracts.from_config(config)
    (found,) = findings(run(tmp_path, lines, session=gate), "session.unlisted_tool")
    assert found.severity is Severity.WARNING
    off = SessionContracts.from_config(
        Config(None, {"session": {"severity": {"session.unlisted_tool": "off"}}})
    )
    assert session_codes(tmp_path, lines, session=off) == []


@pytest.mark.parametrize(
    ("before", "after", "paths"),
    [
        ({"a": 1, "b": {"c": 2}}, {"a": 1, "b": {"c": 3}}, ["/b/c"]),
        ({"a": 1}, {"b": 1}, ["/a", "/b"]),
        ({"l": [1, 2]}, {"l": [1, 3]}, ["/l/1"]),
        ({"l": [1, 2]}, {"l": [1]}, ["/l"]),
        ({"a~b": 1}, {"a~b": 2}, ["/a~0b"]),
    ],
)
def test_changed_paths(before: Any, after: Any, paths: list[str]) -> None:
    assert list(changed_paths(before, after)) == paths


def test_findings_come_in_capture_order(tmp_path: Path) -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    lines = [
        *initialize(list_changed=False),
        *listing(1, TOOLS[:1]),
        *exchange(2, "lookup_order", {"order_id": "O"}),
        note,
        answer(99, text="x"),
    ]
    assert session_codes(tmp_path, lines) == [
        "session.unlisted_tool",
        "session.list_changed_undeclared",
        "session.orphan_result",
    ]
