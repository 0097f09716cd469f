"""Anthropic captures: Messages with tool_use blocks, whole and streamed."""

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

TOOL_USE: dict[str, Any] = {
    "type": "tool_use",
    "id": "toolu_01FmMjUtY1A7qEFuPqRQsaTp",
    "name": "update_shipment",
    "input": {"order_id": "ORD-615002", "priority": "overnight"},
}

MESSAGE = """\
{
  "id": "msg_01rPRL67yTazff7fjnGiffvj",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "text", "text": "I'll update the shipment and search the web."},
    {
      "type": "tool_use",
      "id": "toolu_01FmMjUtY1A7qEFuPqRQsaTp",
      "name": "update_shipment",
      "input": {"order_id": "ORD-615002", "priority": "overnight"}
    },
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
    {"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {}},
    {
      "type": "mcp_tool_use",
      "id": "mcptoolu_01",
      "name": "read_file",
      "server_name": "workspace",
      "input": {"path": "README.md"}
    }
  ],
  "stop_reason": "tool_use",
  "usage": {"input_tokens": 1178, "output_tokens": 41}
}
"""


def test_message(write: Write, read: Read, findings: Findings) -> None:
    path = write("message.json", MESSAGE)
    calls = read(path)
    assert [(c.tool, c.call_id, c.source.line) for c in calls] == [
        ("update_shipment", "toolu_01FmMjUtY1A7qEFuPqRQsaTp", 8),
        ("get_weather", "toolu_02", 16),
        ("read_file", "mcptoolu_01", 17),  # server tools run at Anthropic: not client calls
    ]
    first = calls[0]
    assert (first.hop, first.dialect, first.form) == (
        Hop.MODEL,
        Dialect.ANTHROPIC,
        ArgumentsForm.VALUE,
    )
    assert first.arguments == {"order_id": "ORD-615002", "priority": "overnight"}
    assert first.source.pointer == "/content/1"
    assert calls[1].arguments == {}
    assert [findings(c) for c in calls] == [[], [], []]


def test_message_without_type_but_with_assistant_role(write: Write, read: Read) -> None:
    (call,) = read(write("m.json", {"role": "assistant", "content": [TOOL_USE]}))
    assert (call.dialect, call.call_id, call.source.line) == (
        Dialect.ANTHROPIC,
        "toolu_01FmMjUtY1A7qEFuPqRQsaTp",
        4,
    )


def test_tool_use_blocks(write: Write, read: Read) -> None:
    (one,) = read(write("block.json", TOOL_USE))
    assert (one.tool, one.source.line, one.dialect) == ("update_shipment", 1, Dialect.ANTHROPIC)
    blocks = [{"type": "text", "text": "Updating."}, TOOL_USE, dict(TOOL_USE, id="toolu_2")]
    calls = read(write("blocks.json", blocks))
    assert [(c.call_id, c.source.line) for c in calls] == [
        ("toolu_01FmMjUtY1A7qEFuPqRQsaTp", 6),
        ("toolu_2", 15),
    ]


def test_malformed_tool_use(write: Write, read: Read, findings: Findings) -> None:
    no_id = {k: v for k, v in TOOL_USE.items() if k != "id"}
    (call,) = read(write("a.json", no_id))
    assert (call.call_id, findings(call)) == (None, [("envelope.missing_call_id", WARN)])
    no_name = {k: v for k, v in TOOL_USE.items() if k != "name"}
    (call,) = read(write("b.json", no_name))
    assert (call.tool, findings(call)) == (None, [("envelope.malformed", ERROR)])
    no_input = {k: v for k, v in TOOL_USE.items() if k != "input"}
    (call,) = read(write("c.json", no_input))
    assert (call.arguments, call.form) == (None, ArgumentsForm.MISSING)
    assert findings(call) == [("envelope.malformed", ERROR)]
    assert call.load_findings[0].message == "the tool_use block has no input"


def test_input_as_a_string_is_kept_for_the_parse_gate(write: Write, read: Read) -> None:
    (call,) = read(write("s.json", dict(TOOL_USE, input='{"order_id": "ORD-1"}')))
    assert (call.arguments, call.form) == ('{"order_id": "ORD-1"}', ArgumentsForm.VALUE)


def stream(*blocks: list[dict[str, Any]], stop: bool = True) -> list[dict[str, Any]]:
    """A message_start, the given content-block events, then message_delta / message_stop."""
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_01J16zPoBh5supX36j5kfaQm",
            "type": "message",
            "role": "assistant",
            "content": [],
            "stop_reason": None,
        },
    }
    out: list[dict[str, Any]] = [start]
    for block in blocks:
        out.extend(block)
    if stop:
        out.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
        out.append({"type": "message_stop"})
    return out


def tool_block(
    index: int, call_id: str, name: str, *fragments: str, stop: bool = True
) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    out: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    out.extend(
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": fragment},
        }
        for fragment in fragments
    )
    if stop:
        out.append({"type": "content_block_stop", "index": index})
    return out


TEXT_BLOCK: list[dict[str, Any]] = [
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "ping"},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "On it."}},
    {"type": "content_block_stop", "index": 0},
]


