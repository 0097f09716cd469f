"""The tools offered with a call: read from its request (whole, in an exchange logged with its
response, in an HTTP Archive entry) or its MCP session, given to every call read from it, one
shared object per distinct list, the same through the fast lane, pickling and the ledger."""

from __future__ import annotations

import gc
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from jsoncontract.capture import CaptureReader
from jsoncontract.model import (
    ArgumentsForm,
    OfferedTools,
    Source,
    ToolCall,
    offered_to,
    offered_tools,
)
from jsoncontract.pipeline.checker import Checker
from jsoncontract.pipeline.fast import build_lane
from jsoncontract.tools import ToolSet

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _request(tools: list[Any], *calls: dict[str, Any]) -> dict[str, Any]:
    messages: list[Any] = [{"role": "user", "content": "hi"}]
    if calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": list(calls)})
    return {"model": "gpt-4o", "messages": messages, "tools": tools}


def _response(*calls: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": None, "tool_calls": list(calls)}
    return {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"message": message}]}


def _write(path: Path, *documents: Any) -> Path:
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in documents))
    return path


def _calls(path: Path, **options: Any) -> list[ToolCall]:
    return list(CaptureReader(**options).read([path]))


def test_equal_lists_are_one_object_and_unequal_ones_two() -> None:
    one = offered_tools([WEATHER, TIME])
    assert offered_tools([dict(WEATHER), dict(TIME)]) is one
    assert offered_tools([TIME, WEATHER]) is not one
    assert offered_tools([]) is not one
    assert one.definitions == (WEATHER, TIME) and len(one) == 2


def test_an_unpickled_list_is_the_one_alive_here() -> None:
    one = offered_tools([WEATHER])
    assert pickle.loads(pickle.dumps(one)) is one
    call = ToolCall(None, None, "x", None, {}, ArgumentsForm.VALUE, Source("f"), offered=one)
    calls = pickle.loads(pickle.dumps([call, call]))
    assert calls[0].offered is calls[1].offered is one


def test_a_list_no_call_holds_is_forgotten() -> None:
    key = offered_tools([{"name": "forgotten", "input_schema": {"type": "object"}}]).key
    gc.collect()
    again = offered_tools([{"name": "forgotten", "input_schema": {"type": "object"}}])
    assert again.key == key  # the same key, a new object: the table held nothing


def test_the_calls_of_a_history_share_their_requests_list(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "requests.jsonl",
        _request([WEATHER, TIME], _call("call_1", "get_weather", '{"city": "Paris"}')),
        _request(
            [WEATHER, TIME],
            _call("call_1", "get_weather", '{"city": "Paris"}'),
            _call("call_2", "get_time", "{}"),
        ),
    )
    calls = _calls(path)
    assert [c.call_id for c in calls] == ["call_1", "call_2"]
    assert calls[0].offered is calls[1].offered is offered_tools([WEATHER, TIME])


def test_a_request_without_tools_records_nothing_offered(tmp_path: Path) -> None:
    request = _request([], _call("call_1", "get_weather", "{}"))
    assert _calls(_write(tmp_path / "r.jsonl", request))[0].offered is None  # "tools": []
    del request["tools"]
    assert _calls(_write(tmp_path / "r.jsonl", request))[0].offered is None


def test_a_response_alone_records_no_tools(tmp_path: Path) -> None:
    path = _write(tmp_path / "responses.jsonl", _response(_call("c", "get_weather", "{}")))
    assert _calls(path)[0].offered is None


def test_an_exchange_gives_its_responses_calls_the_requests_list(tmp_path: Path) -> None:
    exchange = {
        "request": _request([WEATHER]),
        "response": _response(_call("call_9", "get_time", "{}")),
    }
    wrapped = {"request": {"body": exchange["request"]}, "response": {"body": exchange["response"]}}
    for document in (exchange, wrapped):
        (call,) = _calls(_write(tmp_path / "exchange.jsonl", document))
        assert call.tool == "get_time" and call.offered is offered_tools([WEATHER])
    (call,) = _calls(_write(tmp_path / "exchange.json", wrapped))
    assert call.source.pointer == "/response/body/choices/0/message/tool_calls/0"


