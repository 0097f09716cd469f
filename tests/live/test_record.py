"""``mcp record`` between the SDK's own client and real servers, and ``mcp replay`` of what
it recorded; faults injected and marked."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from jsoncontract.live.probe import parse_kinds
from tests.conftest import REPO
from tests.live.conftest import PYTHON, SERVERS, WORKBENCH, wait_for, wait_gone

pytestmark = pytest.mark.slow

JSONCONTRACT = [PYTHON, "-m", "jsoncontract"]
GOOD = {"order_id": "ORD-1234"}


def _client(args: list[str], **options: Any) -> Any:
    """The SDK's client over its stdio transport (stderr named here: the transport's default
    is whatever ``sys.stderr`` was when the SDK was first imported)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=PYTHON, args=args, cwd=str(REPO))
    return Client(stdio_client(params, errlog=sys.__stderr__), **options)


async def _session(args: list[str], last: str = "ORD-9999") -> dict[str, Any]:
    """What the SDK's client sees of a short session: the listing, a good call, a bad one,
    and a call for order ``last``."""
    from mcp.shared.exceptions import MCPError

    seen: dict[str, Any] = {}
    with anyio.fail_after(60):
        async with _client(args) as client:
            seen["version"] = client.protocol_version
            seen["tools"] = [t.name for t in (await client.list_tools()).tools]
            good = await client.call_tool("lookup_order", GOOD)
            seen["good"] = (good.is_error, good.structured_content)
            bad = await client.call_tool("lookup_order", {"order_id": 7})
            seen["bad"] = bad.is_error
            try:
                await client.call_tool("lookup_order", {"order_id": last})
            except MCPError as exc:
                seen["unrecorded"] = (exc.code, exc.message, exc.error.data)
    return seen


def _recording(trace: Path, *options: str, tools: tuple[str, ...] = ("lookup_order",)) -> list[str]:
    """The arguments of ``python -m jsoncontract mcp record`` around the workbench."""
    only = [word for tool in tools for word in ("--only", tool)]
    return ["-m", "jsoncontract", "mcp", "record", "-o", str(trace), *options, "--", PYTHON,
            str(WORKBENCH), *only]  # fmt: skip


def _frames(trace: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in trace.read_text().splitlines()]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], int]:
    """A session of the SDK's client through ``mcp record``; the trace, what the client saw,
    and the server's process id."""
    where = tmp_path_factory.mktemp("record")
    trace, pid = where / "trace.jsonl", where / "pid"
    args = [
        "-m",
        "jsoncontract",
        "mcp",
        "record",
        "-o",
        str(trace),
        "--",
        PYTHON,
        str(WORKBENCH),
        "--only",
        "lookup_order",
        "--pid-file",
        str(pid),
    ]
    seen = anyio.run(_session, args)
    return trace, seen, int(wait_for(pid))


def test_the_client_sees_the_server_through_the_proxy(recorded: Any) -> None:
    _, seen, _ = recorded
    assert seen["version"] == "2026-07-28"
    assert seen["tools"] == ["lookup_order"]
    assert seen["good"] == (False, {"order_id": "ORD-1234", "status": "open"})
    assert seen["bad"] is True


def test_every_frame_is_recorded_in_order(recorded: Any) -> None:
    trace, _, _ = recorded
    lines = _frames(trace)
    head, *frames, tail = lines
    assert (head["trace"], head["event"], head["transport"]) == ("mcp", "start", "stdio")
    # the code is the server's: 0, or the signal's when a slow exit made the host end it
    assert tail["event"] == "exit" and isinstance(tail["code"], int)
    directions = [(f["from"], f["frame"].get("method")) for f in frames]
    assert directions[:4] == [
        ("client", "server/discover"),
        ("server", None),
        ("client", "tools/list"),
        ("server", None),
    ]
    calls = [f for f in frames if f["frame"].get("method") == "tools/call"]
    assert len(calls) == 3
    assert [f["seq"] for f in frames] == list(range(1, len(frames) + 1))
    assert all(f["ms"] >= 0 for f in frames)


