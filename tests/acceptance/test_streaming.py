"""A JSONL trace is streamed: results come out while the trace is still being written.

A call is checked once its result has been read (or once the reader stops waiting for it),
so each call here is followed by its response, as a live MCP trace is.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from jsoncontract import iter_check
from jsoncontract.tools import ToolSet
from tests.conftest import FIXTURES

CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"city": "Oslo"}},
}
ANSWER = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "4 C"}]}}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_results_arrive_before_the_trace_ends(tmp_path: Path) -> None:
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    first_result_seen = threading.Event()
    writer_error: list[BaseException] = []

    def produce() -> None:
        try:
            with fifo.open("w") as pipe:
                pipe.write(json.dumps(CALL) + "\n" + json.dumps(ANSWER) + "\n")
                pipe.flush()
                # the second call is only written once the first result was produced
                if not first_result_seen.wait(timeout=20):
                    raise TimeoutError("the first result never came: input is not streamed")
                pipe.write(json.dumps({**CALL, "id": 2}) + "\n")
        except BaseException as exc:  # surfaced in the main thread below
            writer_error.append(exc)

    thread = threading.Thread(target=produce)
    thread.start()
    tools = ToolSet.from_paths([FIXTURES / "tools"])
    ids = []
    for result in iter_check([fifo], tools=tools):
        ids.append((result.call.call_id, result.call.result is not None))
        first_result_seen.set()
    thread.join(timeout=30)
    assert not writer_error, writer_error
    assert ids == [("1", True), ("2", False)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_without_a_window_calls_never_wait(tmp_path: Path) -> None:
    """``window=0`` hands each call on as soon as it is read (a live tail of model calls
    whose results are not in the trace)."""
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    first_result_seen = threading.Event()
    writer_error: list[BaseException] = []

    def produce() -> None:
        try:
            with fifo.open("w") as pipe:
                pipe.write(json.dumps(CALL) + "\n")
                pipe.flush()
                if not first_result_seen.wait(timeout=20):
                    raise TimeoutError("the first result never came: input is not streamed")
                pipe.write(json.dumps({**CALL, "id": 2}) + "\n")
        except BaseException as exc:
            writer_error.append(exc)

    thread = threading.Thread(target=produce)
    thread.start()
    tools = ToolSet.from_paths([FIXTURES / "tools"])
    ids = []
    for result in iter_check([fifo], tools=tools, window=0):
        ids.append(result.call.call_id)
        first_result_seen.set()
    thread.join(timeout=30)
    assert not writer_error, writer_error
    assert ids == ["1", "2"]
