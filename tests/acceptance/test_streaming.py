"""A JSONL trace is streamed: results come out while the trace is still being written."""

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


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_results_arrive_before_the_trace_ends(tmp_path: Path) -> None:
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    first_result_seen = threading.Event()
    writer_error: list[BaseException] = []

    def produce() -> None:
        try:
            with fifo.open("w") as pipe:
                pipe.write(json.dumps(CALL) + "\n")
                pipe.flush()
                # the second line is only written once the first result was produced
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
        ids.append(result.call.call_id)
        first_result_seen.set()
    thread.join(timeout=30)
    assert not writer_error, writer_error
    assert ids == ["1", "2"]