def test_check_reads_the_recorded_trace(
    recorded: Any, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """The trace of the SDK's client, checked against the tool list it carries."""
    trace, _, _ = recorded
    listing = next(
        f["frame"]["result"]
        for f in _frames(trace)
        if f.get("from") == "server" and "tools" in f.get("frame", {}).get("result", {})
    )
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(listing))
    result = run_cli("check", "--no-config", "--tools", str(tools), str(trace), "-f", "json")
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["calls"] == 3 and report["summary"]["failed"] == 1
    (failed,) = [r for r in report["results"] if not r["ok"]]
    assert (failed["tool"], failed["hop"], failed["stage"]) == ("lookup_order", "mcp", "schema")
    assert failed["findings"][0]["path"] == "/order_id"


def test_the_server_is_gone_when_the_host_hangs_up(recorded: Any) -> None:
    _, _, pid = recorded
    assert wait_gone(pid)


def test_replay_serves_the_recorded_session(recorded: Any) -> None:
    trace, before, _ = recorded
    again = anyio.run(_session, ["-m", "jsoncontract", "mcp", "replay", str(trace)], "ORD-0000")
    assert {k: again[k] for k in ("version", "tools", "good", "bad")} == {
        k: before[k] for k in ("version", "tools", "good", "bad")
    }
    code, message, data = again["unrecorded"]
    assert code == -32010
    assert message == (
        "jsoncontract replay: no recorded answer for tools/call lookup_order with these "
        "arguments (3 other argument sets recorded)"
    )
    assert data["arguments"] == {"order_id": "ORD-0000"} and GOOD in data["recorded"]


