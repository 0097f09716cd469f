"""``mcp record`` and ``mcp replay`` framing: linear time and bounded memory whatever a frame's
length, whole answers when the host stops writing, bodies stored as one JSON line (or marked
raw), bounded depth, exit codes as a shell says them, and no wait on a helper that left."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.live.conftest import PYTHON, bulky_answer

pytestmark = pytest.mark.slow

JSONCONTRACT = [PYTHON, "-m", "jsoncontract"]
#: A server that reads one request and answers it with a frame of SIZE bytes (written in
#: pieces), then exits when its input ends.
BIG = """
import json, sys
size = int(sys.argv[1])
line = sys.stdin.buffer.readline()
request = json.loads(line)
head = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % request["id"]
tail = b'"}]}}\\n'
body = b"x" * (size - len(head) - len(tail))
out = sys.stdout.buffer
out.write(head)
for i in range(0, len(body), 1 << 20):
    out.write(body[i : i + (1 << 20)])
out.write(tail)
out.flush()
sys.stdin.buffer.read()
"""
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}\n'


def _big(tmp_path: Path) -> Path:
    script = tmp_path / "big.py"
    script.write_text(BIG)
    return script


def test_framing_is_linear_in_the_frame_length() -> None:
    """Defect 9: long frames were buffered with quadratic cost (40 MB: 6.7 s through the
    proxy, 0.16 s direct; 160 MB: 112 s). Framing one line read in 64 KiB pieces is linear:
    the copies of a quadratic framing of 128 MB add up to 128 GB, seconds at any speed."""

    from jsoncontract.live.record import fd_lines

    class Pieces:
        def __init__(self, size: int) -> None:
            self.left = size // (1 << 16)
            self.piece = b"x" * (1 << 16)

        def read(self) -> bytes:
            if self.left < 0:
                return b""
            self.left -= 1
            return self.piece if self.left >= 0 else b"\n"

    def framed(size: int) -> float:
        start = time.perf_counter()
        (line,) = list(fd_lines(Pieces(size), limit=1 << 30))  # type: ignore[arg-type]
        assert len(line) == size + 1
        return time.perf_counter() - start

    assert min(framed(128 << 20) for _ in range(2)) < 1.5


def test_a_line_past_the_limit_is_passed_on_in_pieces() -> None:
    """A server writing without a newline grew the buffer until MemoryError or SIGSEGV:
    past the limit, a line is passed on as it comes, never held whole."""
    from jsoncontract.live.record import FramePart, fd_lines

    read, write = os.pipe()
    os.write(write, b"a" * 5000 + b"\nshort\n" + b"b" * 3000)
    os.close(write)
    items = list(fd_lines(read, limit=1024))
    os.close(read)
    parts = [i for i in items if isinstance(i, FramePart)]
    assert all(len(p.data) <= 1 << 16 for p in parts)
    assert [p.size for p in parts if p.end] == [5001, 3000]
    assert b"short\n" in items
    assert b"".join(i.data if isinstance(i, FramePart) else i for i in items) == (
        b"a" * 5000 + b"\nshort\n" + b"b" * 3000
    )


def test_the_answer_is_whole_when_the_host_stops_writing(tmp_path: Path) -> None:
    """Defect 9: the host closed stdin after its request and got 26 of 40 MB; the answer
    is whole, and a frame over --max-frame is passed on and recorded as too large."""
    trace = tmp_path / "t.jsonl"
    size = 12 << 20
    proxied = subprocess.run(
        [
            *JSONCONTRACT,
            "mcp",
            "record",
            "-o",
            str(trace),
            "--max-frame",
            "4",
            "--",
            PYTHON,
            str(_big(tmp_path)),
            str(size),
        ],
        input=REQUEST,
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=120,
    )
    assert proxied.returncode == 0, proxied.stderr
    assert len(proxied.stdout) == size and proxied.stdout.endswith(b'"}]}}\n')
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    (large,) = [r for r in records if r.get("event") == "too_large"]
    assert (large["from"], large["bytes"]) == ("server", size)
    assert "passed on unrecorded" in proxied.stderr.decode()


def test_a_server_killed_by_a_signal_exits_128_plus_it(tmp_path: Path) -> None:
    """Defect 17: a server that died by a signal gave exit 241 or 247."""
    script = tmp_path / "die.py"
    script.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    done = subprocess.run(
        [
            *JSONCONTRACT,
            "mcp",
            "record",
            "-o",
            str(tmp_path / "t.jsonl"),
            "--",
            PYTHON,
            str(script),
        ],
        input=b"",
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 128 + 15, done.stderr


def test_no_wait_on_a_helper_that_left_the_process_group(tmp_path: Path) -> None:
    """Defect 17: the recording waited forever while a process the server started with
    setsid held its stdout."""
    pid_file = tmp_path / "helper.pid"
    script = tmp_path / "escape.py"
    script.write_text(
        "import subprocess, sys\n"
        f"helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
        "start_new_session=True, stderr=subprocess.DEVNULL)\n"
        f"open({str(pid_file)!r}, 'w').write(str(helper.pid))\n"
        'sys.stdout.write(\'{"jsonrpc":"2.0","method":"bye"}\\n\'); sys.stdout.flush()\n'
    )
    start = time.monotonic()
    try:
        done = subprocess.run(
            [
                *JSONCONTRACT,
                "mcp",
                "record",
                "-o",
                str(tmp_path / "t.jsonl"),
                "--",
                PYTHON,
                str(script),
            ],
            input=b"",
            capture_output=True,
            check=False,
            cwd=REPO,
            timeout=30,
        )
    finally:
        if pid_file.exists():
            import contextlib
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert time.monotonic() - start < 20
    assert done.returncode == 0 and b'"bye"' in done.stdout


def test_replay_refuses_a_too_deep_request_and_serves_on(tmp_path: Path) -> None:
    """Defect 11: replay died on arguments nested about 300 deep (an internal error), and
    later requests went unanswered."""
    deep: object = "x"
    for _ in range(300):
        deep = {"a": deep}
    trace = tmp_path / "trace.jsonl"
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "t", "arguments": deep},
    }
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    pong = {"jsonrpc": "2.0", "id": 2, "result": {}}
    lines = [
        {"trace": "mcp", "seq": n, "from": d, "frame": f}
        for n, (d, f) in enumerate(
            [("client", call), ("server", answer), ("client", ping), ("server", pong)]
        )
    ]
    # the deep frame is written as it would be recorded (orjson cannot write it)
    trace.write_text("\n".join(_dump(line) for line in lines) + "\n")
    asked = (_dump(call) + "\n" + _dump(ping) + "\n").encode()
    done = subprocess.run(
        [*JSONCONTRACT, "mcp", "replay", str(trace)],
        input=asked,
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    first, second = [json.loads(line) for line in done.stdout.splitlines()]
    assert first["error"]["code"] == -32600 and "deep" in first["error"]["message"]
    assert second == pong


def _dump(value: object) -> str:
    """JSON of a value nested deeper than the stdlib writes by default (the limit is put
    back: other tests rely on it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    try:
        return json.dumps(value)
    finally:
        sys.setrecursionlimit(limit)


def test_http_bodies_are_one_json_line_and_unpacked(tmp_path: Path) -> None:
    """Defect 10: ``--listen`` pasted multi-line JSON bodies raw into the trace (``check``
    read 19 unknown calls and lost the real one) and stored a gzip answer mangled."""
    from jsoncontract.live.record import Body
    from jsoncontract.live.trace import TraceWriter

    trace = tmp_path / "t.jsonl"
    writer = TraceWriter(trace, server="s", transport="http")
    pretty = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {"a": 1}},
        },
        indent=2,
    ).encode()
    writer.frame("client", pretty)
    answer = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    body = Body({"content-encoding": "gzip"})
    assert body.feed(gzip.compress(answer))
    writer.frame("server", body.message())
    writer.close()
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert len(records) == 3
    assert records[1]["frame"]["params"]["arguments"] == {"a": 1}
    assert records[2]["frame"] == json.loads(answer)


