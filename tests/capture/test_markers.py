"""The marks of LLM traffic: every line of the table is found, the first convention wins,
attributes of spans and log records count as members, tool calls are found in every shape
the conventions write them; and the reader reports a marked document it did not read (or
whose calls its dialect could not read) as ``envelope.not_read``, never in silence.

The documents are written by the real packages where one is installed: the OpenTelemetry
SDK's OTLP/JSON log exporter, langchain-core's messages. A reader given fewer dialects than
the built-in ones stands for a format jsoncontract does not read, so that these tests hold
whichever dialects are added."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.capture import anthropic, downstream, gemini, markers, openai_chat
from jsoncontract.capture.markers import MARKERS, Marker, calls_in, look
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.capture.registry import Registry
from jsoncontract.errors import NotThisKind


def example(marker: Marker) -> dict[str, Any]:
    """The smallest object that carries ``marker``."""
    value: Any = marker.value or "x"
    if value.endswith("*"):
        value = value[:-1] + "chat"
    node: dict[str, Any] = dict.fromkeys(marker.also, "x")
    *outer, last = marker.member.split("/")
    place = node
    for step in outer:
        place = place.setdefault(step, {})
    place[last] = value
    return node


@pytest.mark.parametrize("marker", MARKERS, ids=lambda m: f"{m.member}={m.value}")
def test_every_marker_is_found(marker: Marker) -> None:
    sighting = look(example(marker))
    assert sighting is not None
    first = next(m for m in MARKERS if look(example(marker), (m,)) is not None)
    assert sighting.convention == first.convention  # the first line that matches names it
    shown = marker.member.replace("/", ".")
    assert any(found.startswith(shown) for found in sighting.found)


@pytest.mark.parametrize("marker", [m for m in MARKERS if m.value or m.also], ids=str)
def test_a_marker_needs_its_value_and_its_other_members(marker: Marker) -> None:
    if marker.value is not None:
        wrong = example(marker) | {marker.member: "something else"}
        assert look(wrong, (marker,)) is None
        assert look(example(marker) | {marker.member: 7}, (marker,)) is None
    for other in marker.also:
        lacking = {k: v for k, v in example(marker).items() if k != other}
        assert look(lacking, (marker,)) is None


def test_the_first_convention_of_the_table_wins_and_every_member_is_named() -> None:
    span = {
        "name": "openai.chat",
        "attributes": [
            {"key": "gen_ai.system", "value": {"stringValue": "openai"}},
            {"key": "llm.request.type", "value": {"stringValue": "chat"}},
        ],
    }
    sighting = look({"resourceSpans": [{"scopeSpans": [{"spans": [span, span]}]}]})
    assert sighting is not None
    assert sighting.convention == "OpenLLMetry spans"
    assert sighting.found == ("llm.request.type", "gen_ai.system")
    assert sighting.describe() == "OpenLLMetry spans (llm.request.type, gen_ai.system on 2 objects)"


def test_a_console_exporters_attributes_count_and_long_lists_are_cut() -> None:
    span = {"context": {"span_id": "0x1"}, "attributes": {"gen_ai.system": "openai"}}
    assert look(span) is not None
    many = {"attributes": {m.member: m.value or "x" for m in MARKERS if not m.also}}
    sighting = look(many)
    assert sighting is not None
    assert sighting.describe().endswith(f"and {len(sighting.found) - 6} more)")


def test_plain_json_carries_no_mark() -> None:
    assert look({"name": "package", "version": "1.0", "dependencies": {"a": "1"}}) is None
    assert look([1, "two", None, {"object": "list"}]) is None


def test_a_deep_or_huge_document_is_looked_at_within_bounds() -> None:
    deep: Any = {"gen_ai.system": "openai"}
    for _ in range(markers.MAX_DEPTH + 5):
        deep = {"wrapped": deep}
    assert look(deep) is None  # too deep to be looked at: no mark seen, no recursion error
    wide = [{"n": i} for i in range(markers.MAX_OBJECTS)] + [{"gen_ai.system": "openai"}]
    assert look(wide) is None  # past the objects looked at


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({"tool_calls": [{"type": "function", "function": {"name": "f"}}]}, "tool_calls"),
        ({"output": {"message": {"content": [{"toolUse": {"name": "f"}}]}}}, "toolUse"),
        ({"parts": [{"type": "tool_call", "name": "f", "arguments": {}}]}, 'type = "tool_call"'),
        (
            {"attributes": [{"key": "gen_ai.completion.0.tool_calls.0.name", "value": {}}]},
            None,  # an attribute without a value names no call
        ),
        (
            {"attributes": {"gen_ai.completion.0.tool_calls.0.name": "f"}},
            "gen_ai.completion.0.tool_calls.0.name",
        ),
        (
            {"attributes": {"ai.response.toolCalls": '[{"toolCallId": "1", "toolName": "f"}]'}},
            "ai.response.toolCalls",
        ),
        ({"gen_ai.output.messages": '[{"parts": [{"type": "tool_call", "name": "f"}]}]'}, None),
        ({"tool_calls": []}, None),
        ({"tool_calls": [{"type": "custom", "custom": {"name": "f", "input": "x"}}]}, None),
        ({"object": "chat.completion", "choices": [{"message": {"content": "hi"}}]}, None),
        ({"tool_calls": "{not json"}, None),
    ],
)
def test_tool_calls_are_found_in_every_shape(document: dict[str, Any], where: str | None) -> None:
    if document.get("gen_ai.output.messages"):  # a text holding JSON: read as JSON
        assert calls_in(document) == 'type = "tool_call"'
        return
    assert calls_in(document) == where


def test_a_deep_document_holds_no_call_found() -> None:
    deep: Any = {"tool_calls": [{"name": "f"}]}
    for _ in range(markers.MAX_DEPTH + 5):
        deep = [deep]
    assert calls_in(deep) is None


# -- the reader ----------------------------------------------------------------------------


def reader_of(*dialects: Any, **options: Any) -> CaptureReader:
    """A reader that knows only ``dialects`` (and bare bodies)."""
    registry = Registry([d.DIALECT for d in dialects], fallback=downstream.DIALECT)
    return CaptureReader(dialects=registry, **options)


def sdk_log_export(path: Path) -> Path:
    """What the OpenTelemetry SDK writes for a GenAI ``gen_ai.choice`` event, through its
    OTLP/JSON file exporter (found by its entry point, as OTEL_LOGS_EXPORTER finds it)."""
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

    (exporter,) = entry_points(group="opentelemetry_logs_exporter", name="otlp_json_file")
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter.load()(path)))
    message = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    }
    provider.get_logger("opentelemetry.instrumentation.openai_v2").emit(
        event_name="gen_ai.choice",
        attributes={"gen_ai.system": "openai"},
        body={"index": 0, "finish_reason": "tool_calls", "message": message},
    )
    provider.shutdown()
    return path


def findings_of(calls: list[Any]) -> list[tuple[str, str]]:
    return [(f.code, f.message) for c in calls for f in c.load_findings]


def test_an_sdk_log_export_no_dialect_reads_is_not_read(tmp_path: Path) -> None:
    path = sdk_log_export(tmp_path / "logs.jsonl")
    assert "resourceLogs" in json.loads(path.read_text().splitlines()[0])
    (call,) = reader_of(openai_chat, anthropic).read([path])
    ((code, message),) = findings_of([call])
    assert code == "envelope.not_read"
    assert message == (
        'the document looks like OpenTelemetry GenAI events (eventName = "gen_ai.choice", '
        "gen_ai.system), which no capture dialect reads: no call was checked"
    )
    assert (call.source.file, call.source.line, call.dialect) == (str(path), 1, None)


def test_a_whole_file_no_dialect_reads_is_a_finding_when_marked_and_a_stop_when_not(
    tmp_path: Path,
) -> None:
    marked = tmp_path / "message.json"
    marked.write_text(json.dumps({"type": "message", "role": "assistant", "content": []}))
    reader = reader_of(openai_chat, gemini)
    ((code, message),) = findings_of(list(reader.read([marked])))
    assert code == "envelope.not_read"
    assert message.startswith('the document looks like an Anthropic Message (type = "message")')
    plain = tmp_path / "package.json"
    plain.write_text(json.dumps({"name": "x", "version": "1"}))
    with pytest.raises(NotThisKind, match="not a capture in any known dialect"):
        list(reader.read([plain]))


def test_an_item_of_a_list_no_dialect_reads_is_reported_beside_the_others(tmp_path: Path) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    other = {"type": "message", "role": "assistant", "content": []}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([call, {"note": "skipped, as before"}, other]))
    read, unread = reader_of(openai_chat).read([path])
    assert (read.tool, read.load_findings) == ("f", [])
    ((code, _),) = findings_of([unread])
    assert code == "envelope.not_read"
    assert unread.source.pointer == "/2"


def langchain_message() -> str:
    from langchain_core.messages import AIMessage

    call = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"}
    return AIMessage(content="", tool_calls=[call]).model_dump_json()


def test_calls_a_dialect_took_but_could_not_read_are_not_read(tmp_path: Path) -> None:
    """A LangChain message written with model_dump_json: OpenAI Chat takes it for an
    assistant message (it has ``tool_calls``), whose entries are no function calls."""
    path = tmp_path / "message.jsonl"
    path.write_text(langchain_message() + "\n")
    (call,) = reader_of(openai_chat).read([path])
    ((code, message),) = findings_of([call])
    assert code == "envelope.not_read"
    assert message == (
        'the document looks like a LangChain message (model_dump_json) (type = "ai") and holds '
        "tool calls (tool_calls) that no capture dialect could read: they were not checked"
    )


def test_a_dialect_that_read_nothing_of_a_document_without_calls_says_nothing(
    tmp_path: Path,
) -> None:
    text = {"role": "assistant", "content": "no tool this time", "tool_calls": []}
    path = tmp_path / "text.jsonl"
    path.write_text(json.dumps(text) + "\n")
    assert list(reader_of(openai_chat).read([path])) == []


def test_without_a_mark_the_dialect_that_took_the_document_is_named(tmp_path: Path) -> None:
    entry = {"name": "get_weather", "args": {"city": "Oslo"}, "type": "tool_call"}
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"tool_calls": [entry]}) + "\n")
    ((_, message),) = findings_of(list(reader_of(openai_chat).read([path])))
    assert message.startswith("the document was taken for openai-chat and holds tool calls")


def test_stream_events_a_dialect_takes_in_are_never_not_read(tmp_path: Path) -> None:
    """A chunk that opens a streamed call holds no call yet: its dialect's memory keeps it."""
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}
                    ]
                },
            }
        ],
    }
    done = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "delta": {}}],
    }
    path = tmp_path / "stream.jsonl"
    path.write_text(json.dumps(chunk) + "\n" + json.dumps(done) + "\n")
    (call,) = reader_of(openai_chat).read([path])
    assert (call.tool, findings_of([call])) == ("f", [])
