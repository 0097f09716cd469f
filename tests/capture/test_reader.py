"""The capture reader: file kinds, stdin, bad lines and bad files, anomalies, forced dialects."""

from __future__ import annotations

import os
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from jsoncontract.capture import CaptureReader
from jsoncontract.capture.interface import DocContext
from jsoncontract.errors import InputError
from jsoncontract.model import ArgumentsForm, Dialect, Hop, Severity, Stage, ToolCall

Write = Callable[[str, object], Path]
Read = Callable[..., list[ToolCall]]
Findings = Callable[[ToolCall], list[tuple[str, Severity]]]
Jsonl = Callable[..., str]

ERROR = Severity.ERROR
WARN = Severity.WARNING


def tool_call(n: int, name: str = "get_weather") -> dict[str, Any]:
    return {
        "id": f"call_{n}",
        "type": "function",
        "function": {"name": name, "arguments": f'{{"n":{n}}}'},
    }


def tool_use(n: int) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{n}", "name": "get_weather", "input": {"n": n}}


def ids(calls: list[ToolCall]) -> list[tuple[str | None, int | None]]:
    return [(c.call_id, c.source.line) for c in calls]


# -- file kinds ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".jsonlines", ".JSONL"])
def test_json_lines(write: Write, read: Read, jsonl: Jsonl, suffix: str) -> None:
    path = write(f"trace{suffix}", jsonl(tool_call(1), tool_use(2), tool_call(3)))
    calls = read(path)
    assert ids(calls) == [("call_1", 1), ("toolu_2", 2), ("call_3", 3)]
    assert [c.dialect for c in calls] == [
        Dialect.OPENAI_CHAT,
        Dialect.ANTHROPIC,
        Dialect.OPENAI_CHAT,
    ]
    assert {c.source.file for c in calls} == {str(path)}
    assert all(c.source.pointer is None for c in calls)  # one line holds the whole document


