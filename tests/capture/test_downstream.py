"""Downstream bodies, trace records, and HTTP Archives holding all three hops."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from jsoncontract.errors import InputError
from jsoncontract.model import ArgumentsForm, Dialect, Hop, Severity, ToolCall

Write = Callable[[str, object], Path]
Read = Callable[..., list[ToolCall]]
Findings = Callable[[ToolCall], list[tuple[str, Severity]]]

ERROR = Severity.ERROR
BODY: dict[str, Any] = {
    "customerId": "C00417",
    "startDate": "2025-10-01",
    "endDate": "2025-10-31",
    "status": "open",
    "limit": 50,
}

# -- bare bodies --------------------------------------------------------------------------


def test_body_with_tool(write: Write, read: Read, findings: Findings) -> None:
    path = write("body.json", BODY)
    (call,) = read(path, tool="searchInvoices")
    assert (call.hop, call.dialect, call.tool, call.call_id) == (
        Hop.DOWNSTREAM,
        Dialect.DOWNSTREAM,
        "searchInvoices",
        None,
    )
    assert (call.arguments, call.form) == (BODY, ArgumentsForm.VALUE)
    assert (call.source.file, call.source.line) == (str(path), 1)
    assert findings(call) == []


def test_body_without_tool_is_no_known_dialect(write: Write, read: Read) -> None:
    path = write("body.json", BODY)
    with pytest.raises(InputError) as info:
        read(path)
    assert info.value.file == str(path)
    assert info.value.message == (
        "not a capture in any known dialect (an object with members customerId, endDate, limit, "
        "startDate, status); for a bare request body use --tool NAME (and --dialect downstream)"
    )


def test_forced_downstream_without_tool(write: Write, read: Read, findings: Findings) -> None:
    (call,) = read(write("body.json", BODY), dialect=Dialect.DOWNSTREAM)
    assert (call.tool, call.arguments) == (None, BODY)
    assert findings(call) == [("envelope.missing_tool", ERROR)]
    assert call.load_findings[0].hint == (
        "pass --tool NAME, or wrap the body in a trace record with a tool member"
    )


def test_forced_downstream_reads_even_provider_shapes_as_bodies(write: Write, read: Read) -> None:
    doc = {"choices": [], "jsonrpc": "2.0", "name": "x", "args": {}}
    (call,) = read(write("body.json", doc), dialect=Dialect.DOWNSTREAM, tool="t")
    assert (call.dialect, call.arguments) == (Dialect.DOWNSTREAM, doc)


def test_forced_downstream_array_body_is_one_body(write: Write, read: Read) -> None:
    rows = [{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 1}]
    (call,) = read(write("bulk.json", rows), dialect=Dialect.DOWNSTREAM, tool="bulk_insert")
    assert (call.tool, call.arguments, call.source.line) == ("bulk_insert", rows, 1)


@pytest.mark.parametrize(
    ("text", "value", "form"),
    [
        ('"ORD-1"', "ORD-1", ArgumentsForm.TEXT),
        ("42", 42, ArgumentsForm.VALUE),
        ("null", None, ArgumentsForm.VALUE),
    ],
)
def test_scalar_bodies_with_tool(
    write: Write, read: Read, text: str, value: object, form: ArgumentsForm
) -> None:
    (call,) = read(write("body.json", text), tool="t")
    assert (call.arguments, call.form) == (value, form)


def test_scalar_without_tool_is_no_known_dialect(write: Write, read: Read) -> None:
    with pytest.raises(InputError, match=r"not a capture in any known dialect \(a JSON integer "):
        read(write("n.json", "42"))


def test_with_tool_known_provider_shapes_are_still_detected(write: Write, read: Read) -> None:
    message = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
    }
    (call,) = read(write("m.json", message), tool="searchInvoices")
    assert (call.dialect, call.tool) == (Dialect.ANTHROPIC, "f")


# -- trace records ------------------------------------------------------------------------


def test_trace_records(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    text = jsonl(
        {
            "hop": "downstream",
            "tool": "searchInvoices",
            "call_id": "call_RSVR",
            "context": {"user": "u-17", "role": "clerk"},
            "payload": BODY,
        },
        {
            "hop": "model",
            "call_id": "ignored-when-the-payload-has-one",
            "payload": {
                "id": "call_Q1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{}"},
            },
        },
        {
            "hop": "model",
            "call_id": "from-the-record",
            "payload": {"function_call": {"name": "get_weather", "args": {}}},
        },
        {
            "hop": "mcp",
            "tool": "not-used-for-mcp",
            "payload": {
                "jsonrpc": "2.0",
                "id": 21,
                "method": "tools/call",
                "params": {"name": "read_file", "arguments": {"path": "a"}},
            },
        },
        {"dialect": "downstream", "tool": "t2", "payload": [1, 2]},
        {"hop": "model", "dialect": "gemini", "payload": {"name": "list_cities", "args": {}}},
        {"hop": "downstream", "payload": {"a": 1}},
        {"hop": "downstream", "tool": "searchInvoices", "call_id": 7, "payload": '{"limit": 5}'},
    )
    calls = read(write("trace.jsonl", text))
    got = [(c.hop, c.dialect, c.tool, c.call_id, c.source.line) for c in calls]
    assert got == [
        (Hop.DOWNSTREAM, Dialect.DOWNSTREAM, "searchInvoices", "call_RSVR", 1),
        (Hop.MODEL, Dialect.OPENAI_CHAT, "get_weather", "call_Q1", 2),
        (Hop.MODEL, Dialect.GEMINI, "get_weather", "from-the-record", 3),
        (Hop.MCP, Dialect.MCP, "read_file", "21", 4),
        (Hop.DOWNSTREAM, Dialect.DOWNSTREAM, "t2", None, 5),
        (Hop.MODEL, Dialect.GEMINI, "list_cities", None, 6),
        (Hop.DOWNSTREAM, Dialect.DOWNSTREAM, None, None, 7),
        (Hop.DOWNSTREAM, Dialect.DOWNSTREAM, "searchInvoices", "7", 8),
    ]
    assert calls[0].context == {"user": "u-17", "role": "clerk"}
    assert calls[0].arguments == BODY
    assert calls[4].arguments == [1, 2]  # a record's payload is one body, arrays included
    assert (calls[7].arguments, calls[7].form) == ('{"limit": 5}', ArgumentsForm.TEXT)
    assert [findings(c) for c in calls] == [[]] * 6 + [[("envelope.missing_tool", ERROR)], []]


def test_record_hop_overrides_the_dialect_hop(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    payload = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f"}}
    (call,) = read(write("t.jsonl", jsonl({"hop": "model", "payload": payload})))
    assert (call.hop, call.dialect) == (Hop.MODEL, Dialect.MCP)


def test_record_with_an_unknown_hop_is_not_a_record(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    (call,) = read(write("t.jsonl", jsonl({"hop": "proxy", "payload": BODY})))
    assert findings(call) == [("envelope.unknown_dialect", ERROR)]
    assert call.source.line == 1


@pytest.mark.parametrize("hop", [["model"], {"name": "model"}, 3, None])
def test_record_with_a_malformed_hop_never_crashes(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings, hop: object
) -> None:
    (call,) = read(write("t.jsonl", jsonl({"hop": hop, "payload": BODY})))
    assert findings(call) == [("envelope.unknown_dialect", ERROR)]
    (forced,) = read(write("u.jsonl", jsonl({"hop": hop, "dialect": "downstream", "payload": 1})))
    assert (forced.hop, forced.dialect, forced.arguments) == (
        Hop.DOWNSTREAM,
        Dialect.DOWNSTREAM,
        1,
    )


def test_record_dialect_forcing_ends_with_the_record(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    chat = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    text = jsonl({"dialect": "gemini", "payload": {"name": "g", "args": {}}}, chat)
    assert [c.dialect for c in read(write("t.jsonl", text))] == [
        Dialect.GEMINI,
        Dialect.OPENAI_CHAT,
    ]


def test_duplicate_keys_in_a_record_make_its_calls_ambiguous(
    write: Write, read: Read, findings: Findings
) -> None:
    text = (
        b'{"hop":"downstream","tool":"a","tool":"b","payload":{"x":1}}\n'
        b'{"hop":"downstream","tool":"a","payload":{"x":1,"x":2}}\n'
        b'{"hop":"downstream","tool":"a","payload":{"x":1},"payload":{"x":2}}\n'
    )
    first, second, third = read(write("t.jsonl", text))
    assert findings(first) == [("envelope.duplicate_key", ERROR)]
    assert first.load_findings[0].message.startswith("in the trace record: key 'tool' appears")
    assert (findings(second), [(a.kind, a.pointer) for a in second.anomalies]) == (
        [],
        [("duplicate_key", "/x")],
    )
    assert (findings(third), [(a.kind, a.pointer) for a in third.anomalies]) == (
        [],
        [("duplicate_key", "")],
    )


# -- HTTP Archives ------------------------------------------------------------------------


def entry(
    *,
    request: object = None,
    request_mime: str | None = "application/json",
    response: str | None = None,
    response_mime: str = "application/json",
    encoding: str | None = None,
    url: str = "https://billing.example.com/api/v2/invoices/search",
) -> dict[str, Any]:
    req: dict[str, Any] = {"method": "POST", "url": url, "headers": []}
    if request is not None:
        text = request if isinstance(request, str) else orjson.dumps(request).decode()
        req["postData"] = {"text": text}
        if request_mime is not None:
            req["postData"]["mimeType"] = request_mime
    content: dict[str, Any] = {"size": 0, "mimeType": response_mime}
    if response is not None:
        content["text"] = response
    if encoding is not None:
        content["encoding"] = encoding
    return {"request": req, "response": {"status": 200, "content": content}}


CHAT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "searchInvoices", "arguments": "{}"},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
}
MCP_CALL = {
    "jsonrpc": "2.0",
    "id": 5,
    "method": "tools/call",
    "params": {"name": "read_file", "arguments": {"path": "README.md"}},
}
MCP_ANSWER = {"jsonrpc": "2.0", "id": 5, "result": {"content": [], "isError": False}}


def har(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "recorder"}, "entries": list(entries)}}


def test_har_holds_all_three_hops(
    write: Write, read: Read, sse_text: Callable[..., str], findings: Findings
) -> None:
    chunks = [
        {
            "id": "chatcmpl-2",
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_s",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": "{}"},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        },
        {
            "id": "chatcmpl-2",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
    ]
    doc = har(
        # a request to a model API (messages + tools) holds no new call; its response does
        entry(
            request={"model": "gpt-4.1", "messages": [], "tools": []},
            response=orjson.dumps(CHAT).decode(),
            url="https://api.openai.com/v1/chat/completions",
        ),
        # streamed model response
        entry(
            request={"model": "gpt-4.1", "messages": [], "stream": True},
            response=sse_text(*chunks) + "data: [DONE]\n\n",
            response_mime="text/event-stream; charset=utf-8",
        ),
        # MCP over Streamable HTTP: request body, and the response attached to it
        entry(
            request=MCP_CALL, response=orjson.dumps(MCP_ANSWER).decode(), url="https://mcp.x/mcp"
        ),
        # the downstream body the tool sent
        entry(request=BODY),
        # a GET without a body, a form post, an HTML page: nothing to read
        entry(response="<html></html>", response_mime="text/html"),
        entry(request="a=1&b=2", request_mime="application/x-www-form-urlencoded"),
        # a base64 response body (another call: the same one again would be one call)
        entry(
            response=base64.b64encode(orjson.dumps(CHAT).replace(b"call_9", b"call_8")).decode(),
            encoding="base64",
        ),
    )
    path = write("capture.har", doc)
    calls = read(path, tool="searchInvoices")
    got = [(c.hop, c.dialect, c.tool, c.call_id) for c in calls]
    assert got == [
        (Hop.MODEL, Dialect.OPENAI_CHAT, "searchInvoices", "call_9"),
        (Hop.MODEL, Dialect.OPENAI_CHAT, "get_weather", "call_s"),
        (Hop.MCP, Dialect.MCP, "read_file", "5"),
        (Hop.DOWNSTREAM, Dialect.DOWNSTREAM, "searchInvoices", None),
        (Hop.MODEL, Dialect.OPENAI_CHAT, "searchInvoices", "call_8"),
    ]
    assert calls[2].response == MCP_ANSWER
    assert calls[3].arguments == BODY
    assert [findings(c) for c in calls] == [[]] * 5
    text = path.read_text().splitlines()
    for call in calls:  # every call points at its body's line in the archive
        assert call.source.line is not None
        assert '"text"' in text[call.source.line - 1]


def test_har_mime_types_ignore_case(write: Write, read: Read) -> None:
    doc = har(
        entry(request=BODY, request_mime="Application/JSON; charset=UTF-8"),
        entry(request=BODY, request_mime="TEXT/PLAIN"),
        entry(request=BODY, request_mime=""),
        entry(
            response="data: " + orjson.dumps(CHAT).decode() + "\n\n",
            response_mime="Text/Event-Stream",
        ),
    )
    calls = read(write("x.har", doc), tool="t")
    assert [c.source.pointer for c in calls] == [
        "/log/entries/0/request/postData/text",
        "/log/entries/3/response/content/text/choices/0/message/tool_calls/0",
    ]


def test_har_body_without_tool(write: Write, read: Read, findings: Findings) -> None:
    (call,) = read(write("x.har", har(entry(request=BODY))))
    assert (call.tool, findings(call)) == (None, [("envelope.missing_tool", ERROR)])


def test_har_request_without_mime_type_is_read(write: Write, read: Read) -> None:
    (call,) = read(write("x.har", har(entry(request=BODY, request_mime=None))), tool="t")
    assert call.arguments == BODY


def test_har_request_body_that_is_not_json(write: Write, read: Read, findings: Findings) -> None:
    doc = har(entry(request='{"customerId": "C00417",'))
    (call,) = read(write("x.har", doc), tool="searchInvoices")
    assert findings(call) == [("parse.truncated", ERROR)]
    assert (call.tool, call.source.line) == ("searchInvoices", 14)
    # without a tool, nothing says the body was meant for one: no call
    (nothing,) = read(write("y.har", doc))
    assert findings(nothing) == [("envelope.no_tool_call", Severity.WARNING)]


def test_har_duplicate_key_inside_a_body_is_located(write: Write, read: Read) -> None:
    doc = har(entry(request='{"limit": 5, "limit": 500}'))
    (call,) = read(write("x.har", doc), tool="t")
    assert [(a.kind, a.pointer) for a in call.anomalies] == [("duplicate_key", "/limit")]


def test_har_bad_base64_is_skipped(write: Write, read: Read, findings: Findings) -> None:
    (call,) = read(write("x.har", har(entry(response="!!not base64!!", encoding="base64"))))
    assert findings(call) == [("envelope.no_tool_call", Severity.WARNING)]


@pytest.mark.parametrize("doc", [{"log": {"version": "1.2"}}, {"log": []}, [], "archive", None])
def test_har_without_entries(write: Write, read: Read, findings: Findings, doc: object) -> None:
    (call,) = read(write("x.har", orjson.dumps(doc)))
    assert findings(call) == [("envelope.malformed", ERROR)]
    assert call.load_findings[0].message == "the HAR file has no log.entries list"


def test_har_entries_of_the_wrong_shape_are_skipped(
    write: Write, read: Read, findings: Findings
) -> None:
    entries = [
        None,
        "entry",
        {"request": "x", "response": {"content": "y"}},
        {"request": {"postData": {"text": 5}}, "response": None},
        {"request": {"postData": {"mimeType": 5, "text": orjson.dumps(BODY).decode()}}},
    ]
    (call,) = read(write("x.har", {"log": {"entries": entries}}), tool="t")
    assert (call.arguments, findings(call)) == (BODY, [])
    assert call.source.pointer == "/log/entries/4/request/postData/text"


def test_har_detected_by_shape_under_another_suffix(write: Write, read: Read) -> None:
    (call,) = read(write("archive.json", har(entry(request=MCP_CALL))))
    assert (call.dialect, call.tool) == (Dialect.MCP, "read_file")


def test_bundled_har(repo: Path, read: Read) -> None:
    calls = read(repo / "fixtures" / "downstream" / "requests.har", tool="searchInvoices")
    assert [(c.tool, c.source.line) for c in calls] == [
        ("searchInvoices", 48),  # the "text" member of each request's postData
        ("searchInvoices", 195),
    ]
    assert [c.arguments["startDate"] for c in calls] == ["2025-09-01", "2025-01-01"]


def test_har_event_stream_keeps_bytes_that_are_not_utf8(write: Write, read: Read) -> None:
    message = dict(MCP_CALL, params={"name": "read_file", "arguments": {"path": "PLACEHOLDER"}})
    event = b"data: " + orjson.dumps(message).replace(b"PLACEHOLDER", b"caf\xe9.md") + b"\n\n"
    doc = har(
        entry(
            response=base64.b64encode(event).decode(),
            response_mime="text/event-stream",
            encoding="base64",
        )
    )
    (call,) = read(write("x.har", doc))
    assert [(a.kind, a.pointer) for a in call.anomalies] == [("invalid_utf8", "/path")]


def test_an_array_body_against_an_array_schema_is_one_body(run_cli: Any, tmp_path: Path) -> None:
    """Defect 19: an array body checked against a bare array schema was split into two
    calls, each failing "expected array"; it is one body, with one error at /1/id."""

    schema = tmp_path / "arr.schema.json"
    schema.write_text(
        json.dumps({"type": "array", "items": {"properties": {"id": {"type": "integer"}}}})
    )
    body = tmp_path / "body.json"
    body.write_text('[{"id": 1}, {"id": "x"}]')
    args = ["check", "--no-config", "--tools", str(schema), "--tool", "bulk", "-f", "json"]
    report = json.loads(run_cli(*args, str(body)).stdout)
    (result,) = report["results"]
    assert [(f["code"], f["path"]) for f in result["findings"]] == [("schema.type", "/1/id")]
