"""MCP captures: JSON-RPC tools/call requests, and the responses attached to them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import (
    ArgumentsForm,
    Dialect,
    EventKind,
    Hop,
    Severity,
    Stage,
    ToolCall,
    TraceEvent,
)

Write = Callable[[str, object], Path]
Read = Callable[..., list[ToolCall]]
Findings = Callable[[ToolCall], list[tuple[str, Severity]]]

ERROR = Severity.ERROR


def request(request_id: Any = 3, **params: Any) -> dict[str, Any]:
    body = {"name": "read_file", "arguments": {"path": "config/carriers.yaml", "max_bytes": 4096}}
    body.update(params)
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": body}


def answer(request_id: Any = 3) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {
            "content": [{"type": "text", "text": "default: dhl"}],
            "structuredContent": {"content": "default: dhl", "size": 12},
            "isError": False,
        },
    }


def test_tools_call_request(write: Write, read: Read, findings: Findings) -> None:
    path = write("call.json", request(_meta={"progressToken": "p1"}))
    (call,) = read(path)
    assert (call.hop, call.dialect, call.tool, call.call_id) == (
        Hop.MCP,
        Dialect.MCP,
        "read_file",
        "3",
    )
    assert (call.arguments, call.form) == (
        {"path": "config/carriers.yaml", "max_bytes": 4096},
        ArgumentsForm.VALUE,
    )
    assert (call.source.file, call.source.line) == (str(path), 1)
    assert call.meta == {"progressToken": "p1"}
    assert call.response is None
    assert findings(call) == []


def test_string_id_is_kept(write: Write, read: Read) -> None:
    (call,) = read(write("call.json", request("req-7f3a")))
    assert call.call_id == "req-7f3a"


def test_missing_arguments_mean_an_empty_object(
    write: Write, read: Read, findings: Findings
) -> None:
    body = request()
    del body["params"]["arguments"]
    (call,) = read(write("call.json", body))
    assert (call.arguments, call.form) == ({}, ArgumentsForm.VALUE)
    assert findings(call) == []


def test_arguments_as_a_string_are_kept_for_the_parse_gate(write: Write, read: Read) -> None:
    (call,) = read(write("call.json", request(arguments='{"path":"a"}')))
    assert (call.arguments, call.form) == ('{"path":"a"}', ArgumentsForm.VALUE)
    assert call.load_findings == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"jsonrpc": "1.0"}, 'the request does not say "jsonrpc": "2.0"'),
        ({"jsonrpc": 2.0}, 'the request does not say "jsonrpc": "2.0"'),
        ({"id": None}, "the request id must be a string or an integer, not None"),
        ({"id": 1.5}, "the request id must be a string or an integer, not 1.5"),
        ({"id": True}, "the request id must be a string or an integer, not True"),
        ({"id": {"n": 1}}, "the request id must be a string or an integer, not {'n': 1}"),
    ],
)
def test_bad_envelopes(
    write: Write, read: Read, findings: Findings, change: dict[str, Any], message: str
) -> None:
    (call,) = read(write("call.json", dict(request(), **change)))
    assert findings(call) == [("envelope.malformed", ERROR)]
    assert call.load_findings[0].message == message
    assert call.tool == "read_file"


@pytest.mark.parametrize(
    ("request_id", "call_id"),
    [(None, None), (1.5, "1.5"), (True, "true"), (7, "7"), ({"n": 1}, '{"n":1}')],
)
def test_call_ids_are_json_text(
    write: Write, read: Read, request_id: Any, call_id: str | None
) -> None:
    (call,) = read(write("call.json", request(request_id)))
    assert call.call_id == call_id


def test_missing_jsonrpc_member(write: Write, read: Read, findings: Findings) -> None:
    body = request()
    del body["jsonrpc"]
    (call,) = read(write("call.json", body))
    assert (call.dialect, findings(call)) == (Dialect.MCP, [("envelope.malformed", ERROR)])


def test_missing_id_is_a_notification(write: Write, read: Read, findings: Findings) -> None:
    body = request()
    del body["id"]
    (call,) = read(write("call.json", body))
    assert (call.call_id, findings(call)) == (None, [("envelope.malformed", ERROR)])
    assert call.load_findings[0].message == (
        "tools/call has no id, so it is a notification and will never be answered"
    )


@pytest.mark.parametrize("params", [None, "read_file", ["read_file"]])
def test_missing_params(write: Write, read: Read, findings: Findings, params: Any) -> None:
    body = request()
    if params is None:
        del body["params"]
    else:
        body["params"] = params
    (call,) = read(write("call.json", body))
    assert (call.tool, call.call_id, call.arguments, call.form) == (
        None,
        "3",
        None,
        ArgumentsForm.MISSING,
    )
    assert findings(call) == [("envelope.malformed", ERROR)]
    assert call.load_findings[0].message == "tools/call has no params object"


def test_params_without_a_name(write: Write, read: Read, findings: Findings) -> None:
    body = request()
    del body["params"]["name"]
    (call,) = read(write("call.json", body))
    assert (call.tool, findings(call)) == (None, [("envelope.malformed", ERROR)])


def test_several_problems_are_all_reported(write: Write, read: Read, findings: Findings) -> None:
    body: dict[str, Any] = {
        "jsonrpc": "1.0",
        "id": None,
        "method": "tools/call",
        "params": {"arguments": {}},
    }
    (call,) = read(write("call.json", body))
    assert findings(call) == [("envelope.malformed", ERROR)] * 3


def test_exchange_attaches_the_response_to_its_request(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    text = jsonl(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
        },
        {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}},
        request(3),
        request(4, name="write_file"),
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Invalid arguments"}},
        answer(3),
        {"jsonrpc": "2.0", "method": "ping", "id": 5},
        answer(99),  # answers nothing this capture holds
    )
    calls = read(write("exchange.jsonl", text))
    assert [(c.tool, c.call_id, c.source.line) for c in calls] == [
        ("read_file", "3", 6),
        ("write_file", "4", 7),
    ]
    assert calls[0].response == answer(3)
    assert calls[1].response == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {"code": -32602, "message": "Invalid arguments"},
    }


def test_unmatchable_ids_never_crash_the_matching(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    text = jsonl(request({"n": 1}), answer({"n": 1}), request([1]), answer([1]), request(1.0))
    calls = read(write("x.jsonl", text + jsonl(answer(1.0), answer(True))))
    assert [(c.call_id, c.response) for c in calls] == [
        ('{"n":1}', None),
        ("[1]", None),
        ("1.0", None),
    ]


def test_a_response_matches_only_the_same_id_type(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    calls = read(write("x.jsonl", jsonl(request(3), answer("3"))))
    assert calls[0].response is None


def test_a_response_before_its_request_is_not_attached(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    calls = read(write("x.jsonl", jsonl(answer(3), request(3))))
    assert calls[0].response is None


def test_responses_are_matched_within_one_file(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    calls = read(write("a.jsonl", jsonl(request(3))), write("b.jsonl", jsonl(answer(3))))
    assert calls[0].response is None


def test_batch_in_one_document(write: Write, read: Read) -> None:
    calls = read(write("batch.json", [request(3), request(4), answer(4)]))
    assert [(c.call_id, c.source.line) for c in calls] == [("3", 2), ("4", 14)]
    assert (calls[0].response, calls[1].response) == (None, answer(4))


def test_only_old_requests_are_forgotten(
    write: Write, read: Read, jsonl: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsoncontract.capture import mcp

    monkeypatch.setattr(mcp, "_REMEMBERED", 2)
    text = jsonl(request(1), request(2), request(3), answer(1), answer(2), answer(3))
    calls = read(write("x.jsonl", text))
    assert [c.response is not None for c in calls] == [False, True, True]


def test_a_file_of_other_methods_holds_no_tool_call(
    write: Write, read: Read, findings: Findings
) -> None:
    (call,) = read(write("list.json", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    assert findings(call) == [("envelope.no_tool_call", Severity.WARNING)]
    assert (call.tool, call.hop, call.dialect) == (None, None, None)


def test_request_without_jsonrpc_but_with_method_and_params(write: Write, read: Read) -> None:
    body = {"method": "tools/call", "params": {"name": "read_file", "arguments": {}}, "id": 1}
    (call,) = read(write("call.json", body))
    assert (call.dialect, call.tool) == (Dialect.MCP, "read_file")


# -- responses whenever they arrive, and the session ----------------------------------------


def trace_of(path: Any) -> list[Any]:
    from jsoncontract.capture.reader import CaptureReader

    return list(CaptureReader().read_trace([path]))


def test_a_response_after_other_calls_is_still_attached(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    # the request is read, other calls follow, and only then does its answer come
    text = jsonl(request(3), request(4), request(5), answer(5), answer(4), answer(3))
    calls = read(write("x.jsonl", text))
    assert [(c.call_id, c.response) for c in calls] == [
        ("3", answer(3)),
        ("4", answer(4)),
        ("5", answer(5)),
    ]
    result = calls[0].result
    assert result is not None
    assert (result.hop, result.call_id, result.source.line) == (Hop.MCP, "3", 6)
    assert result.content == [{"type": "text", "text": "default: dhl"}]
    assert result.structured_content == {"content": "default: dhl", "size": 12}
    assert (result.present_structured, result.is_error) == (True, False)


def test_a_json_rpc_error_is_the_result(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    error = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params"}}
    (call,) = read(write("x.jsonl", jsonl(request(3), error)))
    assert call.result is not None
    assert (call.result.is_error, call.result.error) == (True, error["error"])
    assert call.result.to_dict()["error_code"] == -32602


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ({"jsonrpc": "2.0", "id": 3, "result": {"content": []}, "error": {"code": 1}}, "both"),
        ({"jsonrpc": "2.0", "id": 3, "result": {"isError": "yes", "content": []}}, "isError"),
        ({"jsonrpc": "2.0", "id": 3, "result": {"isError": False}}, "content list"),
        ({"jsonrpc": "2.0", "id": 3, "result": [1]}, "not an object"),
        ({"jsonrpc": "2.0", "id": 3, "error": {"code": "x"}}, "integer"),
        ({"jsonrpc": "2.0", "id": 3, "error": "boom"}, "not an object"),
        ({"jsonrpc": "1.0", "id": 3, "result": {"content": []}}, '"jsonrpc": "2.0"'),
    ],
)
def test_a_malformed_response_is_a_result_finding(
    write: Write, read: Read, jsonl: Callable[..., str], message: dict[str, Any], problem: str
) -> None:
    (call,) = read(write("x.jsonl", jsonl(request(3), message)))
    assert call.result is not None
    (finding,) = call.result.load_findings
    assert (finding.code, finding.stage) == ("result.malformed", Stage.RESULT)
    assert problem in finding.message


def test_the_session_follows_initialize_lists_and_changes(
    write: Write, jsonl: Callable[..., str]
) -> None:
    tool = {"name": "read_file", "inputSchema": {"type": "object"}}
    other = {"name": "write_file", "inputSchema": {"type": "object"}}
    text = jsonl(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "s", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool], "nextCursor": "p2"}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "p2"}},
        {"jsonrpc": "2.0", "id": 3, "result": {"tools": [other]}},
        request(4),
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        request(5),
        answer(4),
        answer(5),
    )
    items = trace_of(write("s.jsonl", text))
    kinds = [i.kind.value if isinstance(i, TraceEvent) else i.call_id for i in items]
    assert kinds == ["initialize", "tools_list", "4", "list_changed", "5"]
    first, second = items[2], items[4]
    assert first.session.protocol_version == "2025-06-18"
    assert sorted(first.session.tools) == ["read_file", "write_file"]
    assert (first.session.listings, first.session.list_changed) == (1, False)
    assert second.session.list_changed is True
    assert first.session.capabilities == {"tools": {"listChanged": True}}
    assert first.result is not None and second.result is not None


def test_a_second_initialize_starts_a_new_session(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}
    text = jsonl(init, request(1), init, request(1), answer(1))
    first, second = read(write("two.jsonl", text))
    assert first.session.id != second.session.id
    assert (first.result, second.response) == (None, answer(1))


def test_a_stateless_request_names_its_own_version(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    (call,) = read(write("x.jsonl", jsonl(request(1, _meta=meta))))
    assert call.session.protocol_version == "2026-07-28"


def test_answers_to_other_requests_are_no_results(write: Write, jsonl: Callable[..., str]) -> None:
    text = jsonl(
        {"jsonrpc": "2.0", "id": 7, "method": "ping"},
        {"jsonrpc": "2.0", "id": 7, "result": {}},
        {"jsonrpc": "2.0", "id": 8, "result": {}},  # its request is not in the capture
        request(1),
    )
    items = trace_of(write("x.jsonl", text))
    assert [type(i).__name__ for i in items] == ["ToolCall"]


def test_an_answer_whose_request_is_missing_is_an_orphan(
    write: Write, jsonl: Callable[..., str]
) -> None:
    items = trace_of(write("x.jsonl", jsonl(answer(9), request(1))))
    orphan = items[0]
    assert isinstance(orphan, TraceEvent) and orphan.kind is EventKind.ORPHAN_RESULT
    assert orphan.result is not None and orphan.result.source.line == 1
