"""The result gate: each check fires on the result that breaks it, and stays silent on the
one that keeps it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import Severity, Stage
from jsoncontract.pipeline import codes as code_table
from jsoncontract.pipeline.result import CODES, ResultChecks, ResultContract, ResultSettings
from jsoncontract.settings import Config
from tests.pipeline.traffic import (
    answer,
    codes,
    exchange,
    failure,
    findings,
    initialize,
    listing,
    request,
    run,
)

WEATHER = {"city": "Paris"}
REFUND = {"payment_id": "pay_1", "amount": 12.5, "idempotency_key": "k-1"}


def result_codes(where: Path, lines: list[Any], **options: Any) -> list[str]:
    return codes(run(where, lines, **options), "result.")


def test_every_code_is_in_the_catalog() -> None:
    assert set(CODES) <= set(code_table.RESULT_CODES)


# -- structured content --------------------------------------------------------------------


def test_structured_content_that_keeps_the_output_schema_is_silent(tmp_path: Path) -> None:
    lines = [*initialize(), *exchange(1, "get_weather", WEATHER, structured={"temp_c": 21})]
    report = run(tmp_path, lines)
    assert codes(report) == []
    assert report.results[0].call.result is not None


def test_structured_content_breaking_the_output_schema(tmp_path: Path) -> None:
    lines = [*initialize(), *exchange(1, "get_weather", WEATHER, structured={"temp_c": "warm"})]
    report = run(tmp_path, lines)
    (found,) = findings(report, "result.structured_content")
    assert found.path == "/result/structuredContent/temp_c"
    assert found.stage is Stage.RESULT and found.severity is Severity.ERROR
    assert found.source is not None and found.source.line == 4  # the response's line
    assert report.results[0].stage is Stage.RESULT


def test_an_error_result_is_not_held_to_the_output_schema(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        *exchange(1, "get_weather", WEATHER, text='{"code": "NO_STATION"}', error=True),
    ]
    assert result_codes(tmp_path, lines) == []


def test_output_schema_declared_but_no_structured_content(tmp_path: Path) -> None:
    lines = [*initialize(), *exchange(1, "get_weather", WEATHER, text='{"temp_c": 21}')]
    assert result_codes(tmp_path, lines) == ["result.structured_content_missing"]


def test_text_mirror_missing_and_differing(tmp_path: Path) -> None:
    def mirror(text: str | None) -> list[Any]:
        lines = [
            *initialize(),
            *exchange(1, "get_weather", WEATHER, structured={"temp_c": 3}, text=text),
        ]
        return findings(run(tmp_path, lines), "result.text_mirror")

    (missing,) = mirror(None)
    assert missing.severity is Severity.INFO
    assert [f.severity for f in mirror("3 degrees")] == [Severity.INFO]
    (differs,) = mirror('{"temp_c": 4}')
    assert differs.severity is Severity.WARNING and differs.path == "/result/content/0/text"
    assert mirror('{ "temp_c" : 3 }') == []  # the same JSON, spelt differently, is a mirror


# -- the MCP envelope and JSON-RPC errors ---------------------------------------------------


def test_a_result_breaking_the_call_tool_result_schema(tmp_path: Path) -> None:
    broken = answer(1, text="hi")
    broken["result"]["content"] = [{"type": "text"}]  # a text block without text
    lines = [*initialize(), request(1, "lookup_order", {"order_id": "O-1"}), broken]
    (found,) = findings(run(tmp_path, lines), "result.envelope")
    assert found.path.startswith("/result/content/0")


def test_error_objects(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        request(1, "lookup_order", {"order_id": "O-1"}),
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32500, "message": "x"}},
        request(2, "lookup_order", {"order_id": "O-2"}),
        {"jsonrpc": "2.0", "id": 2, "error": {"code": 404}},
        request(3, "lookup_order", {"order_id": "O-3"}),
        failure(3, -32603, "Internal error"),
    ]
    assert result_codes(tmp_path, lines) == ["result.reserved_error_code", "result.malformed_error"]


# -- invalid arguments for the negotiated version -------------------------------------------


@pytest.mark.parametrize(
    ("version", "answered", "expected"),
    [
        ("2025-11-25", "isError", []),
        ("2025-11-25", "-32602", ["result.invalid_arguments_answer"]),
        ("2025-06-18", "-32602", []),
        ("2025-06-18", "isError", ["result.invalid_arguments_answer"]),
        ("2025-06-18", "-32603", ["result.invalid_arguments_answer"]),
        ("2026-07-28", "-32602", ["result.invalid_arguments_answer"]),
    ],
)
def test_invalid_arguments_answered_for_the_version(
    tmp_path: Path, version: str, answered: str, expected: list[str]
) -> None:
    reply = (
        answer(1, text='{"code": "INVALID", "message": "city must be a string"}', error=True)
        if answered == "isError"
        else failure(1, int(answered))
    )
    lines = [*initialize(version), request(1, "get_weather", {"city": 7}), reply]
    report = run(tmp_path, lines)
    assert report.results[0].stage is Stage.SCHEMA  # the arguments' own failure is first
    assert [c for c in result_codes(tmp_path, lines) if c != "result.error_without_code"] == (
        expected
    )


def test_valid_arguments_rejected_say_nothing_of_the_version(tmp_path: Path) -> None:
    lines = [*initialize("2025-11-25"), request(1, "get_weather", WEATHER), failure(1, -32602)]
    assert result_codes(tmp_path, lines) == []


def test_without_a_version_the_answer_is_not_judged_unless_configured(tmp_path: Path) -> None:
    lines = [request(1, "get_weather", {"city": 7}), failure(1, -32602)]
    assert result_codes(tmp_path, lines) == []
    assumed = ResultChecks(ResultSettings(protocol_version="2025-11-25"))
    assert result_codes(tmp_path, lines, results=assumed) == ["result.invalid_arguments_answer"]


def test_an_unlisted_tool_answered_with_a_result(tmp_path: Path) -> None:
    lines = [
        *initialize(),
        *listing(1),
        *exchange(2, "get_forecast", WEATHER, text="unknown tool", error=True),
        *exchange(3, "get_forecasts", WEATHER),
        request(4, "get_forecast_v2", WEATHER),
        failure(4, -32602, "Unknown tool: get_forecast_v2"),
    ]
    report = run(tmp_path, lines)
    answers = findings(report, "result.unknown_tool_answer")
    assert [(f.tool, f.severity) for f in answers] == [
        ("get_forecast", Severity.WARNING),
        ("get_forecasts", Severity.ERROR),
    ]


# -- the result contract --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "error", "expected"),
    [
        ({"ok": True, "data": {"id": 1}}, False, []),
        ({"ok": False, "error": {"code": "NOT_FOUND", "message": "no order"}}, True, []),
        ({"ok": False, "error": {"code": 404, "message": "no order"}}, False, []),
        ({"error": "no such order", "code": "NOT_FOUND"}, False, []),
        ({"temperature": 3}, False, []),  # not an envelope, none required
        ({"ok": "yes", "data": 1}, False, ["result.contract"]),
        ({"ok": True, "error": {"code": "X"}}, False, ["result.contract"]),
        ({"ok": False}, False, ["result.contract", "result.error_without_code"]),
        ({"ok": True, "data": 1}, True, ["result.contract", "result.error_without_code"]),
        ({"ok": False, "error": "no such order"}, False, ["result.error_without_code"]),
        (
            {"ok": False, "error": {"message": "no such order"}},
            False,
            ["result.error_without_code"],
        ),
        (
            {"ok": False, "error": {"code": "the order was not found", "message": "x"}},
            False,
            ["result.error_without_code"],
        ),
        ({"detail": "no such order"}, True, ["result.error_without_code"]),
    ],
)
def test_the_default_contract(
    tmp_path: Path, payload: dict[str, Any], error: bool, expected: list[str]
) -> None:
    lines = [
        *exchange(1, "lookup_order", {"order_id": "O-1"}, text=json.dumps(payload), error=error)
    ]
    assert result_codes(tmp_path, lines) == expected


def test_an_error_result_in_prose_has_no_code(tmp_path: Path) -> None:
    lines = exchange(1, "lookup_order", {"order_id": "O-1"}, text="Order not found.", error=True)
    (found,) = findings(run(tmp_path, lines), "result.error_without_code")
    assert found.path == "/result/content"


def test_a_configured_contract(tmp_path: Path) -> None:
    contract = ResultContract(
        ok=("success",), error=("failure",), data=("payload",), code=("reason",), required=True
    )
    gate = ResultChecks(ResultSettings(contract=contract))
    good = {"success": False, "failure": {"reason": "OUT_OF_STOCK"}}
    bare = {"id": 1}
    lines = [
        *exchange(1, "lookup_order", {"order_id": "O-1"}, text=json.dumps(good), error=True),
        *exchange(2, "lookup_order", {"order_id": "O-2"}, text=json.dumps(bare)),
    ]
    report = run(tmp_path, lines, results=gate)
    assert [[f.code for f in r.findings] for r in report.results] == [[], ["result.contract"]]
    assert "'success'" in report.results[1].findings[0].message


def test_contract_from_config_and_severities(tmp_path: Path) -> None:
    config = Config(
        None,
        {
            "results": {
                "contract": {"ok": ["success"], "required": True},
                "severity": {"result.contract": "error", "result.error_without_code": "off"},
                "leaks": False,
                "protocol_version": "2025-06-18",
            }
        },
    )
    gate = ResultChecks.from_config(config)
    assert gate.settings.contract is not None and gate.settings.contract.ok == ("success",)
    assert gate.settings.protocol_version == "2025-06-18" and not gate.settings.leaks
    lines = exchange(1, "lookup_order", {"order_id": "O-1"}, text='{"success": 1}', error=True)
    report = run(tmp_path, lines, results=gate)
    assert [(f.code, f.severity) for f in report.results[0].findings] == [
        ("result.contract", Severity.ERROR)
    ]
    off = ResultChecks.from_config(Config(None, {"results": {"contract": {"enabled": False}}}))
    assert off.settings.contract is None


# -- leaks ----------------------------------------------------------------------------------

TRACE = 'Traceback (most recent call last):\n  File "/srv/shop.py", line 9, in refund\nKeyError'
KEY = "sk-proj-" + "abcdefghij" * 4


def test_a_stack_trace_a_page_and_a_secret(tmp_path: Path) -> None:
    page = "<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head></html>"
    lines = [
        *exchange(1, "lookup_order", {"order_id": "O-1"}, text=TRACE, error=True),
        *exchange(2, "lookup_order", {"order_id": "O-2"}, text=page),
        *exchange(3, "lookup_order", {"order_id": "O-3"}, text=f"debug: OPENAI_API_KEY={KEY}"),
    ]
    report = run(tmp_path, lines)
    trace, page_found, secret = (
        findings(report, c)[0]
        for c in ("result.stack_trace", "result.html_error_page", "result.secret")
    )
    assert (trace.keyword, trace.path) == ("python", "/result/content/0/text")
    assert "503 Service Unavailable" in page_found.message
    assert secret.keyword == "openai-api-key" and "sha256:" in secret.message
    every = json.dumps(report.to_dict())
    assert KEY not in every and "KeyError" not in every


def test_a_trace_in_json_inside_text_and_in_structured_content(tmp_path: Path) -> None:
    payload = {"ok": False, "error": {"code": "CRASH", "stack": TRACE}}
    lines = [
        *exchange(1, "lookup_order", {"order_id": "O-1"}, text=json.dumps(payload), error=True),
        *exchange(2, "get_weather", WEATHER, structured={"temp_c": 1, "debug": TRACE}, text=None),
    ]
    report = run(tmp_path, lines)
    assert [f.path for f in findings(report, "result.stack_trace")] == [
        "/result/content/0/text",
        "/result/structuredContent/debug",
    ]


def test_one_secret_in_text_and_structured_content_is_one_finding(tmp_path: Path) -> None:
    structured = {"temp_c": 1, "token": f"Bearer {KEY}"}
    lines = exchange(1, "get_weather", WEATHER, structured=structured)
    (found,) = findings(run(tmp_path, lines), "result.secret")
    assert "and 1 more place" in found.message


def test_leaks_in_a_json_rpc_error(tmp_path: Path) -> None:
    lines = [
        request(1, "lookup_order", {"order_id": "O-1"}),
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32603, "message": "Internal error", "data": {"trace": TRACE}},
        },
    ]
    (found,) = findings(run(tmp_path, lines), "result.stack_trace")
    assert found.path == "/error/data/trace"


def test_clean_results_and_leaks_off(tmp_path: Path) -> None:
    lines = exchange(1, "lookup_order", {"order_id": "O-1"}, text=TRACE, error=True)
    quiet = ResultChecks(ResultSettings(leaks=False, contract=None))
    assert result_codes(tmp_path, lines, results=quiet) == []
    assert result_codes(tmp_path, lines, results=None) == []


def test_model_hop_results(tmp_path: Path) -> None:
    history = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "status of O-1?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "lookup_order", "arguments": '{"order_id": "O-1"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": TRACE},
        ],
    }
    report = run(tmp_path, [history], name="history.jsonl")
    assert codes(report, "result.") == ["result.stack_trace"]
    assert report.results[0].call.hop is not None and report.results[0].call.hop.value == "model"


def test_leaks_nested_deep_in_a_result_are_found(tmp_path: Path) -> None:
    """However deep the JSON reader lets a result nest, its leaks are searched for."""
    page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>"
    nested: Any = [TRACE, page]
    for _ in range(300):
        nested = [nested]
    structured = {"temp_c": 1, "debug": nested}
    lines = exchange(1, "get_weather", WEATHER, structured=structured, text=None)
    found = {f.code: f.path for f in run(tmp_path, lines).results[0].findings}
    assert found["result.stack_trace"].startswith("/result/structuredContent/debug/0/0/")
    assert "result.html_error_page" in found
