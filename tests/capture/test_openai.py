"""OpenAI captures: Chat Completions and Responses, whole and streamed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import ArgumentsForm, Dialect, Hop, Severity, ToolCall

Write = Callable[[str, object], Path]
Read = Callable[..., list[ToolCall]]
Findings = Callable[[ToolCall], list[tuple[str, Severity]]]

WARN = Severity.WARNING
ERROR = Severity.ERROR

# -- Chat Completions ---------------------------------------------------------------------

CHAT_RESPONSE = """\
{
  "id": "chatcmpl-CRh0aXb2S1gXgFq3LbT5W",
  "object": "chat.completion",
  "created": 1761917422,
  "model": "gpt-4.1-2025-04-14",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": null,
        "tool_calls": [
          {
            "id": "call_RSVRJMaEx0qgtxteEgsSXFfP",
            "type": "function",
            "function": {
              "name": "searchInvoices",
              "arguments": "{\\"customerId\\":\\"C00417\\",\\"status\\":\\"open\\"}"
            }
          },
          {
            "id": "call_8mJ2cX0pQ1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Porto\\"}"}
          }
        ],
        "refusal": null
      },
      "finish_reason": "tool_calls"
    },
    {
      "index": 1,
      "message": {"role": "assistant", "content": "No tool needed."},
      "finish_reason": "stop"
    }
  ],
  "usage": {"prompt_tokens": 845, "completion_tokens": 38, "total_tokens": 883}
}
"""


def test_chat_completion(write: Write, read: Read, findings: Findings) -> None:
    path = write("response.json", CHAT_RESPONSE)
    first, second = read(path)
    assert (first.hop, first.dialect, first.tool, first.call_id) == (
        Hop.MODEL,
        Dialect.OPENAI_CHAT,
        "searchInvoices",
        "call_RSVRJMaEx0qgtxteEgsSXFfP",
    )
    assert first.arguments == '{"customerId":"C00417","status":"open"}'
    assert first.form is ArgumentsForm.TEXT
    assert (first.source.file, first.source.line) == (str(path), 13)
    assert first.source.pointer == "/choices/0/message/tool_calls/0"
    assert findings(first) == []
    assert (second.tool, second.call_id, second.source.line) == (
        "get_weather",
        "call_8mJ2cX0pQ1",
        21,
    )
    assert second.arguments == '{"city":"Porto"}'
    assert first.context is None and first.meta is None and first.response is None


def test_chat_message_tool_calls_list_and_one_call(write: Write, read: Read) -> None:
    call = {
        "id": "call_pCjkXgQsjTbGdtleoNXEquRh",
        "type": "function",
        "function": {"name": "update_shipment", "arguments": '{"priority":"urgent"}'},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call], "refusal": None}
    for name, doc, line in [
        ("message.json", message, 5),
        ("list.json", [call, dict(call, id="call_2")], 2),
        ("one.json", call, 1),
    ]:
        calls = read(write(name, doc))
        assert calls[0].dialect is Dialect.OPENAI_CHAT
        assert (calls[0].tool, calls[0].call_id, calls[0].source.line) == (
            "update_shipment",
            "call_pCjkXgQsjTbGdtleoNXEquRh",
            line,
        ), name
        assert calls[0].arguments == '{"priority":"urgent"}'
    assert [c.call_id for c in read(write("list.json", [call, dict(call, id="call_2")]))] == [
        "call_pCjkXgQsjTbGdtleoNXEquRh",
        "call_2",
    ]


def test_chat_legacy_function_call(write: Write, read: Read, findings: Findings) -> None:
    message = {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
    }
    (call,) = read(write("legacy.json", message))
    assert (call.dialect, call.tool, call.call_id, call.arguments, call.form) == (
        Dialect.OPENAI_CHAT,
        "get_weather",
        None,
        '{"city":"Oslo"}',
        ArgumentsForm.TEXT,
    )
    assert call.source.line == 4
    assert findings(call) == []
    response = {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}
    (whole,) = read(write("legacy-response.json", response))
    assert (whole.tool, whole.source.pointer) == ("get_weather", "/choices/0/message/function_call")


def test_chat_arguments_not_a_string(write: Write, read: Read, findings: Findings) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    (got,) = read(write("c.json", call))
    assert (got.arguments, got.form) == ({"a": 1}, ArgumentsForm.VALUE)
    assert findings(got) == [("envelope.arguments_not_string", WARN)]
    assert got.load_findings[0].stage is not None and got.load_findings[0].stage.value == "envelope"


@pytest.mark.parametrize(
    ("call", "expected", "tool", "call_id"),
    [
        (
            {"id": "call_1", "type": "function", "function": {"name": "f"}},
            [("envelope.malformed", ERROR)],
            "f",
            "call_1",
        ),
        (
            {"id": "call_1", "type": "function", "function": {"arguments": "{}"}},
            [("envelope.malformed", ERROR)],
            None,
            "call_1",
        ),
        (
            {"type": "function", "function": {"name": "f", "arguments": "{}"}},
            [("envelope.missing_call_id", WARN)],
            "f",
            None,
        ),
        (
            {"id": "call_1", "type": "function", "function": "f({})"},
            [("envelope.malformed", ERROR)],
            None,
            "call_1",
        ),
    ],
)
def test_chat_malformed_tool_calls(
    write: Write,
    read: Read,
    findings: Findings,
    call: dict[str, Any],
    expected: list[tuple[str, Severity]],
    tool: str | None,
    call_id: str | None,
) -> None:
    message = {"role": "assistant", "tool_calls": [call]}
    (got,) = read(write("m.json", message))
    assert findings(got) == expected
    assert (got.tool, got.call_id, got.hop, got.dialect) == (
        tool,
        call_id,
        Hop.MODEL,
        Dialect.OPENAI_CHAT,
    )


def test_chat_tool_calls_not_a_list_or_entry_not_an_object(
    write: Write, read: Read, findings: Findings
) -> None:
    (got,) = read(write("m.json", {"role": "assistant", "tool_calls": {"id": "x"}}))
    assert findings(got) == [("envelope.malformed", ERROR)]
    assert got.load_findings[0].message == "tool_calls must be a list"
    (got,) = read(write("n.json", {"role": "assistant", "tool_calls": ["call_1"]}))
    assert findings(got) == [("envelope.malformed", ERROR)]
    assert got.load_findings[0].message == "a tool call must be an object"
    assert got.source.line == 4


def test_chat_custom_tool_calls_are_not_function_calls(
    write: Write, read: Read, findings: Findings
) -> None:
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}},
            {"id": "call_f", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        ],
    }
    assert [c.call_id for c in read(write("m.json", message))] == ["call_f"]


def chunk(
    *fragments: dict[str, Any],
    finish: str | None = None,
    choice: int = 0,
    response: str = "chatcmpl-dwDFb4owUhW7ykAKcmqHuNiaE7Dcx",
) -> dict[str, Any]:
    delta: dict[str, Any] = {"tool_calls": list(fragments)} if fragments else {}
    return {
        "id": response,
        "object": "chat.completion.chunk",
        "created": 1761904385,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{"index": choice, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def opening(index: int, call_id: str, name: str) -> dict[str, Any]:
    return {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }


def part(index: int, text: str) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": text}}


def test_chat_stream_interleaved_indexes(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    text = jsonl(
        chunk(opening(0, "call_SJz", "get_weather")),
        chunk(part(0, '{"city":')),
        chunk(opening(1, "call_RVV", "get_weather")),
        chunk(part(1, '{"city":"Lisbon"}')),
        chunk(part(0, '"Porto"}')),
        chunk(finish="tool_calls"),
        {
            "id": "chatcmpl-dwDFb4owUhW7ykAKcmqHuNiaE7Dcx",
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {"total_tokens": 10},
        },
    )
    first, second = read(write("stream.jsonl", text))
    assert (first.tool, first.call_id, first.arguments, first.source.line) == (
        "get_weather",
        "call_SJz",
        '{"city":"Porto"}',
        1,
    )
    assert (second.call_id, second.arguments, second.source.line) == (
        "call_RVV",
        '{"city":"Lisbon"}',
        3,
    )
    assert first.form is ArgumentsForm.TEXT and first.dialect is Dialect.OPENAI_CHAT
    assert findings(first) == findings(second) == []


def test_chat_stream_calls_are_emitted_at_finish(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    from jsoncontract.capture import CaptureReader

    text = jsonl(
        chunk(opening(0, "call_a", "f")),
        chunk(part(0, "{}"), finish="tool_calls"),
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "g"}},
    )
    calls = CaptureReader().read([write("s.jsonl", text)])
    assert next(calls).call_id == "call_a"  # before the rest of the trace is read
    assert next(calls).tool == "g"


def test_chat_stream_without_finish_reason_is_incomplete(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    text = jsonl(chunk(opening(0, "call_a", "update_shipment")), chunk(part(0, '{"order_id":"OR')))
    (call,) = read(write("cut.jsonl", text))
    assert (call.call_id, call.arguments, call.source.line) == ("call_a", '{"order_id":"OR', 1)
    assert findings(call) == [("envelope.incomplete_stream", WARN)]


def test_chat_stream_choices_and_responses_are_kept_apart(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    text = jsonl(
        chunk(opening(0, "call_a0", "f"), choice=0),
        chunk(opening(0, "call_b0", "g"), choice=1),
        chunk(opening(0, "call_other", "h"), response="chatcmpl-other"),
        chunk(part(0, '{"choice":1}'), choice=1),
        chunk(part(0, '{"choice":0}'), choice=0),
        chunk(part(0, "{}"), response="chatcmpl-other", finish="tool_calls"),
        chunk(finish="tool_calls", choice=1),
    )
    calls = read(write("n2.jsonl", text))
    assert [(c.call_id, c.arguments, c.source.line) for c in calls] == [
        ("call_other", "{}", 3),
        ("call_b0", '{"choice":1}', 2),
        ("call_a0", '{"choice":0}', 1),  # choice 0 never finished: flushed at the end
    ]
    assert [findings(c) for c in calls] == [[], [], [("envelope.incomplete_stream", WARN)]]


def test_chat_stream_name_in_fragments_and_missing_name(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    text = jsonl(
        chunk({"index": 0, "id": "call_a", "function": {"name": "get_", "arguments": ""}}),
        chunk({"index": 0, "function": {"name": "weather", "arguments": "{}"}}),
        chunk({"index": 1, "id": "call_b", "function": {"arguments": "{}"}}),
        chunk(finish="tool_calls"),
    )
    named, nameless = read(write("s.jsonl", text))
    assert named.tool == "get_weather"
    assert (nameless.tool, findings(nameless)) == (None, [("envelope.malformed", ERROR)])


def test_chat_stream_without_object_member(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    # some gateways log chunks without "object"; the delta still makes them chunks
    chunks = [chunk(opening(0, "call_a", "f")), chunk(part(0, "{}")), chunk(finish="tool_calls")]
    for c in chunks:
        del c["object"]
    (call,) = read(write("s.jsonl", jsonl(*chunks)))
    assert (call.call_id, call.arguments, call.source.line) == ("call_a", "{}", 1)
    assert findings(call) == []


def test_chat_stream_as_sse(
    write: Write, read: Read, sse_text: Callable[..., str], findings: Findings
) -> None:
    text = sse_text(chunk(opening(0, "call_a", "f")), chunk(part(0, "{}")), chunk(finish="stop"))
    text += "data: [DONE]\n\n"
    (call,) = read(write("stream.sse", text))
    assert (call.call_id, call.arguments, call.source.line) == ("call_a", "{}", 1)
    assert findings(call) == []


# -- Responses ----------------------------------------------------------------------------

ITEM: dict[str, Any] = {
    "type": "function_call",
    "id": "fc_0a1b2c",
    "call_id": "call_Wq1",
    "name": "get_weather",
    "arguments": '{"city":"Cape Town","days":4}',
    "status": "completed",
}


def test_responses_response(write: Write, read: Read, findings: Findings) -> None:
    response = {
        "id": "resp_90d9",
        "object": "response",
        "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking."}],
            },
            ITEM,
            dict(ITEM, id="fc_2", call_id="call_2", arguments="{}"),
        ],
    }
    path = write("response.json", response)
    first, second = read(path)
    assert (first.hop, first.dialect, first.tool, first.call_id) == (
        Hop.MODEL,
        Dialect.OPENAI_RESPONSES,
        "get_weather",
        "call_Wq1",
    )
    assert (first.arguments, first.form) == (ITEM["arguments"], ArgumentsForm.TEXT)
    assert (first.source.line, first.source.pointer) == (22, "/output/2")
    assert (second.call_id, second.arguments, second.source.line) == ("call_2", "{}", 30)
    assert findings(first) == findings(second) == []


def test_responses_items(write: Write, read: Read) -> None:
    items = [ITEM, {"type": "function_call_output", "call_id": "call_Wq1", "output": "sunny"}]
    (call,) = read(write("items.json", items))
    assert (call.call_id, call.source.line) == ("call_Wq1", 2)
    (one,) = read(write("item.json", ITEM))
    assert (one.dialect, one.call_id, one.source.line) == (Dialect.OPENAI_RESPONSES, "call_Wq1", 1)


def test_responses_item_without_call_id_falls_back_to_id(
    write: Write, read: Read, findings: Findings
) -> None:
    item = {k: v for k, v in ITEM.items() if k != "call_id"}
    (call,) = read(write("item.json", item))
    assert call.call_id == "fc_0a1b2c"
    assert findings(call) == [("envelope.missing_call_id", WARN)]
    nameless = {k: v for k, v in ITEM.items() if k != "name"}
    (call,) = read(write("nameless.json", nameless))
    assert (call.tool, findings(call)) == (None, [("envelope.malformed", ERROR)])
    no_args = {k: v for k, v in ITEM.items() if k != "arguments"}
    (call,) = read(write("no-args.json", no_args))
    assert (call.arguments, call.form) == (None, ArgumentsForm.MISSING)
    assert findings(call) == [("envelope.malformed", ERROR)]


def events(arguments: str = ITEM["arguments"], *, done: str | None = None) -> list[dict[str, Any]]:
    added = dict(ITEM, arguments="", status="in_progress")
    half = len(arguments) // 2
    final = arguments if done is None else done
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    return [
        {"type": "response.created", "sequence_number": 0, "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": ITEM["id"],
            "output_index": 0,
            "delta": arguments[:half],
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": ITEM["id"],
            "output_index": 0,
            "delta": arguments[half:],
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": ITEM["id"],
            "output_index": 0,
            "arguments": final,
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": dict(ITEM, arguments=final),
        },
        {
            "type": "response.completed",
            "response": dict(response, status="completed", output=[dict(ITEM, arguments=final)]),
        },
    ]


def test_responses_stream_is_not_double_counted(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    (call,) = read(write("stream.jsonl", jsonl(*events())))
    assert (call.tool, call.call_id, call.arguments) == (
        "get_weather",
        "call_Wq1",
        ITEM["arguments"],
    )
    assert call.source.line == 2  # where the item was added
    assert call.dialect is Dialect.OPENAI_RESPONSES
    assert findings(call) == []


@pytest.mark.parametrize(
    "kept",
    [
        [0, 1, 2, 3, 4],  # .done only
        [0, 1, 5],  # output_item.done only
        [0, 1, 2, 3, 5, 6],  # item done, then completed
        [0, 1, 2, 3, 6],  # deltas, then only response.completed
        [0, 6],  # only the completed response
    ],
)
def test_responses_stream_every_ending_gives_one_call(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings, kept: list[int]
) -> None:
    stream = events()
    calls = read(write("stream.jsonl", jsonl(*(stream[i] for i in kept))))
    assert [(c.call_id, c.arguments) for c in calls] == [("call_Wq1", ITEM["arguments"])]
    assert findings(calls[0]) == []


def test_responses_done_events_without_an_item_id_are_each_a_call(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    done = {"type": "response.function_call_arguments.done", "name": "get_weather"}
    trace = jsonl(dict(done, arguments='{"city":"Oslo"}'), dict(done, arguments='{"city":5}'))
    calls = read(write("s.jsonl", trace))
    assert [c.arguments for c in calls] == ['{"city":"Oslo"}', '{"city":5}']


def test_responses_stream_delta_and_done_mismatch(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    (call,) = read(write("s.jsonl", jsonl(*events(done='{"city":"Durban"}'))))
    assert call.arguments == '{"city":"Durban"}'  # the final arguments are checked
    assert findings(call) == [("envelope.stream_mismatch", WARN)]


def test_responses_stream_deltas_then_completed_mismatch(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    stream = events(done='{"city":"Durban"}')
    (call,) = read(write("s.jsonl", jsonl(stream[0], stream[1], stream[2], stream[3], stream[6])))
    assert call.arguments == '{"city":"Durban"}'
    assert findings(call) == [("envelope.stream_mismatch", WARN)]


def test_responses_stream_cut_off(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    stream = events()
    (call,) = read(write("s.jsonl", jsonl(*stream[:3])))
    assert (call.call_id, call.arguments, call.source.line) == (
        "call_Wq1",
        ITEM["arguments"][: len(ITEM["arguments"]) // 2],
        2,
    )
    assert findings(call) == [("envelope.incomplete_stream", WARN)]


def test_responses_stream_as_sse_with_event_names(
    write: Write, read: Read, sse_text: Callable[..., str], findings: Findings
) -> None:
    (call,) = read(write("s.sse", sse_text(*events(), named=True)))
    assert (call.call_id, call.arguments) == ("call_Wq1", ITEM["arguments"])
    assert call.source.line == 5  # the data: line of the output_item.added event
    assert findings(call) == []


def test_responses_incomplete_response(write: Write, read: Read) -> None:
    event = {
        "type": "response.incomplete",
        "response": {"object": "response", "status": "incomplete", "output": [ITEM]},
    }
    (call,) = read(write("s.json", event))
    assert call.call_id == "call_Wq1"


def test_responses_completed_without_response_holds_nothing(
    write: Write, read: Read, findings: Findings
) -> None:
    (call,) = read(write("s.json", {"type": "response.completed"}))
    assert findings(call) == [("envelope.no_tool_call", WARN)]


def test_malformed_stream_members_never_crash(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    weird_choices = chunk(opening(0, "call_x", "f"))
    weird_choices["choices"] = -1
    weird_calls = chunk()
    weird_calls["choices"][0]["delta"] = {"tool_calls": True}
    text = jsonl(
        weird_choices,
        weird_calls,
        chunk({"index": {"n": 0}, "id": "call_obj", "function": {"name": "f", "arguments": "{}"}}),
        chunk({"index": [0], "id": "call_arr", "function": {"name": "g", "arguments": "{}"}}),
        {
            "type": "response.function_call_arguments.delta",
            "item_id": {"bad": 1},
            "delta": "{}",
        },
        {
            "type": "response.output_item.done",
            "item": dict(ITEM, id=["fc", 1], arguments="{}"),
        },
        chunk(finish="tool_calls"),
    )
    calls = read(write("weird.jsonl", text))
    assert [(c.call_id, c.dialect) for c in calls] == [
        ("call_Wq1", Dialect.OPENAI_RESPONSES),
        ("call_obj", Dialect.OPENAI_CHAT),
        ("call_arr", Dialect.OPENAI_CHAT),
        (None, Dialect.OPENAI_RESPONSES),  # deltas for an item never named: flushed
    ]
    assert findings(calls[3]) == [
        ("envelope.incomplete_stream", WARN),
        ("envelope.malformed", ERROR),
    ]