def test_server_sent_events_are_split_in_one_pass_however_the_stream_is_cut() -> None:
    """The events of a stream cut anywhere (a blank line or a \\r\\n across two chunks) are
    the stream's; a 64 MB event takes time linear in its length (it was joined again for
    every chunk: quadratic)."""
    import random

    from jsoncontract.live.record import SseEvents

    rng = random.Random(7)
    for _ in range(2000):
        events = [
            b"".join(rng.choice([b"data: x", b"\n", b"\r\n", b"id: 5"]) for _ in range(4))
            for _ in range(rng.randint(0, 4))
        ]
        stream = b"".join(e + rng.choice([b"\n\n", b"\r\n\r\n", b"\n\r\n"]) for e in events)
        stream += rng.choice([b"", b"data: tail"])
        *expected, last = stream.replace(b"\r\n", b"\n").split(b"\n\n")
        splitter, got, at = SseEvents(), [], 0
        while at < len(stream):
            step = rng.randint(1, 5)
            got += splitter.feed(stream[at : at + step])
            at += step
        assert (got, splitter.end()) == (expected, last)

    big = b"data: " + b"x" * (64 << 20) + b"\n\n"
    splitter = SseEvents(limit=1 << 30)
    start = time.perf_counter()
    found = [
        e for at in range(0, len(big), 1 << 16) for e in splitter.feed(big[at : at + (1 << 16)])
    ]
    assert [len(e) for e in found if isinstance(e, bytes)] == [len(big) - 2]
    assert time.perf_counter() - start < 5


