"""OpenTelemetry exports written by the real SDK: GenAI and MCP spans read as calls with
their results; a chat span and the execute-tool span of one call are one call."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode

from jsoncontract import check
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.model import ArgumentsForm, Dialect, Hop, ToolCall
from tests.conftest import FIXTURES

TOOLS = [FIXTURES / "tools"]


def agent_run(provider: TracerProvider) -> None:
    """One agent turn as a GenAI instrumentation records it: the chat span whose output holds
    two tool calls, the execute-tool spans that ran them (one failed), an MCP client span."""
    tracer = provider.get_tracer("agent")
    output = [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_1",
                    "name": "get_weather",
                    "arguments": {"city": "Oslo", "unit": "celsius"},
                },
                {
                    "type": "tool_call",
                    "id": "call_2",
                    "name": "get_weather",
                    "arguments": {"city": "Bergen", "unit": "kelvin"},  # not in the enum
                },
            ],
            "finish_reason": "tool_call",
        }
    ]
    with tracer.start_as_current_span("invoke_agent weather"):
        with tracer.start_as_current_span(
            "chat gpt-4.1",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.output.messages": json.dumps(output),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": '{"city": "Oslo", "unit": "celsius"}',
                "gen_ai.tool.call.result": '{"temp_c": 4}',
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_2",
                "error.type": "TimeoutError",
            },
        ) as failed:
            failed.set_status(Status(StatusCode.ERROR, "timed out"))
        with tracer.start_as_current_span(
            "tools/call read_file",
            attributes={
                "mcp.method.name": "tools/call",
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "read_file",
                "jsonrpc.request.id": "7",
                "mcp.session.id": "s-1",
                "mcp.protocol.version": "2025-06-18",
                "gen_ai.tool.call.arguments": '{"path": "config/carriers.yaml"}',
                "rpc.response.status_code": -32602,
                "error.type": "-32602",
            },
        ):
            pass


@pytest.fixture
def otlp_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "spans.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path)))
    agent_run(provider)
    provider.shutdown()
    yield path


def test_an_sdk_otlp_file_is_read_as_calls_with_results(otlp_file: Path) -> None:
    calls = list(CaptureReader().read([otlp_file]))
    got = [(c.hop, c.tool, c.call_id) for c in calls]
    assert got == [
        (Hop.MODEL, "get_weather", "call_1"),
        (Hop.MODEL, "get_weather", "call_2"),
        (Hop.MCP, "read_file", "7"),
    ]
    first, second, mcp = calls
    # the chat span gave the arguments as the model wrote them, the execute-tool span the result
    assert first.dialect == Dialect.OTLP and first.arguments == {"city": "Oslo", "unit": "celsius"}
    assert first.result is not None and first.result.content == {"temp_c": 4}
    assert first.result.is_error is False and first.result.duration_ms is not None
    assert second.result is not None and second.result.is_error is True
    assert second.form is ArgumentsForm.VALUE  # from the chat span, not "unrecorded"
    assert first.turn == second.turn is not None
    assert mcp.session is not None and mcp.session.protocol_version == "2025-06-18"
    assert mcp.result is not None and mcp.result.status == -32602


def test_an_sdk_otlp_file_is_checked(otlp_file: Path) -> None:
    report = check([otlp_file], tools=TOOLS)
    by_call = {r.call.call_id: r for r in report.results}
    assert by_call["call_1"].ok
    assert [f.code for f in by_call["call_2"].findings] == ["schema.enum"]
    entry = by_call["7"].to_dict()
    assert entry["result"]["error_code"] == -32602 and entry["result"]["is_error"] is True


def test_the_console_exporter_output_is_read(tmp_path: Path) -> None:
    stream = io.StringIO()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=stream)))
    agent_run(provider)
    provider.shutdown()
    path = tmp_path / "console.json"
    path.write_text(stream.getvalue())
    calls = list(CaptureReader().read([path]))
    assert [c.call_id for c in calls] == ["call_1", "call_2", "7"]
    assert calls[0].result is not None and calls[0].source.line is not None


def test_spans_none_of_them_genai_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "http.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path)))
    with provider.get_tracer("web").start_as_current_span(
        "GET /health", attributes={"http.request.method": "GET"}
    ):
        pass
    provider.shutdown()
    report = check([path], tools=TOOLS)
    (result,) = report.results
    (finding,) = result.findings
    assert finding.code == "envelope.no_tool_call"
    assert "none of them a GenAI or MCP span" in finding.message


def test_a_truncated_span_file_is_a_finding_on_its_line(
    otlp_file: Path, write: Callable[..., Path]
) -> None:
    text = otlp_file.read_text()
    cut = write("cut.jsonl", text[: len(text) - 40])
    report = check([cut], tools=TOOLS)
    broken = [r for r in report.results if r.stage is not None and r.call.tool is None]
    (last,) = broken
    assert last.findings[0].code.startswith("parse.")
    assert last.call.source.line == text.count("\n")


def test_a_span_without_arguments_is_checked_on_its_result(write: Callable[..., Path]) -> None:
    span: dict[str, Any] = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "execute_tool get_weather",
        "startTimeUnixNano": "1764460800000000000",
        "endTimeUnixNano": "1764460800250000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
            {"key": "gen_ai.tool.call.id", "value": {"stringValue": "call_9"}},
        ],
        "status": {},
    }
    export = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    report = check([write("one.json", export)], tools=TOOLS)
    (result,) = report.results
    assert result.ok and result.call.form is ArgumentsForm.UNRECORDED
    assert [f.code for f in result.findings] == ["envelope.arguments_not_recorded"]
    assert result.call.result is not None and result.call.result.duration_ms == 250.0


def test_every_call_is_a_tool_call(otlp_file: Path) -> None:
    assert all(isinstance(c, ToolCall) for c in CaptureReader().read([otlp_file]))


ASK = {"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]}
#: a tool call part without an id, as instrumentations of Gemini write them (the
#: conventions make ``id`` optional on both parts)
ASKED = {
    "role": "assistant",
    "parts": [{"type": "tool_call", "name": "get_weather", "arguments": {"city": "Oslo"}}],
}
ANSWERED = {"role": "tool", "parts": [{"type": "tool_call_response", "response": {"temp_c": 4}}]}


def turns_without_ids(provider: TracerProvider, *, execute: bool) -> None:
    """Two chat spans of one agent run (the second repeats the first's messages, its call and
    the call's result), with or without the execute-tool span between them; no call ids."""
    tracer = provider.get_tracer("agent")
    done = {"role": "assistant", "parts": [{"type": "text", "content": "4 C."}]}
    with tracer.start_as_current_span("invoke_agent weather"):
        chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "gcp.gemini"}
        with tracer.start_as_current_span(
            "chat gemini-2.5-flash",
            attributes={
                **chat,
                "gen_ai.input.messages": json.dumps([ASK]),
                "gen_ai.output.messages": json.dumps([ASKED]),
            },
        ):
            pass
        if execute:
            with tracer.start_as_current_span(
                "execute_tool get_weather",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_weather",
                    "gen_ai.tool.call.arguments": '{"city": "Oslo"}',
                    "gen_ai.tool.call.result": '{"temp_c": 4}',
                },
            ):
                pass
        with tracer.start_as_current_span(
            "chat gemini-2.5-flash",
            attributes={
                **chat,
                "gen_ai.input.messages": json.dumps([ASK, ASKED, ANSWERED]),
                "gen_ai.output.messages": json.dumps([done]),
            },
        ):
            pass