def test_replay_with_an_older_client(recorded: Any) -> None:
    """A recording made at 2026-07-28 still serves a client that only does initialize."""
    trace, _, _ = recorded

    async def main() -> tuple[str, list[str]]:
        with anyio.fail_after(60):
            async with _client(
                ["-m", "jsoncontract", "mcp", "replay", str(trace)], mode="legacy"
            ) as client:
                return client.protocol_version, [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(main) == ("2025-11-25", ["lookup_order"])


def test_probing_a_replay_with_faults(recorded: Any) -> None:
    """A replayed server that sends list_changed without declaring it, and answers the
    probe's unrecorded calls with -32010: the probe says both."""
    from jsoncontract.live.probe import ProbeSettings, probe
    from jsoncontract.live.server import ServerSpec

    trace, _, _ = recorded
    spec = ServerSpec(
        command=(PYTHON, "-m", "jsoncontract", "mcp", "replay", str(trace), "--inject",
                 "list-changed"),
        name="replay",
    )  # fmt: skip
    card = probe(spec, ProbeSettings(kinds=parse_kinds("valid"), protocol_checks=False))
    codes = [f.code for f in card.servers[0].all_findings()]
    assert "probe.list_changed_undeclared" in codes
    (result,) = card.servers[0].tools[0].results
    assert (result.answer and result.answer.value, result.code) == ("protocol-error", -32010)


def test_bytes_pass_unchanged(tmp_path: Path) -> None:
    """What the host writes reaches the server, and what the server writes reaches the
    host, byte for byte, however it is split; the exit code is the server's."""
    trace = tmp_path / "t.jsonl"
    script = SERVERS / "raw_lines.py"
    sent = [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
        b'{ "jsonrpc":"2.0", "id":2 ,"method":"x","params":{"s":"\\u00e9"}}\r\n',
        b"not json\n",
        b'{"jsonrpc":"2.0","id":4,"method":"y"}\n',
    ]
    direct = subprocess.run(
        [PYTHON, str(script)], input=b"".join(sent), capture_output=True, check=False
    )
    proxied = subprocess.run(
        [*JSONCONTRACT, "mcp", "record", "-o", str(trace), "--", PYTHON, str(script)],
        input=b"".join(sent),
        capture_output=True,
        check=False,
        cwd=REPO,
    )
    assert proxied.stdout == direct.stdout
    assert (proxied.returncode, direct.returncode) == (3, 3)
    assert proxied.stderr == b""
    lines = trace.read_bytes().splitlines()
    raw = b"\n".join(lines)
    assert (
        b'"frame":{ "jsonrpc" : "2.0",  "id":1, "result": {"text": "caf\\u00e9 \xe2\x82\xac"' in raw
    )
    assert b'"frame":{ "jsonrpc":"2.0", "id":2 ,"method":"x","params":{"s":"\\u00e9"}}' in raw
    records = [json.loads(line) for line in lines]
    texts = [r.get("text") for r in records if "text" in r]
    assert texts == ["not json"]
    # bytes that are not UTF-8 are kept as bytes, marked, never guessed at as text
    (raw_bytes,) = [base64.b64decode(r["text_base64"]) for r in records if "text_base64" in r]
    assert raw_bytes == b"\xff\xfe not UTF-8 at all"
    assert records[-1] == {**records[-1], "event": "exit", "code": 3}
    last = records[-2]
    assert last["frame"] == {"jsonrpc": "2.0", "method": "bye"}


def test_the_proxy_stops_the_server_when_the_host_goes(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    proxy = subprocess.Popen(
        [
            *JSONCONTRACT,
            "mcp",
            "record",
            "-o",
            str(tmp_path / "t.jsonl"),
            "--",
            PYTHON,
            str(WORKBENCH),
            "--pid-file",
            str(pid_file),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        cwd=REPO,
    )
    pid = int(wait_for(pid_file))
    assert proxy.stdin is not None
    proxy.stdin.close()  # the host hangs up
    assert proxy.wait(timeout=20) == 0
    assert wait_gone(pid)


def test_a_server_that_does_not_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *JSONCONTRACT,
            "mcp",
            "record",
            "-o",
            str(tmp_path / "t.jsonl"),
            "--",
            "jsoncontract-no-such-server",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "jsoncontract: error: jsoncontract-no-such-server: cannot start the server: "
        "jsoncontract-no-such-server: command not found\n"
    )


def test_injected_faults_reach_the_client_and_are_marked(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    args = _recording(
        trace,
        "--inject", "lookup_order:is-error=order store unavailable",
        "--inject", "list_orders:drop",
        "--inject", "lookup_order:list-changed",
        tools=("lookup_order", "list_orders"),
    )  # fmt: skip
    seen = anyio.run(_session, args)
    assert seen["tools"] == ["lookup_order"]  # list_orders was dropped
    assert seen["good"] == (True, None)  # the injected isError
    frames = _frames(trace)[1:-1]
    faults = [(f.get("fault"), f.get("injected", False)) for f in frames if "fault" in f]
    assert ("list_orders:drop", False) in faults
    assert (
        "lookup_order:is-error=order store unavailable, lookup_order:list-changed",
        False,
    ) in faults
    assert ("list-changed", True) in faults
    changed = next(f for f in frames if f.get("fault", "").startswith("lookup_order:is-error"))
    assert changed["frame"]["result"]["isError"] is True
    assert changed["original"]["result"]["structuredContent"] == {
        "order_id": "ORD-1234",
        "status": "open",
    }


def test_an_injected_timeout_withholds_the_answer(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    args = _recording(trace, "--inject", "lookup_order:timeout")

    async def main() -> str:
        from mcp.shared.exceptions import MCPError

        with anyio.fail_after(60):
            async with _client(args) as client:
                await client.list_tools()
                try:
                    await client.session.call_tool("lookup_order", GOOD, read_timeout_seconds=1)
                except MCPError as exc:
                    return exc.message
        return "answered"

    assert "timed out" in anyio.run(main)
    withheld = [f for f in _frames(trace) if f.get("delivered") is False]
    assert len(withheld) == 1 and withheld[0]["fault"] == "lookup_order:timeout"


def test_recording_streamable_http(http_server: Callable[..., str], tmp_path: Path) -> None:
    url = http_server(WORKBENCH, "--only", "lookup_order", "--token", "s3cret")
    trace = tmp_path / "http.jsonl"
    proxy = subprocess.Popen(
        [
            *JSONCONTRACT,
            "mcp",
            "record",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            url,
            "-o",
            str(trace),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proxy.stderr is not None
        line = proxy.stderr.readline()
        assert line.startswith("jsoncontract: recording http://127.0.0.1:")
        local = line.rsplit(" at ", 1)[1].strip()

        async def main() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"})
            with anyio.fail_after(60):
                async with http, Client(streamable_http_client(local, http_client=http)) as c:
                    await c.list_tools()
                    return (await c.call_tool("lookup_order", GOOD)).structured_content

        assert anyio.run(main) == {"order_id": "ORD-1234", "status": "open"}
    finally:
        proxy.terminate()
        proxy.wait(timeout=20)
    assert proxy.stdout is not None and proxy.stdout.read() == ""
    proxy.stdout.close()
    assert proxy.stderr is not None
    proxy.stderr.close()
    text = trace.read_text()
    assert "s3cret" not in text  # headers are never recorded
    frames = [json.loads(line) for line in text.splitlines()][1:]
    methods = [f["frame"].get("method") for f in frames if f.get("from") == "client"]
    assert methods == ["server/discover", "tools/list", "tools/call"]
    answers = [f for f in frames if f.get("from") == "server"]
    assert answers[-1]["frame"]["result"]["structuredContent"]["order_id"] == "ORD-1234"


def test_record_overhead_is_small(tmp_path: Path) -> None:
    """Not the benchmark (benchmarks/mcp_proxy.py): a sanity bound that a proxied round
    trip stays in milliseconds."""
    proxy = subprocess.Popen(
        [
            *JSONCONTRACT,
            "mcp",
            "record",
            "-o",
            str(tmp_path / "t.jsonl"),
            "--",
            PYTHON,
            "-c",
            "import sys\nfor l in sys.stdin.buffer: sys.stdout.buffer.write(l); "
            "sys.stdout.buffer.flush()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proxy.stdin is not None and proxy.stdout is not None
    times = []
    for i in range(50):
        start = time.perf_counter()
        proxy.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i)
        proxy.stdin.flush()
        proxy.stdout.readline()
        times.append(time.perf_counter() - start)
    proxy.stdin.close()
    proxy.wait(timeout=20)
    proxy.stdout.close()
    assert sorted(times)[25] < 0.05
    assert sys.platform != "win32"


def test_the_servers_process_group_is_gone_when_the_host_hangs_up(tmp_path: Path) -> None:
    """A helper the server started (which holds the server's stdout too) does not outlive
    the recording, and the recorder does not wait for the host to kill it."""
    helper = tmp_path / "helper"
    trace = tmp_path / "trace.jsonl"
    args = [*_recording(trace, tools=("lookup_order",)), "--helper", str(helper)]

    async def main() -> float:
        with anyio.fail_after(60):
            async with _client(args) as client:
                await client.list_tools()
            return time.monotonic()

    start = time.monotonic()
    anyio.run(main)
    assert wait_gone(int(wait_for(helper)))
    assert _frames(trace)[-1]["event"] == "exit"
    assert time.monotonic() - start < 20


def test_a_server_that_crashes_ends_the_recording_though_a_helper_holds_its_stdout(
    tmp_path: Path,
) -> None:
    """The server exits in the middle of a call; a helper it started still holds its stdout.
    The recorder ends the helper, so the host hears the connection close at once."""
    from mcp.shared.exceptions import MCPError

    helper = tmp_path / "helper"
    trace = tmp_path / "trace.jsonl"
    args = [*_recording(trace, tools=("crash_report",)), "--helper", str(helper)]

    async def main() -> str:
        with anyio.fail_after(30):
            async with _client(args, read_timeout_seconds=20) as client:
                try:
                    await client.call_tool("crash_report", {"year": 2024})
                except MCPError as exc:
                    return exc.message
        return "answered"

    start = time.monotonic()
    said = anyio.run(main)
    assert time.monotonic() - start < 15, said
    assert wait_gone(int(wait_for(helper)))
    assert _frames(trace)[-1] == {**_frames(trace)[-1], "event": "exit", "code": 7}