def test_an_event_past_the_limit_comes_in_pieces_however_the_stream_is_cut() -> None:
    """An event longer than the limit is never held whole: its pieces, joined, are the
    event, and the last says its size; the events around it are whole."""
    import random

    from jsoncontract.live.record import FramePart, SseEvents

    rng = random.Random(11)
    for _ in range(500):
        big = b"data: " + b"x\n" * rng.randint(5, 40) + b"data: end"
        stream = b"data: a\n\n" + big + rng.choice([b"\n\n", b"\r\n\r\n"]) + b"data: b"
        splitter, got, at = SseEvents(limit=10), [], 0
        while at < len(stream):
            step = rng.randint(1, 7)
            got += splitter.feed(stream[at : at + step])
            at += step
        got.append(splitter.end())
        whole = [e for e in got if isinstance(e, bytes)]
        parts = [e for e in got if isinstance(e, FramePart)]
        assert whole == [b"data: a", b"data: b"]
        assert b"".join(p.data for p in parts) == big
        assert [(p.end, p.size) for p in parts if p.end] == [(True, len(big))]


def test_an_injected_fault_on_a_gzip_answer_is_sent_unpacked(
    bulky_upstream: tuple[str, list[bytes]], tmp_path: Path
) -> None:
    """The HTTP proxy applies a fault to the message a compressed answer carries, and the
    client gets the changed answer without the ``Content-Encoding`` it no longer has."""
    import httpx2

    upstream, _ = bulky_upstream
    answer = bulky_answer(7, 100)
    trace = tmp_path / "t.jsonl"
    with _recording_http(upstream, trace, "--inject", "export:is-error=broken") as (local, _):
        response = httpx2.post(local, json=_call("gzip", 100), timeout=20)
    assert "content-encoding" not in response.headers
    result = response.json()["result"]
    assert result["isError"] is True and result["content"][0]["text"] == "broken"
    frames = [json.loads(line) for line in trace.read_text().splitlines()]
    (faulty,) = [f for f in frames if f.get("fault")]
    assert faulty["original"] == json.loads(answer)