def test_event_stream(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    events = stream(
        TEXT_BLOCK,
        tool_block(1, "toolu_01H5", "get_weather", "", '{"city":"', 'Cape Town","days":4', "}"),
        tool_block(2, "toolu_02", "get_weather", '{"city":"Durban"}'),
    )
    first, second = read(write("stream.jsonl", jsonl(*events)))
    assert (first.tool, first.call_id, first.arguments, first.form) == (
        "get_weather",
        "toolu_01H5",
        '{"city":"Cape Town","days":4}',
        ArgumentsForm.TEXT,  # fragments form a JSON text: the parse gate reads it
    )
    assert (first.source.line, second.source.line) == (6, 12)  # content_block_start lines
    assert (first.hop, first.dialect) == (Hop.MODEL, Dialect.ANTHROPIC)
    assert second.arguments == '{"city":"Durban"}'
    assert findings(first) == findings(second) == []


def test_event_stream_without_deltas_takes_the_start_input(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    events = stream(tool_block(0, "toolu_01", "list_cities"))
    (call,) = read(write("s.jsonl", jsonl(*events)))
    assert (call.arguments, call.form) == ({}, ArgumentsForm.VALUE)
    assert findings(call) == []
    started = stream(
        [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_9",
                    "name": "f",
                    "input": {"a": 1},
                },
            },
            {"type": "content_block_stop", "index": 0},
        ]
    )
    (call,) = read(write("t.jsonl", jsonl(*started)))
    assert (call.arguments, call.form) == ({"a": 1}, ArgumentsForm.VALUE)


def test_event_stream_cut_off(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    events = stream(tool_block(0, "toolu_01", "f", '{"a":', stop=False), stop=False)
    (call,) = read(write("s.jsonl", jsonl(*events)))
    assert (call.call_id, call.arguments, call.source.line) == ("toolu_01", '{"a":', 2)
    assert findings(call) == [("envelope.incomplete_stream", WARN)]


def test_a_new_message_closes_the_previous_one(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    first = stream(tool_block(0, "toolu_a", "f", "{}", stop=False), stop=False)
    second = stream(tool_block(0, "toolu_b", "g", "{}"))
    calls = read(write("s.jsonl", jsonl(*first, *second)))
    assert [(c.call_id, findings(c)) for c in calls] == [
        ("toolu_a", [("envelope.incomplete_stream", WARN)]),
        ("toolu_b", []),
    ]


@pytest.mark.parametrize("index", [0, None])
def test_a_block_started_again_closes_the_unfinished_one(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings, index: int | None
) -> None:
    first = tool_block(0, "toolu_a", "f", '{"a": 1', stop=False)
    second = tool_block(0, "toolu_b", "g", "{}")
    for event in (*first, *second):
        if index is None:  # events that lost their index share one
            event.pop("index", None)
    calls = read(write("s.jsonl", jsonl(*stream(first, second))))
    assert [(c.call_id, c.arguments, findings(c)) for c in calls] == [
        ("toolu_a", '{"a": 1', [("envelope.incomplete_stream", WARN)]),
        ("toolu_b", "{}", []),
    ]


def test_event_stream_nameless_block(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    events = stream(
        [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_x", "input": {}},
            },
            {"type": "content_block_stop", "index": 0},
        ]
    )
    (call,) = read(write("s.jsonl", jsonl(*events)))
    assert (call.tool, findings(call)) == (None, [("envelope.malformed", ERROR)])


def test_mcp_tool_use_streamed(write: Write, read: Read, jsonl: Callable[..., str]) -> None:
    block = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "read_file", "input": {}}
    events = stream(
        [
            {"type": "content_block_start", "index": 0, "content_block": block},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"path":"a"}'},
            },
            {"type": "content_block_stop", "index": 0},
        ]
    )
    (call,) = read(write("s.jsonl", jsonl(*events)))
    assert (call.tool, call.call_id, call.arguments) == ("read_file", "mcptoolu_1", '{"path":"a"}')


def test_event_stream_as_sse(
    write: Write, read: Read, sse_text: Callable[..., str], findings: Findings
) -> None:
    events = stream(TEXT_BLOCK, tool_block(1, "toolu_01", "f", '{"a":1}'))
    (call,) = read(write("stream.sse", sse_text(*events, named=True)))
    assert (call.call_id, call.arguments) == ("toolu_01", '{"a":1}')
    assert call.source.line == 17  # the data: line of its content_block_start
    assert findings(call) == []


def test_malformed_types_and_indexes_never_crash(
    write: Write, read: Read, jsonl: Callable[..., str], findings: Findings
) -> None:
    message = {"role": "assistant", "content": [dict(TOOL_USE, type=["tool_use"]), TOOL_USE]}
    (call,) = read(write("m.json", message))
    assert call.source.pointer == "/content/1"
    events = stream(
        [
            {
                "type": "content_block_start",
                "index": [1],
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": [1],
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
            {"type": "content_block_stop", "index": [1]},
        ]
    )
    text = jsonl(*events, {"type": {"name": "ping"}})
    first, second = read(write("s.jsonl", text))
    assert (first.call_id, first.arguments, findings(first)) == ("toolu_1", "{}", [])
    assert findings(second) == [("envelope.unknown_dialect", ERROR)]
