"""The value a tool returned and the strings of a result, at every hop."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.model import Hop, Source, ToolResult
from jsoncontract.payload import decode, payload, texts


def _result(content: Any, message: Any = None, **more: Any) -> ToolResult:
    return ToolResult(Hop.MODEL, "openai-chat", "c1", Source("f"), content, message=message, **more)


def test_structured_content_first() -> None:
    message = {"result": {"content": [], "structuredContent": {"a": 1}}}
    result = ToolResult(Hop.MCP, "mcp", "1", Source("f"), [], {"a": 1}, True, message=message)
    found = payload(result)
    assert found is not None and (found.value, found.pointer) == (
        {"a": 1},
        "/result/structuredContent",
    )


@pytest.mark.parametrize(
    ("content", "value", "pointer", "from_text"),
    [
        ('{"ok": true}', {"ok": True}, "/content", True),
        ([{"type": "text", "text": " [1, 2] "}], [1, 2], "/content/0/text", True),
        ({"temp": 3}, {"temp": 3}, "/content", False),
        ([1, 2], [1, 2], "/content", False),
    ],
)
def test_the_value_of_each_form(content: Any, value: Any, pointer: str, from_text: bool) -> None:
    found = payload(_result(content, {"role": "tool", "content": content}))
    assert found is not None
    assert (found.value, found.pointer, found.from_text) == (value, pointer, from_text)


@pytest.mark.parametrize(
    "content",
    [
        None,
        "all good",
        [{"type": "text", "text": "{}"}, {"type": "text", "text": "{}"}],
        [{"type": "image", "data": "AAA", "mimeType": "image/png"}],
        '{"broken": ',
    ],
)
def test_no_single_json_value(content: Any) -> None:
    assert payload(_result(content)) is None


def test_texts_walk_content_decoded_json_and_the_error() -> None:
    content = [{"type": "text", "text": '{"error": {"stack": "deep"}}'}]
    message = {"result": {"content": content}, "error": None}
    result = _result(content, message, error={"message": "boom", "data": ["x"]})
    assert list(texts(result)) == [
        ("/result/content/0/type", "text"),
        ("/result/content/0/text", '{"error": {"stack": "deep"}}'),
        ("/result/content/0/text", "deep"),
        ("/error/message", "boom"),
        ("/error/data/0", "x"),
    ]


def test_decode_only_objects_and_arrays() -> None:
    assert decode(' {"a": 1} ') == ({"a": 1}, True)
    assert decode("12") == (None, False)
    assert decode("[1,") == (None, False)


def test_an_answers_content_is_placed_as_the_search_places_it() -> None:
    """``/result/content`` is told without the search only where the search finds it."""
    from jsoncontract.payload import _FIND_DEPTH, _answer_content, _find

    content: list[Any] = [{"type": "text", "text": "ok"}]
    cases: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "result": {"content": content}},
        {"jsonrpc": "2.0", "id": 1, "result": {"isError": False, "content": content}},
        {"jsonrpc": "2.0", "meta": {"x": content}, "result": {"content": content}},
        {"jsonrpc": "2.0", "result": {"content": content}, "content": content},
        {"result": {"first": content, "content": content}},
        {"result": {"content": content}, "later": [content]},
        {"result": {"content": [*content]}},
        {"result": [content]},
    ]
    for message in cases:
        told = _answer_content(message, content)
        assert told is None or told == _find(message, content, "", _FIND_DEPTH), message
    assert _answer_content(cases[0], content) == "/result/content"
    assert _answer_content(cases[2], content) is None
    assert _answer_content(cases[3], content) is None
