"""The trace format: frames spliced byte for byte, read back with their direction."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from jsoncontract.errors import InputError
from jsoncontract.live.trace import TraceWriter, read_frames

FRAME = (
    b'{"jsonrpc":"2.0", "id":1,"result":{"text":"caf\\u00e9 \xe2\x82\xac","n":1.50,'
    b'"big":123456789012345678901234567890}}'
)


def test_frames_are_spliced_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, server="python server.py", transport="stdio")
    writer.frame("client", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    writer.frame("server", FRAME)
    writer.frame("server", b"Loading model... done")
    writer.frame(
        "server",
        b'{"jsonrpc":"2.0","id":2,"result":{}}',
        fault="x:timeout",
        original=b'{"jsonrpc":"2.0","id":2,"result":{"a":1}}',
        delivered=False,
    )
    writer.event("exit", code=3)
    writer.close()
    writer.frame("server", b"{}")  # after close: dropped, not an error
    lines = path.read_bytes().splitlines()
    assert len(lines) == 6
    assert b',"frame":' + FRAME + b"}" in lines[2]  # the bytes as they were, not re-encoded
    head = orjson.loads(lines[0])
    assert (head["trace"], head["event"], head["version"], head["server"]) == (
        "mcp",
        "start",
        1,
        "python server.py",
    )
    assert orjson.loads(lines[3])["text"] == "Loading model... done"
    faulted = orjson.loads(lines[4])
    assert (faulted["fault"], faulted["delivered"], faulted["original"]) == (
        "x:timeout",
        False,
        {"jsonrpc": "2.0", "id": 2, "result": {"a": 1}},
    )
    assert orjson.loads(lines[5]) == {**orjson.loads(lines[5]), "event": "exit", "code": 3}
    frames = list(read_frames(path))
    assert [(f.direction, f.line) for f in frames] == [
        ("client", 2),
        ("server", 3),
        ("server", 4),
        ("server", 5),
    ]
    assert frames[2].message is None and not frames[3].delivered


def test_plain_frame_logs_are_read_too(tmp_path: Path) -> None:
    path = tmp_path / "frames.jsonl"
    path.write_text('{"jsonrpc":"2.0","id":1,"method":"initialize"}\nnot json\n[1]\n')
    (frame,) = read_frames(path)
    assert frame.direction is None and frame.message["method"] == "initialize"


def test_a_file_that_is_no_trace(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(InputError, match="not an MCP trace"):
        list(read_frames(path))


def test_an_unwritable_trace(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot write the trace"):
        TraceWriter(tmp_path / "no" / "dir" / "t.jsonl", server="s", transport="stdio")