def test_an_exchange_whose_request_no_dialect_reads_gives_no_list(tmp_path: Path) -> None:
    exchange = {"request": {"prompt": "hi"}, "response": _response(_call("c", "get_time", "{}"))}
    (call,) = _calls(_write(tmp_path / "exchange.jsonl", exchange), tool="get_time")
    assert call.offered is None and call.dialect == "openai-chat"


def test_each_dialects_request_offers_its_tools(tmp_path: Path) -> None:
    anthropic_tool = {"name": "get_time", "input_schema": {"type": "object"}}
    gemini_tools = [{"functionDeclarations": [{"name": "get_time"}]}, {"googleSearch": {}}]
    responses_tool = {"type": "function", "name": "get_time", "parameters": {"type": "object"}}
    requests = {
        "anthropic": {
            "model": "claude",
            "max_tokens": 10,
            "tools": [anthropic_tool],
            "messages": [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {}}
                    ],
                }
            ],
        },
        "gemini": {
            "tools": gemini_tools,
            "contents": [
                {"role": "model", "parts": [{"functionCall": {"name": "get_time", "args": {}}}]}
            ],
        },
        "openai-responses": {
            "model": "gpt-4o",
            "tools": [responses_tool],
            "input": [
                {"type": "function_call", "call_id": "c1", "name": "get_time", "arguments": "{}"}
            ],
        },
    }
    for dialect, request in requests.items():
        (call,) = _calls(_write(tmp_path / f"{dialect}.jsonl", request))
        assert call.dialect == dialect
        assert call.offered is offered_tools(request["tools"]), dialect


def test_an_mcp_call_is_offered_its_sessions_latest_list(tmp_path: Path) -> None:
    tools = [{"name": "lookup", "inputSchema": {"type": "object"}}]
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lookup"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "lookup"}},
    ]
    first, second = _calls(_write(tmp_path / "mcp.jsonl", *frames))
    assert first.offered is None and offered_to(first) is None
    assert second.offered is None and offered_to(second) is offered_tools(tools)


def test_an_http_archive_entry_gives_its_response_the_requests_list(tmp_path: Path) -> None:
    def body(value: Any) -> dict[str, Any]:
        return {"mimeType": "application/json", "text": orjson.dumps(value).decode()}

    entry = {
        "request": {"method": "POST", "url": "https://api.example/v1/chat/completions",
                    "postData": body(_request([TIME]))},
        "response": {"status": 200, "content": body(_response(_call("c", "get_time", "{}")))},
    }  # fmt: skip
    path = tmp_path / "session.har"
    path.write_bytes(orjson.dumps({"log": {"entries": [entry]}}))
    (call,) = _calls(path)
    assert call.offered is offered_tools([TIME])


def test_a_later_sighting_brings_its_list_to_a_held_call(tmp_path: Path) -> None:
    answered = _request([WEATHER], _call("call_1", "get_weather", '{"city": "Oslo"}'))
    answered["messages"].append({"role": "tool", "tool_call_id": "call_1", "content": "ok"})
    path = _write(
        tmp_path / "proxy.jsonl",
        _response(_call("call_1", "get_weather", '{"city": "Oslo"}')),
        answered,
    )
    (call,) = _calls(path)
    assert call.result is not None and call.offered is offered_tools([WEATHER])


def test_the_lane_reads_the_same_lists(tmp_path: Path) -> None:
    lines = []
    for i in range(40):
        calls = [_call(f"call_{j}", "get_weather", f'{{"city": "c{j}"}}') for j in range(i + 1)]
        request = _request([WEATHER, TIME], *calls)
        request["messages"].extend(
            {"role": "tool", "tool_call_id": f"call_{j}", "content": "ok"} for j in range(i + 1)
        )
        lines.append(request)
    path = _write(tmp_path / "proxy.jsonl", *lines)
    full = _calls(path)
    reader = CaptureReader()
    tools = ToolSet.from_paths(["fixtures/tools"])
    lane = build_lane(Checker(tools), reader)
    assert lane is not None
    read: Callable[..., Any] = reader.read_checked
    through_lane = [c for c in read([path], lane) if type(c) is ToolCall]
    assert len(full) == len(through_lane) == 40
    shared = offered_tools([WEATHER, TIME])
    assert all(c.offered is shared for c in full + through_lane)
    assert isinstance(shared, OfferedTools)
