"""The provider dialects on the shapes their SDKs do not write every day: broken documents
that carry a format's marks (``envelope.not_read``, never a pass), histories and results,
tool definitions, Mistral's rule on call ids, and the double encoding of decoded arguments.
What each SDK writes itself is read in ``test_sdk_dialects.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from jsoncontract import check
from jsoncontract.capture import CaptureReader
from jsoncontract.model import ArgumentsForm, ToolCall, offered_tools
from jsoncontract.tools.loader import load_tool_file

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]


def _read(tmp_path: Path, *documents: Any, **options: Any) -> list[ToolCall]:
    path = tmp_path / "capture.jsonl"
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in documents))
    return list(CaptureReader(**options).read([path]))


def _codes(call: ToolCall) -> list[str]:
    return [f.code for f in call.load_findings]


@pytest.mark.parametrize(
    ("document", "dialect", "what"),
    [
        ({"output": {"message": {"role": "assistant", "content": "text"}}, "stopReason": "end"},
         "bedrock-converse", "output.message.content is not a list"),
        ({"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
          "stopReason": "tool_use"}, "bedrock-converse", 'stopReason "tool_use"'),
        ({"model": "m", "created_at": "t", "done": True, "message": {"tool_calls": {}}},
         "ollama", "message.tool_calls is not a list"),
        ({"model": "m", "created_at": "t", "done": True, "message": "hi"}, "ollama",
         "message is not an object"),
        ({"id": "c", "finish_reason": "TOOL_CALL", "message": {"role": "assistant"}}, "cohere",
         'finish_reason "TOOL_CALL"'),
        ({"id": "c", "finish_reason": "COMPLETE", "message": {"tool_calls": "x"}}, "cohere",
         "message.tool_calls is not a list"),
        ({"model": "mistral-small", "choices": [{"message": {"prefix": False,
          "tool_calls": {}}}]}, "mistral", "tool_calls is not a list"),
        ({"type": "ai", "content": "", "tool_calls": "x"}, "langchain",
         "tool_calls is not a list"),
        ({"lc": 1, "type": "constructor", "id": ["langchain", "AIMessage"]}, "langchain",
         "the constructor has no kwargs object"),
        ({"call_type": "completion", "response": None, "model_parameters": {}}, "litellm",
         "response.choices is not a list"),
    ],
)  # fmt: skip
def test_a_document_with_a_formats_marks_that_cannot_be_read_is_an_error(
    tmp_path: Path, document: dict[str, Any], dialect: str, what: str
) -> None:
    (call,) = _read(tmp_path, document)
    (finding,) = call.load_findings
    assert finding.code == "envelope.not_read"
    assert finding.severity == "error"
    assert f"this looks like {dialect} ({what}" in finding.message


def test_a_failed_litellm_call_holds_nothing_to_read(tmp_path: Path) -> None:
    failed = {"call_type": "completion", "status": "failure", "response": None,
              "model_parameters": {}}  # fmt: skip
    path = tmp_path / "failed.json"
    path.write_text(json.dumps(failed))
    (call,) = CaptureReader().read([path])
    assert _codes(call) == ["envelope.no_tool_call"]


def test_decoded_arguments_that_are_a_string_holding_an_object_are_double_encoded(
    tmp_path: Path,
) -> None:
    blocks = [
        {"toolUse": {"toolUseId": i, "name": "get_weather", "input": text}}
        for i, text in (("t1", '{"city": "a"}'), ("t2", "Paris"))
    ]
    path = tmp_path / "bedrock.json"
    path.write_text(json.dumps({"output": {"message": {"content": blocks}}}))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    report = check([path], tools=[tools])
    assert [r.findings[0].code for r in report.results] == ["parse.double_encoded",
                                                           "parse.not_object"]  # fmt: skip
    assert report.results[0].call.form is ArgumentsForm.DECODED
    mcp = tmp_path / "mcp.json"
    params = {"name": "get_weather", "arguments": '{"city": "a"}'}
    mcp.write_text(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    )
    (forwarded,) = check([mcp], tools=[tools]).results
    assert forwarded.findings[0].code == "parse.string_arguments"  # a host's fault, not the model's


def test_a_bedrock_history_pairs_results_and_offers_its_tool_config(tmp_path: Path) -> None:
    spec = {"toolSpec": {"name": "get_weather", "inputSchema": {"json": SCHEMA}}}
    request = {
        "modelId": "m",
        "toolConfig": {"tools": [spec]},
        "messages": [
            {"role": "user", "content": [{"text": "Weather?"}]},
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "a"}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "t1", "content": [{"text": "sunny"}],
                                "status": "error"}}]},
        ],
    }  # fmt: skip
    (call,) = _read(tmp_path, request)
    assert call.dialect == "bedrock-converse" and call.offered is offered_tools([spec])
    assert call.result is not None and call.result.is_error is True


def test_a_bedrock_tool_spec_is_a_tool_definition(tmp_path: Path) -> None:
    spec = {"toolSpec": {"name": "get_weather", "description": "The weather.",
                         "inputSchema": {"json": SCHEMA}}}  # fmt: skip
    (tool,) = load_tool_file("config.json", data=orjson.dumps({"tools": [spec]}))
    assert (tool.name, tool.dialect, tool.input_schema) == ("get_weather", "bedrock-converse",
                                                            SCHEMA)  # fmt: skip
    assert tool.description == "The weather."


def test_a_stream_cut_off_is_reported_as_incomplete(tmp_path: Path) -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0,
                               "start": {"toolUse": {"toolUseId": "t1", "name": "get_weather"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"ci'}}}},
    ]  # fmt: skip
    (call,) = _read(tmp_path, *events)
    assert call.arguments == '{"ci' and _codes(call) == ["envelope.incomplete_stream"]


def test_a_streamed_tool_use_without_input_has_empty_arguments(tmp_path: Path) -> None:
    events = [
        {"contentBlockStart": {"contentBlockIndex": 2,
                               "start": {"toolUse": {"toolUseId": "t1", "name": "get_time"}}}},
        {"contentBlockStop": {"contentBlockIndex": 2}},
    ]  # fmt: skip
    (call,) = _read(tmp_path, *events)
    assert (call.arguments, call.form, call.load_findings) == ({}, ArgumentsForm.VALUE, [])


def test_mistral_ids_of_another_form_are_warned_of(tmp_path: Path) -> None:
    calls = [{"id": i, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
             for i in ("Ab3dEf9hZ", "call_abc", "Ab3dEf9h")]  # fmt: skip
    response = {"id": "m", "object": "chat.completion", "model": "mistral-large-latest",
                "choices": [{"message": {"role": "assistant", "tool_calls": calls}}]}  # fmt: skip
    found = _read(tmp_path, response)
    assert [c.dialect for c in found] == ["mistral"] * 3
    assert [_codes(c) for c in found] == [[], ["envelope.call_id_format"],
                                          ["envelope.call_id_format"]]  # fmt: skip
    response["model"] = "gpt-4o"  # no prefix, another model: OpenAI's, no rule
    assert {c.dialect for c in _read(tmp_path, response)} == {"openai-chat"}


def test_langchain_results_answer_their_calls(tmp_path: Path) -> None:
    ai = {"type": "ai", "content": "", "id": "run-1", "invalid_tool_calls": [],
          "tool_calls": [{"name": "get_weather", "args": {"city": "a"}, "id": "c1"}]}  # fmt: skip
    tool = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages",
            "ToolMessage"], "kwargs": {"content": "sunny", "tool_call_id": "c1",
            "status": "success", "type": "tool"}}  # fmt: skip
    human = {"lc": 1, "type": "constructor", "id": ["langchain", "HumanMessage"],
             "kwargs": {"content": "hi"}}  # fmt: skip
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps([human, ai, tool]))
    (call,) = CaptureReader().read([path])
    assert call.dialect == "langchain" and call.form is ArgumentsForm.DECODED
    assert call.result is not None and call.result.content == "sunny"
    assert call.result.is_error is False


def test_an_invalid_langchain_call_without_args_has_none(tmp_path: Path) -> None:
    ai = {"type": "ai", "tool_calls": [],
          "invalid_tool_calls": [{"name": "get_weather", "args": None, "id": "c1"}]}  # fmt: skip
    (call,) = _read(tmp_path, ai)
    assert call.form is ArgumentsForm.MISSING


@pytest.mark.parametrize("dialect", ["bedrock-converse", "ollama", "cohere", "mistral",
                                     "langchain", "litellm"])  # fmt: skip
def test_each_dialect_can_be_forced(tmp_path: Path, dialect: str) -> None:
    path = tmp_path / "nothing.jsonl"
    path.write_text('{"unrelated": 1}\n')
    (call,) = CaptureReader(dialect=dialect).read([path])
    assert _codes(call) == ["envelope.unknown_dialect"]
