"""The replay server's answers, from traces written by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.live.replay import NOT_RECORDED, Replayer, load_recording


def _trace(path: Path, *records: dict[str, Any]) -> Path:
    lines = [{"trace": "mcp", "event": "start", "version": 1}]
    lines += [{"trace": "mcp", "seq": i, **r} for i, r in enumerate(records, 1)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _call(call_id: int, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "from": "client",
        "frame": {
            "jsonrpc": "2.0",
            "id": call_id,
            "method": "tools/call",
            "params": {"name": "get", "arguments": arguments},
        },
    }


def _answer(call_id: int, text: str, **extra: Any) -> dict[str, Any]:
    result = {"content": [{"type": "text", "text": text}]}
    return {"from": "server", "frame": {"jsonrpc": "2.0", "id": call_id, "result": result}, **extra}


def _text(answer: dict[str, Any]) -> str:
    return str(answer["result"]["content"][0]["text"])


def test_the_same_call_is_answered_in_the_recorded_order(tmp_path: Path) -> None:
    trace = _trace(
        tmp_path / "t.jsonl",
        _call(1, {"a": 1, "b": 2}),
        _answer(1, "first"),
        _call(2, {"b": 2, "a": 1}),
        _answer(2, "second"),
        _call(3, {"a": 9}),
        _answer(3, "withheld", delivered=False),
    )
    recording = load_recording(trace)
    replay = Replayer(recording)
    ask = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
           "params": {"name": "get", "arguments": {"b": 2, "a": 1}}}  # fmt: skip
    assert [_text(replay.answer(ask) or {}) for _ in range(3)] == ["first", "second", "second"]
    withheld = {**ask, "params": {"name": "get", "arguments": {"a": 9}}}
    assert (replay.answer(withheld) or {})["error"]["code"] == NOT_RECORDED
    assert replay.answer({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert replay.answer({"jsonrpc": "2.0", "id": 3, "method": "ping"}) == {"result": {}}
    unknown = replay.answer({"jsonrpc": "2.0", "id": 8, "method": "resources/list"}) or {}
    assert unknown["error"] == {
        "code": -32601,
        "message": "jsoncontract replay: resources/list was not recorded",
    }
    never = replay.answer({**ask, "params": {"name": "other", "arguments": {}}}) or {}
    assert never["error"]["message"] == "jsoncontract replay: tools/call other was never recorded"


def test_an_answer_logged_before_its_request(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "t.jsonl", _answer(1, "early"), _call(1, {"a": 1}))
    replay = Replayer(load_recording(trace))
    ask = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
           "params": {"name": "get", "arguments": {"a": 1}}}  # fmt: skip
    assert _text(replay.answer(ask) or {}) == "early"


def test_plain_frame_logs_replay_too(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    log.write_text(
        json.dumps(_call(1, {})["frame"]) + "\n" + json.dumps(_answer(1, "ok")["frame"]) + "\n"
    )
    replay = Replayer(load_recording(log))
    ask = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get"}}
    assert _text(replay.answer(ask) or {}) == "ok"


def test_an_unreadable_trace_is_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n')
    done = subprocess.run(
        [sys.executable, "-m", "jsoncontract", "mcp", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "not an MCP trace" in done.stderr


@pytest.mark.slow
def test_record_and_replay_need_no_sdk(tmp_path: Path) -> None:
    """Raw frames through record and replay, in a Python where the SDK cannot be imported."""
    trace = tmp_path / "t.jsonl"
    blocked = (
        "import sys; sys.modules['mcp'] = None; sys.modules['anyio'] = None; "
        "from jsoncontract.cli import main; main(sys.argv[1:])"
    )
    echo = (
        "import sys\n"
        "for line in sys.stdin:\n"
        '    print(\'{"jsonrpc":"2.0","id":1,"result":{}}\', flush=True)\n'
    )
    request = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    recorded = subprocess.run(
        [sys.executable, "-c", blocked, "mcp", "record", "-o", str(trace), "--",
         sys.executable, "-c", echo],
        input=request, capture_output=True, check=False,
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    replayed = subprocess.run(
        [sys.executable, "-c", blocked, "mcp", "replay", str(trace)],
        input=request.replace(b'"id":1', b'"id":5'),
        capture_output=True,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == {"jsonrpc": "2.0", "id": 5, "result": {}}
