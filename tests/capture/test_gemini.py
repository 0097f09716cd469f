"""Gemini captures: GenerateContentResponse, Content, parts and functionCall."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsoncontract.model import ArgumentsForm, Dialect, Hop, Severity, ToolCall

Write = Callable[[str, object], Path]
Read = Callable[..., list[ToolCall]]
Findings = Callable[[ToolCall], list[tuple[str, Severity]]]

CALL: dict[str, Any] = {
    "name": "get_weather",
    "args": {"city": "Singapore", "days": 3},
    "id": "n5g",
}
PARTS: list[dict[str, Any]] = [
    {"text": "Let me check."},
    {"functionCall": CALL, "thoughtSignature": "gZhmyVTy1J9RUP6D"},
    {"functionCall": {"name": "list_cities"}},
]
RESPONSE = """\
{
  "candidates": [
    {
      "content": {
        "role": "model",
        "parts": [
          {"text": "Let me check."},
          {
            "functionCall": {
              "name": "get_weather", "args": {"city": "Singapore", "days": 3}, "id": "n5g"
            },
            "thoughtSignature": "gZhmyVTy1J9RUP6D"
          },
          {"functionCall": {"name": "list_cities"}}
        ]
      },
      "finishReason": "STOP",
      "index": 0
    }
  ],
  "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 14},
  "modelVersion": "gemini-2.5-flash"
}
"""


def test_generate_content_response(write: Write, read: Read, findings: Findings) -> None:
    weather, cities = read(write("response.json", RESPONSE))
    assert (weather.hop, weather.dialect, weather.tool, weather.call_id) == (
        Hop.MODEL,
        Dialect.GEMINI,
        "get_weather",
        "n5g",
    )
    assert (weather.arguments, weather.form) == (CALL["args"], ArgumentsForm.VALUE)
    assert (weather.source.line, weather.source.pointer) == (
        9,
        "/candidates/0/content/parts/1/functionCall",
    )
    # a call without args means no arguments
    assert (cities.tool, cities.call_id, cities.arguments, cities.source.line) == (
        "list_cities",
        None,
        {},
        14,
    )
    assert findings(weather) == findings(cities) == []


def test_content_parts_part_and_function_call(write: Write, read: Read) -> None:
    content = {"role": "model", "parts": PARTS}
    assert [(c.tool, c.source.line) for c in read(write("content.json", content))] == [
        ("get_weather", 8),
        ("list_cities", 19),
    ]
    # a list of parts, text parts included
    assert [(c.tool, c.source.line) for c in read(write("parts.json", PARTS))] == [
        ("get_weather", 6),
        ("list_cities", 17),
    ]
    (part,) = read(write("part.json", PARTS[1]))
    assert (part.tool, part.arguments, part.source.line) == ("get_weather", CALL["args"], 2)
    (bare,) = read(write("call.json", CALL))
    assert (bare.dialect, bare.tool, bare.call_id, bare.source.line) == (
        Dialect.GEMINI,
        "get_weather",
        "n5g",
        1,
    )


def test_python_sdk_snake_case(write: Write, read: Read, findings: Findings) -> None:
    (call,) = read(write("sdk.json", {"function_call": {"name": "get_weather", "args": {"a": 1}}}))
    assert (call.dialect, call.tool, call.arguments) == (Dialect.GEMINI, "get_weather", {"a": 1})
    (call,) = read(write("sdk-empty.json", {"function_call": {"name": "list_cities"}}))
    assert (call.dialect, call.tool, call.arguments) == (Dialect.GEMINI, "list_cities", {})
    assert findings(call) == []
    content = {"role": "model", "parts": [{"function_call": {"id": "x", "name": "f"}}]}
    (call,) = read(write("sdk-content.json", content))
    assert (call.call_id, call.source.pointer) == ("x", "/parts/0/function_call")


def test_openai_legacy_function_call_is_not_read_as_gemini(
    write: Write, read: Read, findings: Findings
) -> None:
    message = {"role": "assistant", "content": None, "function_call": {"name": "f"}}
    (call,) = read(write("legacy.json", message))
    assert call.dialect is Dialect.OPENAI_CHAT
    assert findings(call) == [("envelope.malformed", Severity.ERROR)]


def test_function_call_without_name(write: Write, read: Read, findings: Findings) -> None:
    (call,) = read(write("c.json", {"parts": [{"functionCall": {"args": {}}}]}))
    assert (call.tool, findings(call)) == (None, [("envelope.malformed", Severity.ERROR)])


def test_streamed_chunks_are_whole_parts(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    def chunk(call_id: str) -> dict[str, Any]:
        part = {"functionCall": {**CALL, "id": call_id}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}

    text_chunk = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}]}
    calls = read(write("stream.jsonl", jsonl(text_chunk, chunk("a1"), chunk("a2"))))
    assert [(c.tool, c.source.line) for c in calls] == [("get_weather", 2), ("get_weather", 3)]


def test_a_chunk_logged_twice_is_one_call(
    write: Write, read: Read, jsonl: Callable[..., str]
) -> None:
    # the same call id seen again (a gateway that logs a retried response twice) is one call
    chunk = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": CALL}]}}]}
    calls = read(write("stream.jsonl", jsonl(chunk, chunk)))
    assert [(c.tool, c.source.line) for c in calls] == [("get_weather", 1)]


def test_response_without_function_calls(write: Write, read: Read, findings: Findings) -> None:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Sunny."}]}}]}
    (call,) = read(write("r.json", response))
    assert findings(call) == [("envelope.no_tool_call", Severity.WARNING)]