@pytest.mark.parametrize("execute", [False, True])
def test_a_call_without_id_in_a_chat_span_and_the_next_history_is_one_call(
    tmp_path: Path, execute: bool
) -> None:
    path = tmp_path / "spans.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path)))
    turns_without_ids(provider, execute=execute)
    provider.shutdown()
    report = check([path], tools=TOOLS)
    (result,) = report.results
    assert report.findings == []
    call = result.call
    assert (call.tool, call.arguments, call.source.line) == ("get_weather", {"city": "Oslo"}, 1)
    assert call.result is not None and call.result.content == {"temp_c": 4}
    assert (call.result.duration_ms is not None) is execute  # the execute-tool span's time


def test_a_result_without_id_that_follows_no_call(write: Callable[..., Path]) -> None:
    span: dict[str, Any] = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "chat gemini-2.5-flash",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {
                "key": "gen_ai.input.messages",
                "value": {"stringValue": json.dumps([ASK, ANSWERED])},
            },
        ],
        "status": {},
    }
    export = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    report = check([write("orphan.json", export)], tools=TOOLS)
    finding, empty = report.findings
    assert (finding.code, finding.severity.value) == ("session.orphan_result", "error")
    assert empty.code == "input.no_calls"  # and the run read no call
    assert finding.message == (
        "a result without a call id answers no call: no call without an id is waiting for "
        "its result in the history before it"
    )


def test_execute_tool_spans_without_ids_find_their_call_by_its_arguments(
    tmp_path: Path,
) -> None:
    """Two calls of one tool in one turn, run in the other order: each keeps its result;
    a span that records no arguments cannot be told apart, and is a call of its own."""
    tracer_provider = TracerProvider()
    path = tmp_path / "spans.jsonl"
    tracer_provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path)))
    tracer = tracer_provider.get_tracer("agent")
    calls = [
        {"type": "tool_call", "name": "get_weather", "arguments": {"city": city}}
        for city in ("Oslo", "Bergen")
    ]
    with tracer.start_as_current_span("invoke_agent weather"):
        with tracer.start_as_current_span(
            "chat gemini-2.5-flash",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps([ASK]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": calls}]),
            },
        ):
            pass
        for city, temp in (("Bergen", 7), ("Oslo", 4)):
            with tracer.start_as_current_span(
                "execute_tool get_weather",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_weather",
                    "gen_ai.tool.call.arguments": json.dumps({"city": city}),
                    "gen_ai.tool.call.result": json.dumps({"temp_c": temp}),
                },
            ):
                pass
        with tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"},
        ):
            pass
    tracer_provider.shutdown()
    got = list(CaptureReader().read([path]))
    assert [(c.arguments, c.result.content if c.result else None) for c in got] == [
        ({"city": "Oslo"}, {"temp_c": 4}),
        ({"city": "Bergen"}, {"temp_c": 7}),
        (None, None),
    ]


def test_a_span_exported_twice_is_one_call(run_cli: Any, tmp_path: Path) -> None:
    """Defect 18: the same span exported twice, without a call id, counted twice, with a
    false double_write."""
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "execute_tool refund_payment",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "refund_payment"}},
            {
                "key": "gen_ai.tool.call.arguments",
                "value": {"stringValue": json.dumps({"payment_id": "p1", "amount": 5})},
            },
        ],
        "status": {},
    }
    export = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    tools = tmp_path / "tools.json"
    schema = {"type": "object", "properties": {"payment_id": {}, "amount": {}}}
    tools.write_text(json.dumps({"tools": [{"name": "refund_payment", "inputSchema": schema}]}))
    capture = tmp_path / "spans.jsonl"
    capture.write_text(export + "\n" + export + "\n")
    result = run_cli("check", "--no-config", "-t", str(tools), str(capture), "-f", "json")
    report = json.loads(result.stdout)
    assert report["summary"]["calls"] == 1
    assert "business.idempotency.double_write" not in result.stdout