@contextlib.contextmanager
def _recording_http(upstream: str, trace: Path, *options: str) -> Iterator[tuple[str, int]]:
    """``mcp record --listen`` in front of ``upstream``; its local URL and process id."""
    proxy = subprocess.Popen(
        [PYTHON, "-m", "jsoncontract", "mcp", "record", "--listen", "127.0.0.1:0",
         "--upstream", upstream, "-o", str(trace), *options],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proxy.stderr is not None
        yield proxy.stderr.readline().rsplit(" at ", 1)[1].strip(), proxy.pid
    finally:
        proxy.terminate()
        proxy.wait(timeout=20)
        assert proxy.stderr is not None
        proxy.stderr.close()


def _call(how: str, size: int, request_id: int = 7) -> dict[str, Any]:
    params = {"name": "export", "arguments": {"bytes": size, "how": how}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


#: Past ``--max-frame 1`` (one MiB).
_OVER = (1 << 20) + 1
_ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("how", ["json", "gzip", "sse"])
@pytest.mark.parametrize("faults", [(), ("--inject", "other:is-error=broken")])
def test_an_http_answer_past_the_limit_is_passed_on_and_recorded_as_too_large(
    bulky_upstream: tuple[str, list[bytes]], tmp_path: Path, how: str, faults: tuple[str, ...]
) -> None:
    """A body, a body once unpacked (2 MiB from 2 KB of gzip) or an event past ``--max-frame``
    is passed on as it came and recorded as ``too_large`` with its size (as sent), never held
    whole; one within it is recorded as before."""
    import httpx2

    upstream, _ = bulky_upstream
    trace = tmp_path / "t.jsonl"
    with _recording_http(upstream, trace, "--max-frame", "1", *faults) as (local, _):
        big = httpx2.post(local, json=_call(how, 2 << 20), headers=_ACCEPT, timeout=30)
        small = httpx2.post(local, json=_call(how, 100, 8), headers=_ACCEPT, timeout=30)
    assert big.status_code == 200
    expected = bulky_answer(7, 2 << 20)
    if how == "sse":
        assert big.content.replace(b"\r\n", b"\n").split(b"\n\n")[0].endswith(b"data: " + expected)
    else:
        assert big.content == expected  # unpacked by the client when it came packed
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    (large,) = [r for r in records if r.get("event") == "too_large"]
    assert large["from"] == "server"
    if how == "gzip" and not faults:  # passed on packed: its size as sent
        assert large["bytes"] == len(gzip.compress(expected)) and large["encoding"] == "gzip"
    else:
        sse = b"event: message\ndata: " if how == "sse" else b""
        assert large["bytes"] == len(sse + expected) and "encoding" not in large
    answers = [r["frame"] for r in records if r.get("from") == "server" and "frame" in r]
    assert answers == [json.loads(bulky_answer(8, 100))]
    assert small.status_code == 200


def test_an_http_request_past_the_limit_is_passed_on_and_recorded_as_too_large(
    bulky_upstream: tuple[str, list[bytes]], tmp_path: Path
) -> None:
    """A request body past ``--max-frame``, plain or once unpacked, reaches the server
    whole and is recorded as ``too_large``."""
    import httpx2

    upstream, received = bulky_upstream
    trace = tmp_path / "t.jsonl"
    plain = json.dumps(_call("json", 10) | {"pad": "y" * _OVER}).encode()
    packed = json.dumps(_call("json", 10, 8) | {"pad": "z" * _OVER}).encode()
    headers = {**_ACCEPT, "content-type": "application/json"}
    with _recording_http(upstream, trace, "--max-frame", "1") as (local, _):
        first = httpx2.post(local, content=plain, headers=headers, timeout=30)
        second = httpx2.post(
            local,
            content=gzip.compress(packed),
            headers={**headers, "content-encoding": "gzip"},
            timeout=30,
        )
    assert (first.json()["id"], second.json()["id"]) == (7, 8)
    assert received == [plain, packed]
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    large = [r for r in records if r.get("event") == "too_large"]
    assert [(r["from"], r["bytes"], r.get("encoding")) for r in large] == [
        ("client", len(plain), None),
        ("client", len(gzip.compress(packed)), "gzip"),
    ]
    assert not [r for r in records if r.get("from") == "client" and "event" not in r]


def peak_memory(pid: int) -> int:
    """A process's peak resident memory so far (``VmHWM``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")  # pragma: no cover - Linux gives it


def test_a_gzip_bomb_costs_the_proxy_no_more_than_the_limit(
    bulky_upstream: tuple[str, list[bytes]], tmp_path: Path
) -> None:
    """64 KB of gzip that unpacks to 64 MiB: the proxy's peak memory grows by far less than
    that (it unpacked and held the whole answer: 64 MiB more and then some)."""
    import httpx2

    upstream, _ = bulky_upstream
    trace = tmp_path / "t.jsonl"
    with _recording_http(upstream, trace, "--max-frame", "1") as (local, pid):
        httpx2.post(local, json=_call("gzip", 100, 6), headers=_ACCEPT, timeout=30)
        before = peak_memory(pid)
        big = httpx2.post(local, json=_call("gzip", 64 << 20), headers=_ACCEPT, timeout=60)
        grown = peak_memory(pid) - before
    assert len(big.content) == 64 << 20
    assert grown < 16 << 20, f"{grown:,} bytes"