def test_blank_lines_are_skipped_and_still_counted(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    text = jsonl("", tool_call(1), "   ", "\t", tool_call(2), "") + "\r\n" + jsonl(tool_call(3))
    calls = read(write("t.jsonl", text))
    assert ids(calls) == [("call_1", 2), ("call_2", 5), ("call_3", 8)]
    assert [findings(c) for c in calls] == [[], [], []]


def test_crlf_line_endings(write: Write, read: Read) -> None:
    text = orjson.dumps(tool_call(1)) + b"\r\n" + orjson.dumps(tool_call(2)) + b"\r\n"
    assert ids(read(write("t.jsonl", text))) == [("call_1", 1), ("call_2", 2)]


def test_last_line_without_newline(write: Write, read: Read) -> None:
    text = orjson.dumps(tool_call(1)) + b"\n" + orjson.dumps(tool_call(2))
    assert ids(read(write("t.jsonl", text))) == [("call_1", 1), ("call_2", 2)]


def test_garbage_lines_are_reported_and_the_rest_is_read(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    text = jsonl(
        tool_call(1),
        "2025-10-31T10:21:07.512Z WARN gateway.proxy: upstream read timeout, retrying",
        '{"id": "call_x", "type": "function", "function": {"name": "f", "argu',
        "```json",
        tool_call(5),
        '{"model": "gpt-4.1", "usage": {"total_tokens": 883}}',
        tool_call(7),
    )
    path = write("trace.jsonl", text)
    calls = read(path)
    assert [(c.call_id, c.source.line, findings(c)) for c in calls] == [
        ("call_1", 1, []),
        (None, 2, [("parse.invalid_json", ERROR)]),
        (None, 3, [("parse.truncated", ERROR)]),
        (None, 4, [("parse.invalid_json", ERROR)]),
        ("call_5", 5, []),
        (None, 6, [("envelope.unknown_dialect", ERROR)]),
        ("call_7", 7, []),
    ]
    garbage = calls[1]
    assert (garbage.hop, garbage.dialect, garbage.tool, garbage.arguments) == (
        None,
        None,
        None,
        None,
    )
    assert garbage.form is ArgumentsForm.MISSING
    assert garbage.source.file == str(path)
    (finding,) = garbage.load_findings
    assert finding.stage is Stage.PARSE
    assert finding.message.startswith("line 2 is not JSON: the text is not JSON at all")
    assert finding.hint
    unknown = calls[5].load_findings[0]
    assert unknown.stage is Stage.ENVELOPE
    assert unknown.message == (
        "line 6 is JSON but no known capture dialect (an object with members model, usage)"
    )


def test_garbage_line_keeps_the_tool_given(write: Write, read: Read, jsonl: Jsonl) -> None:
    (call,) = read(write("t.jsonl", jsonl("not json")), tool="searchInvoices")
    assert call.tool == "searchInvoices"


def test_a_line_in_no_dialect_holding_a_scalar(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    (call,) = read(write("t.jsonl", jsonl("42")))
    assert findings(call) == [("envelope.unknown_dialect", ERROR)]
    assert call.load_findings[0].message == (
        "line 1 is JSON but no known capture dialect (a JSON integer holds no call)"
    )


def test_a_line_holding_an_empty_object(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    (call,) = read(write("t.jsonl", jsonl({})))
    assert call.load_findings[0].message.endswith("(an empty object)")


def test_oversized_line_is_reported_and_skipped(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    big = tool_call(2)
    big["function"]["arguments"] = '{"note":"' + "x" * 500 + '"}'
    calls = read(write("t.jsonl", jsonl(tool_call(1), big, tool_call(3))), max_line_bytes=200)
    assert [(c.call_id, c.source.line, findings(c)) for c in calls] == [
        ("call_1", 1, []),
        (None, 2, [("parse.too_large", ERROR)]),
        ("call_3", 3, []),
    ]
    assert calls[1].load_findings[0].message == (
        "the line is longer than 200 bytes and was skipped"
    )


def test_an_oversized_line_is_never_held_in_memory(write: Write, jsonl: Jsonl) -> None:
    size = 24 * 1024 * 1024
    big = tool_call(2)
    big["function"]["arguments"] = '{"blob":"' + "x" * size + '"}'
    path = write("big.jsonl", jsonl(tool_call(1), big, tool_call(3)))
    del big
    reader = CaptureReader(max_line_bytes=64 * 1024)
    tracemalloc.start()
    try:
        calls = list(reader.read([path]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [c.call_id for c in calls] == ["call_1", None, "call_3"]
    assert peak < 4 * 1024 * 1024, (
        f"peak {peak / 1e6:.1f} MB while skipping a {size / 1e6:.0f} MB line"
    )


def test_json_lines_are_streamed_not_loaded_whole(
    write: Write, jsonl: Jsonl, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsoncontract.capture import reader

    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("a JSONL trace was read whole")

    monkeypatch.setattr(reader, "read_bytes", refuse)
    path = write("t.jsonl", jsonl(tool_call(1), tool_call(2)))
    calls = CaptureReader().read([path])
    assert next(calls).call_id == "call_1"
    assert next(calls).call_id == "call_2"


def test_a_json_file_that_is_really_json_lines(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    text = jsonl(tool_call(1), tool_use(2), "", "garbage", tool_call(5))
    calls = read(write("trace.json", text))
    assert [(c.call_id, c.source.line, findings(c)) for c in calls] == [
        ("call_1", 1, []),
        ("toolu_2", 2, []),
        (None, 4, [("parse.invalid_json", ERROR)]),
        ("call_5", 5, []),
    ]


def test_one_json_document_per_file(write: Write, read: Read) -> None:
    doc = {"role": "assistant", "tool_calls": [tool_call(1), tool_call(2)]}
    path = write("message.json", doc)
    calls = read(path)
    assert ids(calls) == [("call_1", 4), ("call_2", 12)]
    assert [c.source.pointer for c in calls] == ["/tool_calls/0", "/tool_calls/1"]


def test_a_document_broken_in_the_middle_is_not_json(write: Write, read: Read) -> None:
    path = write("response.json", '{\n  "choices": [\n    {"index": 0,}\n  ]\n}\n')
    with pytest.raises(InputError) as info:
        read(path)
    err = info.value
    assert err.message.startswith("not JSON (trailing comma):")
    assert (err.file, err.line, err.column) == (str(path), 3, 16)


@pytest.mark.parametrize("name", ["stream.sse", "stream.txt", "stream.json"])
def test_server_sent_events(
    write: Write,
    read: Read,
    sse_text: Callable[..., str],
    findings: Findings,
    name: str,
) -> None:
    # .sse by name; any other file by its first line (data: or event:)
    text = ": keep-alive\n\n" if name == "stream.sse" else ""
    text += sse_text(tool_call(1), named=False) + "event: ping\ndata: {}\n\n"
    text += sse_text(tool_use(2)) + "data: [DONE]\n\n"
    calls = read(write(name, text))
    assert [(c.call_id, c.source.line) for c in calls if c.call_id] == [
        ("call_1", 3 if name == "stream.sse" else 1),
        ("toolu_2", 8 if name == "stream.sse" else 6),
    ]


def test_server_sent_events_with_a_multi_line_data_field(write: Write, read: Read) -> None:
    text = 'event: message\ndata: {"id": "call_1", "type": "function",\ndata: '
    text += '"function": {"name": "f", "arguments": "{}"}}\n\n'
    (call,) = read(write("s.sse", text))
    assert (call.call_id, call.source.line) == ("call_1", 2)


def test_server_sent_events_garbage_event(write: Write, read: Read, findings: Findings) -> None:
    text = "data: {not json}\n\n" + "data: " + orjson.dumps(tool_call(1)).decode() + "\n\n"
    calls = read(write("s.sse", text))
    assert [(c.call_id, c.source.line, findings(c)) for c in calls] == [
        (None, 1, [("parse.invalid_json", ERROR)]),
        ("call_1", 3, []),
    ]


# -- bad files ----------------------------------------------------------------------------


def test_missing_file(tmp_path: Path, read: Read) -> None:
    with pytest.raises(InputError) as info:
        read(tmp_path / "nope.jsonl")
    assert str(info.value) == f"{tmp_path / 'nope.jsonl'}: no such file or directory"


@pytest.mark.parametrize("name", ["empty.json", "empty.har", "empty.sse"])
def test_empty_file(write: Write, read: Read, name: str) -> None:
    path = write(name, "  \n")
    with pytest.raises(InputError) as info:
        read(path)
    assert str(info.value) == f"{path}: file is empty"


def test_empty_jsonl_file_is_refused(write: Write, read: Read) -> None:
    # not a silent "0 calls": a trace that holds nothing is not a trace that passed
    with pytest.raises(InputError, match="file is empty"):
        read(write("empty.jsonl", ""))


def test_binary_file(write: Write, read: Read) -> None:
    path = write("capture.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError) as info:
        read(path)
    assert info.value.file == str(path)
    assert info.value.message.startswith("not JSON")
    str(info.value).encode("utf-8")  # printable


def test_binary_file_is_diagnosed_as_invalid_utf8(write: Write, read: Read) -> None:
    with pytest.raises(InputError, match=r"not JSON \(invalid utf8\)"):
        read(write("capture.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))


def test_binary_line_in_a_trace_is_reported_and_skipped(
    write: Write, read: Read, findings: Findings
) -> None:
    text = b"\xff\xfe\x00garbage\n" + orjson.dumps(tool_call(2)) + b"\n"
    first, second = read(write("t.jsonl", text))
    assert (first.call_id, first.source.line, findings(first)) == (
        None,
        1,
        [("parse.invalid_utf8", ERROR)],
    )
    assert first.load_findings[0].message == (
        "line 1 is not JSON: byte 0xff at offset 0 is not valid UTF-8"
    )
    assert (second.call_id, second.source.line) == ("call_2", 2)


def test_a_truncated_line_is_truncated_not_a_control_character(
    write: Write, read: Read, findings: Findings
) -> None:
    text = b'{"id": "call_1", "type": "function", "function": {"name": "f", "argu\r\n'
    (call,) = read(write("t.jsonl", text))
    assert findings(call) == [("parse.truncated", ERROR)]
    assert call.load_findings[0].message == (
        "line 1 is not JSON: the JSON ends early, inside an unclosed string"
    )


def test_nesting_100000_levels_deep(write: Write, read: Read, findings: Findings) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    path = write("deep.json", deep)
    with pytest.raises(InputError) as info:
        read(path)
    assert (
        str(info.value) == f"{path}:1:1026: not JSON (too deep): nested more than 1024 levels deep"
    )
    first, second = read(write("deep.jsonl", deep + "\n" + orjson.dumps(tool_use(2)).decode()))
    assert (first.source.line, findings(first)) == (1, [("parse.too_deep", ERROR)])
    assert first.load_findings[0].message == "line 1 is not JSON: nested more than 1024 levels deep"
    assert (second.call_id, second.source.line) == ("toolu_2", 2)


@pytest.mark.parametrize("depth", [300, 1000])
def test_arguments_nested_deep_but_within_the_limit_are_read(
    write: Write, read: Read, jsonl: Jsonl, depth: int
) -> None:
    arguments = '{"a": ' * depth + "1" + "}" * depth
    text = '{"type": "tool_use", "id": "t", "name": "f", "input": ' + arguments + "}"
    (call,) = read(write("deep.json", text))
    assert call.call_id == "t"
    inner = call.arguments
    for _ in range(depth):
        inner = inner["a"]
    assert inner == 1
    (line,) = read(write("deep.jsonl", text + "\n"))
    assert (line.call_id, line.load_findings) == ("t", [])


@pytest.mark.parametrize(
    ("opening", "closing", "depth"),
    [
        ("[", "]", 1000),
        ('{"hop": "mcp", "payload": ', "}", 1000),
        ('{"hop": "mcp", "payload": [', "]}", 500),
    ],
)
def test_calls_nested_deep_in_lists_and_records(
    write: Write, read: Read, findings: Findings, opening: str, closing: str, depth: int
) -> None:
    call = '{"type": "tool_use", "id": "t", "name": "f", "input": {}}'
    shallow = opening * 20 + call + closing * 20
    deep = opening * depth + call + closing * depth  # JSON, but deeper than any capture
    (found,) = read(write("shallow.json", shallow))
    assert found.call_id == "t"
    path = write("deep.json", deep)
    with pytest.raises(InputError, match="calls nested more than 64 levels deep"):
        read(path)
    # in a trace, the line is reported and the rest is read
    first, second = read(write("deep.jsonl", deep + "\n" + shallow + "\n"))
    assert findings(first) == [("envelope.unknown_dialect", ERROR)]
    assert "calls nested more than 64 levels deep" in first.load_findings[0].message
    assert (second.call_id, second.source.line) == ("t", 2)


def test_a_whole_file_in_no_known_dialect(write: Write, read: Read) -> None:
    path = write("package.json", {"name": "my-app", "version": "1.0.0", "private": True})
    with pytest.raises(InputError) as info:
        read(path)
    assert str(info.value) == (
        f"{path}: not a capture in any known dialect (an object with members name, private, "
        "version); for a bare request body use --tool NAME (and --dialect downstream)"
    )


@pytest.mark.parametrize(
    "doc",
    [
        [{"a": 1}, {"b": 2}],
        [],
        {"object": "list", "data": []},
    ],
)
def test_other_shapes_in_no_known_dialect(write: Write, read: Read, doc: object) -> None:
    path = write("x.json", doc)
    if doc == []:
        (call,) = read(path)  # an empty list holds no call: a warning, not an error
        assert call.load_findings[0].code == "envelope.no_tool_call"
        return
    with pytest.raises(InputError, match="not a capture in any known dialect"):
        read(path)


def test_a_whole_file_without_a_tool_call(write: Write, read: Read, findings: Findings) -> None:
    response = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi!"},
                "finish_reason": "stop",
            }
        ],
    }
    path = write("response.json", response)
    (call,) = read(path)
    assert findings(call) == [("envelope.no_tool_call", WARN)]
    assert (call.hop, call.dialect, call.tool, call.call_id) == (None, None, None, None)
    assert (call.source.file, call.source.line) == (str(path), 1)
    assert call.load_findings[0].hint == (
        "check that this is the response in which the model called a tool"
    )


def test_a_list_holding_calls_among_other_items(write: Write, read: Read) -> None:
    blocks = [{"type": "text", "text": "Checking."}, tool_use(1), {"type": "thinking"}]
    assert ids(read(write("blocks.json", blocks))) == [("toolu_1", 6)]


def test_a_bad_file_found_in_a_directory_is_a_finding(
    write: Write, tmp_path: Path, jsonl: Jsonl
) -> None:
    write("captures/a.jsonl", jsonl(tool_call(1)))
    bad = write("captures/b.json", "{ nope")
    write("captures/c.jsonl", jsonl(tool_call(3)))
    calls = list(CaptureReader().read([tmp_path / "captures"]))
    assert [c.call_id for c in calls] == ["call_1", None, "call_3"]  # the rest still read
    (finding,) = calls[1].load_findings
    assert finding.code == "input.unreadable" and finding.message.startswith("not JSON")
    assert calls[1].source.line == 1
    with pytest.raises(InputError, match=r"b\.json:1:3: not JSON"):  # named: the job stops
        list(CaptureReader().read([bad]))


# -- byte order marks ---------------------------------------------------------------------

BOM = b"\xef\xbb\xbf"


def test_byte_order_mark_on_a_json_document(write: Write, read: Read) -> None:
    doc = orjson.dumps(
        {"role": "assistant", "tool_calls": [tool_call(1)]}, option=orjson.OPT_INDENT_2
    )
    assert ids(read(write("m.json", BOM + doc))) == [("call_1", 4)]


def test_byte_order_mark_on_json_lines(write: Write, read: Read, findings: Findings) -> None:
    text = BOM + orjson.dumps(tool_call(1)) + b"\nnot json\n" + orjson.dumps(tool_call(3)) + b"\n"
    calls = read(write("t.jsonl", text))
    assert [(c.call_id, c.source.line, findings(c)) for c in calls] == [
        ("call_1", 1, []),
        (None, 2, [("parse.invalid_json", ERROR)]),
        ("call_3", 3, []),
    ]


def test_byte_order_mark_on_server_sent_events(write: Write, read: Read) -> None:
    text = BOM + b"data: " + orjson.dumps(tool_call(1)) + b"\n\n"
    assert ids(read(write("s.txt", text))) == [("call_1", 1)]


# -- standard input -----------------------------------------------------------------------


def test_stdin_as_json_lines(
    stdin: Callable[[bytes], None], read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    stdin(("\n\n" + jsonl(tool_call(1), "garbage", tool_use(3))).encode())
    calls = read("-")
    assert [(c.call_id, c.source.file, c.source.line, findings(c)) for c in calls] == [
        ("call_1", "-", 3, []),
        (None, "-", 4, [("parse.invalid_json", ERROR)]),
        ("toolu_3", "-", 5, []),
    ]


def test_stdin_as_one_document(stdin: Callable[[bytes], None], read: Read) -> None:
    doc = {"role": "assistant", "tool_calls": [tool_call(1), tool_call(2)]}
    stdin(b"\n" + orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    assert ids(read("-")) == [("call_1", 5), ("call_2", 13)]


def test_stdin_one_compact_document(stdin: Callable[[bytes], None], read: Read) -> None:
    stdin(orjson.dumps({"role": "assistant", "tool_calls": [tool_call(1)]}))
    assert ids(read("-")) == [("call_1", 1)]


def test_stdin_server_sent_events(
    stdin: Callable[[bytes], None], read: Read, sse_text: Callable[..., str]
) -> None:
    stdin(sse_text(tool_call(1), tool_call(2)).encode())
    assert ids(read("-")) == [("call_1", 1), ("call_2", 3)]


def test_stdin_with_a_byte_order_mark(
    stdin: Callable[[bytes], None], read: Read, jsonl: Jsonl
) -> None:
    stdin(BOM + jsonl(tool_call(1), tool_call(2)).encode())
    assert ids(read("-")) == [("call_1", 1), ("call_2", 2)]


@pytest.mark.parametrize("data", [b"", b"\n \n\t\n"])
def test_stdin_empty(stdin: Callable[[bytes], None], read: Read, data: bytes) -> None:
    stdin(data)
    with pytest.raises(InputError) as info:
        read("-")
    assert str(info.value) == "-: the input is empty"


def test_stdin_not_json(stdin: Callable[[bytes], None], read: Read) -> None:
    stdin(b"\n{\n  'city': 'Porto'\n}\n")
    with pytest.raises(InputError) as info:
        read("-")
    assert (info.value.file, info.value.line) == ("-", 3)
    assert info.value.message.startswith("not JSON (single quotes)")


def test_stdin_document_over_the_size_limit(
    stdin: Callable[[bytes], None], read: Read, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsoncontract.capture import reader

    monkeypatch.setattr(reader, "MAX_DOCUMENT_BYTES", 100)
    doc = {"role": "assistant", "tool_calls": [tool_call(1), tool_call(2)]}
    stdin(orjson.dumps(doc, option=orjson.OPT_INDENT_2))  # not one document per line
    with pytest.raises(InputError, match=r"^-: the input is over the 0 MB limit for one JSON"):
        read("-")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_holding_one_document(tmp_path: Path, read: Read) -> None:
    fifo = tmp_path / "capture"
    os.mkfifo(fifo)
    doc = {"role": "assistant", "tool_calls": [tool_call(1), tool_call(2)]}
    text = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    writer = threading.Thread(target=fifo.write_bytes, args=(text,))
    writer.start()
    try:
        assert ids(read(fifo)) == [("call_1", 4), ("call_2", 12)]
    finally:
        writer.join(timeout=30)


def test_a_file_gone_before_it_is_read(tmp_path: Path) -> None:
    reader = CaptureReader()
    with pytest.raises(InputError, match="cannot read: No such file"):
        list(reader.read_file(tmp_path / "gone.jsonl"))


def test_stdin_oversized_line(
    stdin: Callable[[bytes], None], read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    stdin(jsonl(tool_call(1), {"pad": "x" * 400}, tool_call(3)).encode())
    calls = read("-", max_line_bytes=200)
    assert [(c.call_id, c.source.line, findings(c)) for c in calls] == [
        ("call_1", 1, []),
        (None, 2, [("parse.too_large", ERROR)]),
        ("call_3", 3, []),
    ]


# -- anomalies ----------------------------------------------------------------------------


def test_invalid_utf8_inside_arguments_is_located(write: Write, read: Read, jsonl: Jsonl) -> None:
    line = (
        b'{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"S\xe3o Paulo"}}'
    )
    text = orjson.dumps(tool_use(0)) + b"\n" + line + b"\n"
    first, second = read(write("t.jsonl", text))
    assert first.anomalies == ()
    assert [(a.kind, a.pointer) for a in second.anomalies] == [("invalid_utf8", "/city")]
    assert second.load_findings == []
    assert (second.call_id, second.source.line) == ("toolu_1", 2)


def test_invalid_utf8_inside_an_arguments_string(write: Write, read: Read) -> None:
    text = b'{"id":"call_1","type":"function","function":{"name":"f",'
    text += b'"arguments":"{\\"c\\":\\"\xe3\\"}"}}'
    (call,) = read(write("c.json", text))
    assert call.form is ArgumentsForm.TEXT
    assert [(a.kind, a.pointer) for a in call.anomalies] == [("invalid_utf8", "")]


def test_duplicate_keys_inside_arguments_are_located(write: Write, read: Read) -> None:
    text = (
        '{\n  "type": "tool_use",\n  "id": "toolu_1",\n  "name": "update_shipment",\n'
        '  "input": {"order_id": "ORD-1", "priority": "standard", "priority": "overnight"}\n}\n'
    )
    (call,) = read(write("c.json", text))
    assert call.arguments == {"order_id": "ORD-1", "priority": "overnight"}
    (anomaly,) = call.anomalies
    assert (anomaly.kind, anomaly.pointer) == ("duplicate_key", "/priority")
    assert call.load_findings == []


def test_big_integer_and_nan_inside_arguments(write: Write, read: Read) -> None:
    text = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f", '
        '"arguments": {"amount": 18446744073709551616, "ratio": NaN}}}'
    )
    (call,) = read(write("c.json", text))
    assert call.arguments["amount"] == 2**64  # exact, not a float
    assert sorted((a.kind, a.pointer) for a in call.anomalies) == [
        ("big_integer", "/amount"),
        ("nan_infinity", "/ratio"),
    ]


def test_anomalies_are_kept_apart_per_call(write: Write, read: Read) -> None:
    text = (
        '{"role": "assistant", "content": ['
        '{"type": "tool_use", "id": "a", "name": "f", "input": {"x": 1, "x": 2}},'
        '{"type": "tool_use", "id": "b", "name": "f", "input": {"y": 1, "y": 2}}]}'
    )
    first, second = read(write("m.json", text))
    assert [(a.kind, a.pointer) for a in first.anomalies] == [("duplicate_key", "/x")]
    assert [(a.kind, a.pointer) for a in second.anomalies] == [("duplicate_key", "/y")]


def test_anomaly_in_the_envelope(write: Write, read: Read, findings: Findings) -> None:
    text = '{"type": "tool_use", "id": "toolu_1", "id": "toolu_2", "name": "f", "input": {}}'
    (call,) = read(write("c.json", text))
    assert call.call_id == "toolu_2"
    assert findings(call) == [("envelope.duplicate_key", ERROR)]
    finding = call.load_findings[0]
    assert finding.stage is Stage.ENVELOPE
    assert finding.message == (
        "in the call envelope: key 'id' appears more than once; parsers disagree on which value "
        "wins (this one keeps the last)"
    )
    assert call.anomalies == ()


def test_anomaly_above_the_calls_makes_each_ambiguous(
    write: Write, read: Read, findings: Findings
) -> None:
    first = orjson.dumps([tool_call(1)]).decode()
    second = orjson.dumps([tool_call(2)]).decode()
    text = f'{{"role": "assistant", "tool_calls": {first}, "tool_calls": {second}}}'
    (call,) = read(write("m.json", text))
    assert call.call_id == "call_2"  # the last one wins, and that is flagged
    assert findings(call) == [("envelope.duplicate_key", ERROR)]


def test_anomaly_beside_the_call_is_not_the_calls(
    write: Write, read: Read, findings: Findings
) -> None:
    call_text = orjson.dumps(tool_call(1)).decode()
    text = '{"id": "a", "id": "b", "object": "chat.completion", "choices": [{"index": 0, '
    text += f'"message": {{"role": "assistant", "tool_calls": [{call_text}]}}}}]}}'
    (call,) = read(write("m.json", text))
    assert findings(call) == []


def test_anomaly_in_the_envelope_of_a_trace_line(
    write: Write, read: Read, findings: Findings
) -> None:
    text = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}\n'
    (call,) = read(write("t.jsonl", text))
    assert (call.tool, findings(call)) == ("b", [("envelope.duplicate_key", ERROR)])


# -- forcing a dialect --------------------------------------------------------------------


def test_forced_dialect_reads_an_ambiguous_shape(write: Write, read: Read) -> None:
    (call,) = read(write("call.json", {"name": "get_weather", "args": {"city": "Oslo"}}))
    assert call.dialect is Dialect.GEMINI
    forced = read(write("call2.json", {"name": "get_weather", "args": {}}), dialect=Dialect.GEMINI)
    assert forced[0].dialect is Dialect.GEMINI


@pytest.mark.parametrize(
    ("doc", "dialect"),
    [(tool_use(1), Dialect.GEMINI), (tool_call(1), Dialect.ANTHROPIC)],
)
def test_forced_dialect_refuses_other_dialects(
    write: Write, read: Read, doc: dict[str, Any], dialect: Dialect
) -> None:
    with pytest.raises(InputError, match="not a capture in any known dialect"):
        read(write("c.json", doc), dialect=dialect)


def test_a_forced_dialect_that_does_not_read_a_message_of_another_says_so(
    write: Write, read: Read, findings: Findings
) -> None:
    frame = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f"}}
    (call,) = read(write("c.json", frame), dialect=Dialect.OPENAI_CHAT)
    assert findings(call) == [("envelope.not_read", ERROR)]
    assert call.load_findings[0].message == (
        "the document looks like an MCP message (jsonrpc), which --dialect openai-chat does "
        "not read: no call was checked"
    )


def test_forced_dialect_in_a_trace(
    write: Write, read: Read, jsonl: Jsonl, findings: Findings
) -> None:
    calls = read(write("t.jsonl", jsonl(tool_use(1), tool_call(2))), dialect=Dialect.ANTHROPIC)
    assert [(c.call_id, c.dialect, findings(c)) for c in calls] == [
        ("toolu_1", Dialect.ANTHROPIC, []),
        (None, None, [("envelope.unknown_dialect", ERROR)]),
    ]


def test_forced_mcp_reads_a_request_without_jsonrpc(write: Write, read: Read) -> None:
    body = {"id": 1, "method": "tools/call", "params": {"name": "f", "arguments": {}}}
    (call,) = read(write("c.json", body), dialect=Dialect.MCP)
    assert (call.hop, call.tool) == (Hop.MCP, "f")


# -- directories, counters, embedding -----------------------------------------------------


def test_directories(write: Write, read: Read, tmp_path: Path, jsonl: Jsonl) -> None:
    write("c/b.jsonl", jsonl(tool_call(2)))
    write("c/a.json", tool_call(1))
    write("c/deep/er/d.sse", "data: " + orjson.dumps(tool_call(4)).decode() + "\n\n")
    write("c/deep/c.ndjson", jsonl(tool_call(3)))
    write("c/.cache/x.jsonl", "garbage")
    write("c/notes.txt", "garbage")
    calls = read(tmp_path / "c")
    assert [c.call_id for c in calls] == ["call_1", "call_2", "call_3", "call_4"]


def test_directory_without_captures(write: Write, read: Read, tmp_path: Path) -> None:
    write("c/notes.txt", "nothing")
    with pytest.raises(InputError) as info:
        read(tmp_path / "c")
    assert str(info.value) == (
        f"{tmp_path / 'c'}: directory has no capture files "
        "(*.json, *.jsonl, *.ndjson, *.jsonlines, *.sse, *.har, *.yaml, *.yml, each also .gz or "
        ".zst)"
    )


def test_counters(write: Write, jsonl: Jsonl) -> None:
    a = write("a.jsonl", jsonl(tool_call(1)))
    b = write("b.json", tool_call(2))
    reader = CaptureReader()
    assert len(list(reader.read([a, b]))) == 2
    assert reader.files == 2
    assert reader.bytes_read == a.stat().st_size + b.stat().st_size


def test_documents_of_an_embedded_value(tmp_path: Path) -> None:
    chunks = [
        {
            "object": "chat.completion.chunk",
            "id": "c1",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        }
    ]
    calls = CaptureReader().documents(chunks, DocContext("case.yaml", line=4))
    assert [(c.call_id, c.arguments, c.source.file, c.source.line) for c in calls] == [
        ("call_1", "{}", "case.yaml", 4)
    ]
    assert calls[0].load_findings[0].code == "envelope.incomplete_stream"


def test_bundled_trace(repo: Path, read: Read) -> None:
    calls = read(repo / "fixtures" / "captures" / "trace.jsonl")
    got = [(c.hop.value if c.hop else None, c.call_id, c.source.line) for c in calls]
    assert got[:6] == [
        ("model", "call_RSVRJMaEx0qgtxteEgsSXFfP", 1),
        ("downstream", "call_RSVRJMaEx0qgtxteEgsSXFfP", 2),
        ("mcp", "21", 3),
        ("model", "toolu_01t7SJGDjdBGdzRuCGs1Ed2k", 5),
        (None, None, 6),
        ("model", "nsgh5u66", 7),
    ]
    assert calls[2].response is not None and calls[2].response["id"] == 21


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_sse_lines_end_only_at_cr_and_lf(write: Write, read: Read, separator: str) -> None:
    # these may stand unescaped in a JSON string; str.splitlines() cut the event there
    arguments = {"city": f"Paris{separator}Lyon"}
    event = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_weather", "arguments": arguments},
    }
    text = "data: " + orjson.dumps(event).decode() + "\r\n\r\n"
    (call,) = read(write("s.sse", text))
    assert (call.arguments, call.load_findings) == (arguments, [])
