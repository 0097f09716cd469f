"""``mcp guard`` over stdio on the recorder's framing: frames past ``--max-frame`` and the
answers a server gives after the host stopped writing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.live.conftest import PYTHON
from tests.live.guard.conftest import INIT

pytestmark = pytest.mark.slow

#: A line server with one tool, ``big``, whose answer is a text of ``size`` bytes (written
#: in 1 MB pieces); it serves until its input ends.
SERVER = """
import json, sys
out = sys.stdout.buffer
SCHEMA = {"type": "object", "properties": {"size": {"type": "integer"}}}
TOOL = {"name": "big", "inputSchema": SCHEMA}
for line in sys.stdin.buffer:
    request = json.loads(line)
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "big", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    else:
        size = request["params"]["arguments"]["size"]
        head = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % rid
        tail = b'"}],"isError":false}}\\n'
        body = b"x" * (size - len(head) - len(tail))
        out.write(head)
        for i in range(0, len(body), 1 << 20):
            out.write(body[i : i + (1 << 20)])
        out.write(tail)
        out.flush()
        continue
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\\n")
    out.flush()
"""

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(request_id: int, size: int) -> dict[str, Any]:
    params = {"name": "big", "arguments": {"size": size}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _frames(*messages: Any) -> bytes:
    return b"".join(
        (m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in messages
    )


def _guard(
    tmp_path: Path, stdin: bytes, *options: str
) -> tuple[subprocess.CompletedProcess[bytes], list[Any]]:
    """The guard in front of the line server, given all of ``stdin`` at once (the host
    stops writing at its end): what it wrote, and its trace."""
    script = tmp_path / "big.py"
    script.write_text(SERVER)
    trace = tmp_path / "guard.jsonl"
    done = subprocess.run(
        [PYTHON, "-m", "jsoncontract", "mcp", "guard", "-o", str(trace), *options,
         "--", PYTHON, str(script)],
        input=stdin, capture_output=True, check=False, cwd=REPO, timeout=120,
    )  # fmt: skip
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    return done, records


def _answers(stdout: bytes) -> dict[Any, bytes]:
    """Each answer the host got, by id (the frame's bytes)."""
    found: dict[Any, bytes] = {}
    for line in stdout.splitlines():
        found[json.loads(line).get("id")] = line
    return found


def test_the_answers_are_whole_when_the_host_stops_writing(tmp_path: Path) -> None:
    size = 6 << 20
    done, _ = _guard(tmp_path, _frames(INIT, INITIALIZED, _call(2, size)))
    assert done.returncode == 0, done.stderr
    answers = _answers(done.stdout)
    assert json.loads(answers[1])["result"]["serverInfo"]["name"] == "big"
    assert len(answers[2]) == size - 1  # the frame without its newline, checked and delivered
    assert json.loads(answers[2])["result"]["isError"] is False


def test_a_server_frame_over_the_limit_is_kept_from_the_host(tmp_path: Path) -> None:
    size = 3 << 20
    stdin = _frames(INIT, INITIALIZED, _call(2, 100), _call(3, size), _call(4, 100))
    done, records = _guard(tmp_path, stdin, "--max-frame", "1")
    assert done.returncode == 0, done.stderr
    answers = _answers(done.stdout)
    assert sorted(answers) == [1, 2, 3, 4]  # served on after it
    replaced = json.loads(answers[3])["result"]
    assert replaced["isError"] is True and len(answers[3]) < 1000
    assert json.loads(replaced["content"][0]["text"])["error"]["code"] == "guard.frame_too_large"
    (large,) = [r for r in records if r.get("event") == "too_large"]
    assert (large["from"], large["bytes"], large["guard"]["decision"]) == ("server", size, "drop")
    assert "over the guard's limit of 1,048,576 (--max-frame)" in done.stderr.decode()


def test_under_observe_a_frame_over_the_limit_is_passed_on_as_it_comes(tmp_path: Path) -> None:
    size = 3 << 20
    done, records = _guard(
        tmp_path, _frames(INIT, INITIALIZED, _call(2, size)), "--max-frame", "1", "--observe"
    )
    assert done.returncode == 0, done.stderr
    assert len(_answers(done.stdout)[2]) == size - 1
    (large,) = [r for r in records if r.get("event") == "too_large"]
    assert large["guard"]["decision"] == "pass"


def test_a_client_frame_over_the_limit_is_answered_and_never_reaches_the_server(
    tmp_path: Path,
) -> None:
    padded = _call(2, 100)
    padded["params"]["arguments"]["pad"] = "y" * (2 << 20)
    stdin = _frames(INIT, INITIALIZED, padded, _call(3, 100))
    done, records = _guard(tmp_path, stdin, "--max-frame", "1")
    assert done.returncode == 0, done.stderr
    answers = _answers(done.stdout)
    refused = json.loads(answers[2])  # its id read from the frame's first bytes
    assert refused["error"]["code"] == -32600 and "over the limit" in refused["error"]["message"]
    assert json.loads(answers[3])["result"]["isError"] is False  # the guard serves on
    sent = [r["frame"].get("id") for r in records if r.get("from") == "client" and "frame" in r]
    assert sent == [1, None, 3]  # initialize, initialized, the call after it
    (large,) = [r for r in records if r.get("event") == "too_large"]
    assert (large["from"], large["guard"]["decision"]) == ("client", "drop")


def test_an_id_is_read_from_a_frame_s_first_members_only() -> None:
    from jsoncontract.live.guard.session import leading_id

    assert leading_id(b'{"jsonrpc":"2.0","id":7,"result":{"content":[') == (True, 7)
    assert leading_id(b'{ "id" : "a\\"b" , "result"') == (True, 'a"b')
    assert leading_id(b'{"result":{"id":1},"id":2}') == (False, None)
    assert leading_id(b'{"jsonrpc":"2.0","method":"x","id":3') == (False, None)
    assert leading_id(b"[1,2]") == (False, None)
