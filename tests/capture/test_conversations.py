"""Conversation captures: request bodies and histories of every provider, Batch files, and the
results they carry, attached to their calls; one call seen in several places is one call."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from jsoncontract import check
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.model import Dialect, EventKind, Hop, ToolCall, TraceEvent
from tests.conftest import FIXTURES

TOOLS = [FIXTURES / "tools"]
WEATHER = '{"city": "Oslo", "unit": "celsius"}'


def trace(path: Path) -> list[Any]:
    return list(CaptureReader().read_trace([path]))


def calls_of(path: Path) -> list[ToolCall]:
    return [item for item in trace(path) if isinstance(item, ToolCall)]


# -- OpenAI Chat ----------------------------------------------------------------------------

CHAT_RESPONSE = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": WEATHER},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Bergen"}'},
                    },
                ],
            },
        }
    ],
}
CHAT_REQUEST = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "Weather in Oslo and Bergen?"},
        CHAT_RESPONSE["choices"][0]["message"],  # type: ignore[index]
        {"role": "tool", "tool_call_id": "call_a", "content": '{"temp_c": 4}'},
        {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "7 C"}]},
    ],
    "tools": [],
}


def test_a_chat_request_history_holds_calls_and_their_results(
    write: Callable[..., Path],
) -> None:
    a, b = calls_of(write("request.json", CHAT_REQUEST))
    assert (a.call_id, a.dialect, a.hop) == ("call_a", Dialect.OPENAI_CHAT, Hop.MODEL)
    assert a.result is not None and a.result.content == '{"temp_c": 4}'
    assert b.result is not None and b.result.content == [{"type": "text", "text": "7 C"}]
    assert a.turn == b.turn is not None  # one assistant message, one turn
    assert a.result.in_history and a.result.source.line is not None


def test_the_response_then_the_next_request_is_one_call_per_call(
    write: Callable[..., Path],
) -> None:
    lines = [CHAT_RESPONSE, CHAT_REQUEST]
    path = write("gateway.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    got = calls_of(path)
    assert [(c.call_id, c.source.line) for c in got] == [("call_a", 1), ("call_b", 1)]
    assert all(c.result is not None and c.result.source.line == 2 for c in got)
    assert got[0].turn == got[1].turn == "chatcmpl-1/0"


def test_a_growing_history_is_read_once_per_call(write: Callable[..., Path]) -> None:
    second_turn = {
        **CHAT_REQUEST,
        "messages": [
            *CHAT_REQUEST["messages"],  # type: ignore[misc]
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_c",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Tromso"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_c", "content": "-3 C"},
        ],
    }
    path = write("h.jsonl", json.dumps(CHAT_REQUEST) + "\n" + json.dumps(second_turn) + "\n")
    assert [c.call_id for c in calls_of(path)] == ["call_a", "call_b", "call_c"]


def test_a_tool_result_naming_an_unknown_call_id_is_an_error(
    write: Callable[..., Path],
) -> None:
    body = {**CHAT_REQUEST}
    body["messages"] = [*CHAT_REQUEST["messages"]]  # type: ignore[misc]
    body["messages"][4] = {"role": "tool", "tool_call_id": "call_zz", "content": "x"}
    report = check([write("bad.json", body)], tools=TOOLS)
    (finding,) = report.findings
    assert (finding.code, finding.severity.value) == ("session.orphan_result", "error")
    assert "'call_zz'" in finding.message and finding.source is not None
    assert not report.ok


def test_legacy_function_messages_answer_by_position(write: Callable[..., Path]) -> None:
    body = {
        "model": "gpt-3.5-turbo",
        "messages": [
            {"role": "user", "content": "Oslo?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_weather", "arguments": WEATHER},
            },
            {"role": "function", "name": "get_weather", "content": "4 C"},
        ],
    }
    (call,) = calls_of(write("legacy.json", body))
    assert call.result is not None and call.result.content == "4 C"


# -- OpenAI Responses -------------------------------------------------------------------------


def test_responses_input_items_with_outputs(write: Callable[..., Path]) -> None:
    body = {
        "model": "gpt-4.1",
        "input": [
            {"role": "user", "content": "Oslo?"},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_r",
                "name": "get_weather",
                "arguments": WEATHER,
            },
            {"type": "function_call_output", "call_id": "call_r", "output": '{"temp_c": 4}'},
        ],
    }
    (call,) = calls_of(write("r.json", body))
    assert (call.dialect, call.call_id) == (Dialect.OPENAI_RESPONSES, "call_r")
    assert call.result is not None and call.result.content == '{"temp_c": 4}'


def test_previous_response_id_input_answers_the_previous_response(
    write: Callable[..., Path],
) -> None:
    response = {
        "id": "resp_1",
        "object": "response",
        "output": [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_p",
                "name": "get_weather",
                "arguments": WEATHER,
            }
        ],
    }
    follow_up = {
        "model": "gpt-4.1",
        "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "call_p", "output": "4 C"}],
    }
    path = write("p.jsonl", json.dumps(response) + "\n" + json.dumps(follow_up) + "\n")
    (call,) = calls_of(path)
    assert call.result is not None and call.result.source.line == 2


# -- Anthropic ------------------------------------------------------------------------------


def test_anthropic_history_with_an_error_result(write: Callable[..., Path]) -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Oslo"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "upstream timeout",
                        "is_error": True,
                    }
                ],
            },
        ],
    }
    (call,) = calls_of(write("a.json", body))
    assert (call.dialect, call.call_id) == (Dialect.ANTHROPIC, "toolu_1")
    assert call.result is not None and call.result.is_error is True
    assert call.result.to_dict()["is_error"] is True


# -- Gemini ---------------------------------------------------------------------------------


def test_gemini_contents_pair_by_id_or_by_name_in_order(write: Callable[..., Path]) -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Oslo and Bergen?"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}},
                    {"functionCall": {"id": "g1", "name": "get_weather", "args": {"city": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"output": "4"}}},
                    {"functionResponse": {"name": "get_weather", "response": {"error": "down"}}},
                    {"functionResponse": {"id": "g1", "name": "get_weather", "response": {}}},
                ],
            },
        ]
    }
    oslo, bergen, rome = calls_of(write("g.json", body))
    assert oslo.result is not None and oslo.result.content == {"output": "4"}
    assert bergen.result is not None and bergen.result.is_error is True
    assert rome.result is not None and rome.result.call_id == "g1"


# -- Batch files ----------------------------------------------------------------------------


def test_openai_batch_output_and_input(write: Callable[..., Path]) -> None:
    output = {
        "id": "batch_req_1",
        "custom_id": "request-1",
        "response": {"status_code": 200, "request_id": "req_1", "body": CHAT_RESPONSE},
        "error": None,
    }
    request = {
        "custom_id": "request-2",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": CHAT_REQUEST,
    }
    got = calls_of(write("batch_output.jsonl", json.dumps(output) + "\n"))
    assert [c.call_id for c in got] == ["call_a", "call_b"]
    assert got[0].source.line == 1
    got = calls_of(write("batch_input.jsonl", json.dumps(request) + "\n"))
    assert [c.result is not None for c in got] == [True, True]


def test_anthropic_batch_result(write: Callable[..., Path]) -> None:
    line = {
        "custom_id": "r1",
        "result": {
            "type": "succeeded",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {}}
                ],
            },
        },
    }
    (call,) = calls_of(write("b.jsonl", json.dumps(line) + "\n"))
    assert (call.call_id, call.turn) == ("toolu_9", "msg_1")


def test_batch_requests_that_failed_are_said_not_taken_for_unknown_lines(
    write: Callable[..., Path],
) -> None:
    """Batch output files hold the requests that failed too: an errored, expired or
    canceled Anthropic result, an OpenAI line with an error or an error response. Each is a
    warning that the line holds no response to check, never an unknown dialect."""
    lines = [
        {
            "custom_id": "r2",
            "result": {
                "type": "errored",
                "error": {"type": "error", "error": {"type": "overloaded_error", "message": "x"}},
            },
        },
        {"custom_id": "r3", "result": {"type": "expired"}},
        {
            "id": "batch_req_2",
            "custom_id": "r4",
            "response": None,
            "error": {"code": "batch_expired", "message": "not executed in time"},
        },
        {
            "id": "batch_req_3",
            "custom_id": "r5",
            "response": {
                "status_code": 400,
                "request_id": "req_3",
                "body": {"error": {"message": "Invalid tools", "type": "invalid_request_error"}},
            },
            "error": None,
        },
    ]
    path = write("batch_out.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    report = check([path], tools=TOOLS)
    found = [
        (r.call.source.line, f.code, f.severity.value) for r in report.results for f in r.findings
    ]
    assert found == [(n, "envelope.no_tool_call", "warning") for n in (1, 2, 3, 4)]
    messages = [r.findings[0].message for r in report.results]
    assert messages[0] == (
        "the Batch request 'r2' holds no response: it errored (overloaded_error: x)"
    )
    assert messages[1] == "the Batch request 'r3' holds no response: it expired"
    assert messages[2] == (
        "the Batch request 'r4' holds no response: it failed (batch_expired: not executed in time)"
    )
    assert messages[3] == (
        "the Batch request 'r5' holds no response: it failed with HTTP 400 "
        "(invalid_request_error: Invalid tools)"
    )


# -- HTTP Archives --------------------------------------------------------------------------


def test_a_downstream_response_is_the_result_of_its_request(write: Callable[..., Path]) -> None:
    body = {"customerId": "C1", "startDate": "2025-10-01", "endDate": "2025-10-31"}
    entry = {
        "startedDateTime": "2025-10-31T10:21:07.500Z",
        "time": 125.5,
        "request": {
            "method": "POST",
            "url": "https://billing.example/invoices/search",
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
        },
        "response": {
            "status": 502,
            "content": {"mimeType": "text/html", "text": "<html>Bad gateway</html>"},
        },
    }
    path = write("d.har", {"log": {"version": "1.2", "entries": [entry]}})
    (call,) = CaptureReader(tool="searchInvoices").read([path])
    result = call.result
    assert result is not None
    assert (result.status, result.is_error, result.hop) == (502, True, Hop.DOWNSTREAM)
    assert result.content == "<html>Bad gateway</html>"
    assert result.duration_ms == 125.5
    assert result.to_dict()["status"] == 502


# -- every result has a place in the report ------------------------------------------------


def test_check_reports_each_result(write: Callable[..., Path]) -> None:
    report = check([write("request.json", CHAT_REQUEST)], tools=TOOLS)
    entries = [r.to_dict() for r in report.results]
    assert [e["result"]["source"]["line"] for e in entries] == [34, 39]
    assert report.findings == []
    assert orjson.dumps(report.to_dict())  # serialisable as is


def test_trace_events_do_not_stand_alone(write: Callable[..., Path]) -> None:
    items = trace(write("only-results.jsonl", json.dumps(CHAT_REQUEST["messages"][3]) + "\n"))  # type: ignore[index]
    (orphan,) = [i for i in items if isinstance(i, TraceEvent)]
    assert orphan.kind is EventKind.ORPHAN_RESULT


def test_a_tool_message_without_its_call_id_is_a_result_finding(
    write: Callable[..., Path],
) -> None:
    body = {**CHAT_REQUEST}
    body["messages"] = [*CHAT_REQUEST["messages"][:4]]  # type: ignore[index]
    body["messages"].append({"role": "tool", "content": "7 C"})
    report = check([write("nocallid.json", body)], tools=TOOLS)
    # the result is checked on its own, and its envelope's fault reported with the orphan
    orphan, malformed = report.findings
    assert orphan.code == "session.orphan_result"
    assert malformed.code == "result.malformed" and "no tool_call_id" in malformed.message
    assert report.results[1].call.result is None


def test_an_mcp_record_trace_says_how_long_each_call_took(write: Callable[..., Path]) -> None:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"city": "Oslo"}},
    }
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "4"}]}}
    lines = [
        {"trace": "mcp", "event": "start", "version": 1, "time": "2026-12-01T17:00:51.2Z"},
        {
            "trace": "mcp",
            "seq": 1,
            "time": "2026-12-01T17:00:51.250Z",
            "from": "client",
            "frame": request,
        },
        {
            "trace": "mcp",
            "seq": 2,
            "time": "2026-12-01T17:00:51.375Z",
            "from": "server",
            "frame": answer,
        },
    ]
    path = write("rec.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    (call,) = calls_of(path)
    assert call.result is not None and call.result.duration_ms == 125.0
    assert call.result.to_dict()["duration_ms"] == 125.0


def test_calls_of_one_assistant_turn_share_a_turn_key() -> None:
    """Every dialect says which calls one assistant turn made, streamed or not."""
    captures = FIXTURES / "captures"
    for name in (
        "openai-chat/stream-ok.jsonl",
        "openai-responses/stream-ok.jsonl",
        "anthropic/stream-ok.jsonl",
        "gemini/response-ok.json",
        "openai-chat/response-ok.json",
    ):
        calls = list(CaptureReader().read([captures / name]))
        assert calls and all(c.turn is not None for c in calls), name
    # two completions of a trace are two turns; the two calls of one are one turn
    trace_calls = [
        c for c in CaptureReader().read([captures / "trace.jsonl"]) if c.hop is Hop.MODEL
    ]
    by_line: dict[int | None, set[str | None]] = {}
    for call in trace_calls:
        by_line.setdefault(call.source.line, set()).add(call.turn)
    assert all(len(turns) == 1 for turns in by_line.values())
    assert len({c.turn for c in trace_calls}) == len(by_line)
    assert all(c.turn is None for c in CaptureReader().read([captures / "mcp"]))


def test_a_repeated_gemini_history_without_ids_is_read_once(write: Callable[..., Path]) -> None:
    call = {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]}
    answer = {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": "4"}}}],
    }
    first = {"contents": [{"role": "user", "parts": [{"text": "Oslo?"}]}, call, answer]}
    second = {
        "contents": [
            *first["contents"],
            {"role": "model", "parts": [{"text": "4 C."}]},
            {"role": "user", "parts": [{"text": "And tomorrow?"}]},
            call,
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "get_weather", "response": {"x": 1}}}],
            },
        ]
    }
    path = write("g.jsonl", json.dumps(first) + "\n" + json.dumps(second) + "\n")
    got = calls_of(path)
    # the first request's call, then the second's new one: the repeated prefix is read once
    assert [(c.source.line, c.result is not None) for c in got] == [(1, True), (2, True)]
    assert got[1].result is not None and got[1].result.content == {"x": 1}


GEMINI_ASK = {"role": "user", "parts": [{"text": "Weather in Paris?"}]}
GEMINI_CALL = {
    "role": "model",
    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
}
GEMINI_ANSWER = {
    "role": "user",
    "parts": [
        {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 21}}}}
    ],
}


def gemini_response(content: dict[str, Any], response_id: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": content, "finishReason": "STOP", "index": 0}],
        "modelVersion": "gemini-2.5-flash",
        "responseId": response_id,
    }


def test_a_gemini_call_without_id_in_a_response_and_the_next_history_is_one_call(
    write: Callable[..., Path],
) -> None:
    """A gateway log: each request, then its response. The call the response made comes
    back in the next request's history with its result: one call, at the response, with
    the result."""
    done = {"role": "model", "parts": [{"text": "21 C."}]}
    lines = [
        {"contents": [GEMINI_ASK]},
        gemini_response(GEMINI_CALL, "r1"),
        {"contents": [GEMINI_ASK, GEMINI_CALL, GEMINI_ANSWER]},
        gemini_response(done, "r2"),
        # the same question again later in the conversation: a new call, not the first
        {"contents": [GEMINI_ASK, GEMINI_CALL, GEMINI_ANSWER, done, GEMINI_ASK]},
        gemini_response(GEMINI_CALL, "r3"),
        {"contents": [GEMINI_ASK, GEMINI_CALL, GEMINI_ANSWER, done, GEMINI_ASK, GEMINI_CALL]},
    ]
    path = write("gw.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    got = calls_of(path)
    assert [(c.source.line, c.result is not None) for c in got] == [(2, True), (6, False)]
    assert got[0].result is not None and got[0].result.content == {"output": {"temp_c": 21}}
    assert got[0].call_id is None and got[0].turn == "r1/0"
    report = check([path], tools=TOOLS)
    assert (report.summary.calls, report.findings) == (2, [])


def test_gemini_calls_without_ids_are_kept_apart_where_nothing_says_they_are_one(
    write: Callable[..., Path],
) -> None:
    # responses alone: the same call made twice is two calls
    same = "".join(json.dumps(gemini_response(GEMINI_CALL, f"r{i}")) + "\n" for i in (1, 2))
    assert len(calls_of(write("responses.jsonl", same))) == 2
    # two candidates proposing the same call are two calls; the history keeps the first
    both = {
        "candidates": [
            {"content": GEMINI_CALL, "index": 0},
            {"content": GEMINI_CALL, "index": 1},
        ],
        "responseId": "r1",
    }
    lines = [
        {"contents": [GEMINI_ASK]},
        both,
        {"contents": [GEMINI_ASK, GEMINI_CALL, GEMINI_ANSWER]},
    ]
    got = calls_of(write("two.jsonl", "".join(json.dumps(x) + "\n" for x in lines)))
    assert [(c.source.line, c.result is not None) for c in got] == [(2, True), (2, False)]
    # a history that does not continue the request the response answered: its call is
    # its own (another conversation's)
    other = {"role": "user", "parts": [{"text": "Weather in Lyon?"}]}
    lines = [
        {"contents": [GEMINI_ASK]},
        gemini_response(GEMINI_CALL, "r1"),
        {"contents": [other, GEMINI_CALL, GEMINI_ANSWER]},
    ]
    got = calls_of(write("other.jsonl", "".join(json.dumps(x) + "\n" for x in lines)))
    assert [(c.source.line, c.result is not None) for c in got] == [(2, False), (3, True)]


def test_two_gemini_conversations_alike_keep_both_calls(write: Callable[..., Path]) -> None:
    """The same question asked twice in one log (an evaluation run, say), the same call
    made each time: two calls, not one."""
    one = [
        {"contents": [GEMINI_ASK]},
        gemini_response(GEMINI_CALL, "r1"),
        {"contents": [GEMINI_ASK, GEMINI_CALL, GEMINI_ANSWER]},
    ]
    path = write("twice.jsonl", "".join(json.dumps(x) + "\n" for x in one + one))
    got = calls_of(path)
    assert [(c.source.line, c.result is not None) for c in got] == [(2, True), (5, False)]
